//! [`Id`]: a runtime's identity, as tokio's `runtime::Id`.

use std::fmt;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};

/// An opaque id of a runtime, unique among the runtimes of this process
/// ([`Handle::id`](crate::Handle::id)). Displays as a number.
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq)]
pub struct Id(NonZeroU64);

impl Id {
    /// The next unused id.
    pub(crate) fn next() -> Id {
        // Only uniqueness matters: no other memory is ordered by this counter.
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Id(NonZeroU64::new(n).expect("runtime ids start at 1 and do not wrap in practice"))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
