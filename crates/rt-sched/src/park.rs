//! Thread parking: crossbeam-utils' `Parker` (loom-visible when built with
//! `--cfg crossbeam_loom` and its `loom` feature, which `rt-sched` enables under `cfg(loom)`).

pub(crate) use crossbeam_utils::sync::{Parker, Unparker};

/// The user's park hooks (`Builder::on_thread_park` / `on_thread_unpark`, tokio's), called by
/// both schedulers' park paths on the parking thread.
#[derive(Clone, Default)]
pub struct ParkHooks {
    /// Called just before the thread parks for lack of work. A task it spawns is run instead
    /// of parking.
    pub on_park: Option<crate::ThreadCallback>,
    /// Called just after the thread wakes from a park (also when `on_park` spawned work and it
    /// did not sleep).
    pub on_unpark: Option<crate::ThreadCallback>,
}

impl ParkHooks {
    /// Calls `on_park` (the thread is about to park) and returns a guard that calls
    /// `on_unpark` when it drops (the thread is awake again), on every way out of the park.
    pub(crate) fn enter(&self) -> UnparkHook<'_> {
        if let Some(f) = &self.on_park {
            f();
        }
        UnparkHook(self.on_unpark.as_ref())
    }
}

impl std::fmt::Debug for ParkHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParkHooks")
            .field("on_park", &self.on_park.is_some())
            .field("on_unpark", &self.on_unpark.is_some())
            .finish()
    }
}

/// Calls `on_unpark` when dropped ([`ParkHooks::enter`]).
pub(crate) struct UnparkHook<'a>(Option<&'a crate::ThreadCallback>);

impl Drop for UnparkHook<'_> {
    fn drop(&mut self) {
        if let Some(f) = self.0 {
            f();
        }
    }
}
