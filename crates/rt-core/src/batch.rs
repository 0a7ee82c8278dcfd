//! Batched wake-ups: many wakes, at most one unpark per scheduler.
//!
//! A thread outside the workers (the IO reactor, a timer) that wakes many tasks at once wraps the
//! wakes in [`batch`]. While the batch is open, a scheduler that would unpark a worker for a remote
//! wake instead calls [`defer`] with an [`Unpark`] handle; when the batch closes each distinct
//! scheduler is unparked once. Waking a parked thread costs 15–20 µs on a small machine, so a
//! reactor turn that readies 50 sockets pays for one wake-up, not 50.

use std::cell::RefCell;

// Not loom's `Arc`: this list is thread-local bookkeeping, not a shared protocol, and it needs
// `Arc<dyn Unpark>`, which loom's `Arc` cannot coerce to.
use std::sync::Arc;

/// Something that can wake one sleeping worker.
pub trait Unpark: Send + Sync + 'static {
    /// Wakes one idle worker, if any sleeps and none is searching.
    fn unpark(&self);
}

crate::sync::thread_local! {
    static PENDING: RefCell<Option<Vec<Arc<dyn Unpark>>>> = const { RefCell::new(None) };
}

/// Runs `f` with wake-ups batched: unparks requested through [`defer`] happen once per scheduler
/// when `f` returns (or unwinds).
pub fn batch<R>(f: impl FnOnce() -> R) -> R {
    struct Flush(bool);
    impl Drop for Flush {
        fn drop(&mut self) {
            if !self.0 {
                return; // nested batch: the outer one flushes
            }
            let list = PENDING.try_with(|p| p.borrow_mut().take()).ok().flatten();
            for u in list.into_iter().flatten() {
                u.unpark();
            }
        }
    }
    // After the thread's thread-locals are gone (a runtime shut down by a thread-local's
    // destructor) there is no batch: `defer` then refuses, and each wake unparks at once.
    let outer = PENDING
        .try_with(|p| {
            let mut p = p.borrow_mut();
            if p.is_none() {
                *p = Some(Vec::new());
                true
            } else {
                false
            }
        })
        .unwrap_or(false);
    let _flush = Flush(outer);
    f()
}

/// Called by a scheduler instead of unparking. Returns `true` when the unpark was deferred to the
/// end of the open batch, `false` when no batch is open and the caller must unpark now.
pub fn defer<U: Unpark>(u: &Arc<U>) -> bool {
    let key = Arc::as_ptr(u) as *const ();
    PENDING
        .try_with(|p| {
            let mut p = p.borrow_mut();
            match p.as_mut() {
                None => false,
                Some(list) => {
                    if !list.iter().any(|x| Arc::as_ptr(x) as *const () == key) {
                        list.push(u.clone());
                    }
                    true
                }
            }
        })
        .unwrap_or(false)
}
