//! The one shim through which every atomic, cell, `Arc`, lock, thread-local and thread spawn of the
//! runtime passes. Under `cfg(loom)` each is loom's, so the models in `loom-tests/` see every
//! synchronising operation; otherwise each is std's, at no cost.
//!
//! Architecture invariant: no crate of the workspace imports `std::sync::atomic`, `std::cell::UnsafeCell`
//! or `std::sync::Arc` for shared state directly; they import them from here.
//!
//! # What may differ under `cfg(loom)`
//!
//! A model proves something only about the code that ships, so under `cfg(loom)` only **sizes**
//! may change (the frame pool's geometry in `pool/class.rs`, `OwnedTasks`' chunk and batch sizes
//! in `task/list.rs`, the bounded channel's refill batch
//! `REFILL_DIVISOR` and its largest lock-free ring `CHANNEL_RING_MAX` in rt-sync's
//! `tuning.rs`: fewer states, the same code; and the worker's timeouts in rt-sched's
//! `tuning.rs`, `TRIM_AFTER` and `WATCH_INTERVAL`, which are `Duration::MAX` under loom, and its
//! global queue interval, which is not tuned under loom (`GLOBAL_QUEUE_TARGET`), because loom
//! has no clock and a branch on elapsed wall-clock time would make replays of one execution
//! differ), plus this short
//! list of exceptions, each cited again at its site:
//!
//! 1. **`OwnedTasks::bind`'s slot write and the barrier pair around it** (`task/list.rs`,
//!    `asym.rs`). The shipped build stores the task pointer with a plain store and pays a
//!    compiler fence, leaving the full barrier to the close's `membarrier(2)`, which loom cannot
//!    model; under loom both halves are `fence(SeqCst)` (what the pair guarantees), and the
//!    store is a swap, because loom models a plain store racing another thread's
//!    read-modify-write wrongly (tokio-rs/loom#254). The same pair guards the LIFO slot's
//!    owner/thief handshake (rt-sched `lifo.rs`), whose flag accesses are `Relaxed` in the
//!    shipped build and `SeqCst` under loom: loom orders relaxed accesses around two `SeqCst`
//!    fences more weakly than the C++ fence rules do, and reports a double take they forbid.
//! 2. **[`unmodelled`] atomics**: process-wide statistics and id sources that take part in no
//!    protocol (all `Relaxed`, nothing waits on them) stay std's under loom, because loom's atomics
//!    cannot live in a `static` (and a `loom::lazy_static!` is dropped before the other threads'
//!    thread-local destructors have run). Users: task ids (`task/id.rs`), the pool's counters
//!    (`pool/counters.rs`), reactor ids (rt-io `handle.rs`), the schedulers' statistics
//!    (rt-sched `metrics.rs`, `current_thread.rs`'s poll and spawn counts, rt-io's per-shard
//!    event counts in `handle.rs`), the process-wide "a clock was paused" hint (rt-io
//!    `time/clock.rs`), and the task-dump statistics of named tasks and their clock origin
//!    (`task/dump.rs`). Its std `Mutex` keeps process-wide lists in a `static` the same way:
//!    `rt::process`'s orphaned children, and the errors of panicked tasks (`task/core.rs`,
//!    storage handed over under the task state word's protocol).
//! 3. **Thread-local initialisers**: loom's `thread_local!` has no `const { }` form, so
//!    [`thread_local!`](crate::sync::thread_local) drops the `const` under loom (the same value,
//!    built lazily); a `const { }` initialiser that is not a plain expression (the pool's `HEAP`)
//!    is spelled twice, once per build.
//! 4. **Slab memory** (`pool/mapping.rs`): under loom through loom's allocator instead of `mmap`,
//!    so a slab still mapped when an execution ends is reported as a leak.
//! 5. **Visibility**: a few modules are `pub` (and `#[doc(hidden)]`) under loom only, so
//!    `loom-tests` can reach the code they model (rt-io's `time::entry`).
//! 6. **The work-stealing queues** (rt-sched `queue.rs`): crossbeam-deque is invisible to loom,
//!    so under loom a `Mutex<VecDeque>` stands behind the same small API (`Local`, `Stealer`,
//!    `Injector`). The models check the scheduler's protocol around the queues (idle counts,
//!    parking, shutdown), not the deque itself, which crossbeam tests on its own.
//! 7. **`StdArc` for trait objects and receivers** ([`StdArc`]): loom's `Arc` cannot be coerced
//!    to `Arc<dyn Trait>` nor be a `self` receiver, so an `Arc` that has to be one stays std's.
//!    Its reference count takes part in no protocol a model checks; the state inside it does,
//!    and that comes from this shim.
//! 8. **The trace export** (rt-sched `trace/`, `Builder::trace_file`): its writer thread, the
//!    lock-protected buffer of non-worker threads and the thread-local track ids and poll depths are std's. It
//!    is a diagnostic that takes part in no protocol (no worker ever waits on it, and under loom
//!    it is never switched on); the one lock-free part, the per-worker ring (`trace/event_ring.rs`),
//!    uses this shim's atomics and cells and is modelled in `loom-tests/tests/trace_ring.rs`.
//! 9. **The side-record registry** (`task/meta.rs`'s `registry`): a process-wide `static` of
//!    std `Mutex`es (loom's cannot live in a `static`, as in 2) linking every live named task's
//!    side record, so a stall report can read a name without touching a freed record. It orders
//!    only those reads against the frees, in no protocol a model checks; the models spawn
//!    unnamed tasks, which never touch it.
//! 10. **The poll stamps** (rt-sched `stall.rs`): [`unmodelled`] atomics, like the statistics
//!     of exception 2. The stall monitor and a take-over thread only read them as a hint (has this worker's
//!     poll moved?); which thread runs a task is decided by the LIFO slot's swap and the queues,
//!     which loom sees.
//! 11. **The current-thread runtimes' shared stall monitor** (rt-sched `stall.rs`,
//!     `shared_monitor`): one process-wide thread, its list of watched schedulers in a `static`
//!     std `Mutex` with a std `Condvar`, and std `Weak` references to them (loom's primitives
//!     cannot live in a `static`, as in 2). It only reads poll stamps (exception 10) and makes
//!     reports; no scheduler waits on it, and the models never turn stall detection on.
//!
//! Nothing else: no branch, retry or ordering that exists in one build and not in the other.

#[cfg(not(loom))]
mod imp {
    pub use std::sync::atomic::{
        fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

    /// Spawning and yielding threads.
    pub mod thread {
        pub use std::thread::{current, park, spawn, yield_now, Builder, JoinHandle, Thread};
    }

    /// Busy-wait hint: a CPU pause normally, a yield to the model under loom.
    #[inline]
    pub fn spin_loop() {
        std::hint::spin_loop();
    }

    /// `UnsafeCell` with loom's closure API, so code compiles unchanged under both.
    #[derive(Debug)]
    #[repr(transparent)]
    pub struct UnsafeCell<T: ?Sized>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        /// A cell holding `data`.
        #[inline]
        pub const fn new(data: T) -> UnsafeCell<T> {
            UnsafeCell(std::cell::UnsafeCell::new(data))
        }

        /// The value, out of the cell.
        #[inline]
        pub fn into_inner(self) -> T {
            self.0.into_inner()
        }
    }

    impl<T: ?Sized> UnsafeCell<T> {
        /// Runs `f` with a shared pointer to the contents.
        #[inline]
        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Runs `f` with a unique pointer to the contents.
        #[inline]
        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }

        /// Mutable access through `&mut self`: no synchronisation needed.
        #[inline]
        pub fn get_mut(&mut self) -> &mut T {
            self.0.get_mut()
        }
    }
}

#[cfg(loom)]
mod imp {
    pub use loom::sync::atomic::{
        fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub use loom::sync::{Arc, Condvar, Mutex, MutexGuard};
    #[doc(hidden)]
    pub use loom::thread_local as __loom_thread_local;

    /// Spawning and yielding threads.
    pub mod thread {
        pub use loom::thread::{current, park, spawn, yield_now, Builder, JoinHandle, Thread};
    }

    /// Busy-wait hint: under loom a yield, so a spin loop lets the other threads run.
    #[inline]
    pub fn spin_loop() {
        loom::thread::yield_now();
    }

    /// `std::sync::OnceLock`'s `new`/`get`/`set`, built on a loom atomic so a model sees the
    /// publication of the value (loom has no `OnceLock`).
    pub struct OnceLock<T> {
        value: AtomicPtr<T>,
        /// std's auto traits: `Sync` only if `T: Send + Sync`.
        _marker: std::marker::PhantomData<std::sync::OnceLock<T>>,
    }

    impl<T> OnceLock<T> {
        /// An empty cell (std's `OnceLock::new`).
        pub fn new() -> OnceLock<T> {
            OnceLock {
                value: AtomicPtr::new(std::ptr::null_mut()),
                _marker: std::marker::PhantomData,
            }
        }

        /// The value, once set (std's `OnceLock::get`).
        pub fn get(&self) -> Option<&T> {
            let p = self.value.load(Ordering::Acquire);
            // SAFETY: a non-null pointer was published by `set` (Release, read with Acquire) and
            // stays valid until `self` is dropped.
            unsafe { p.as_ref() }
        }

        /// Sets the value if the cell is empty, else hands `value` back (std's `OnceLock::set`).
        pub fn set(&self, value: T) -> Result<(), T> {
            let new = Box::into_raw(Box::new(value));
            match self.value.compare_exchange(
                std::ptr::null_mut(),
                new,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => Ok(()),
                // SAFETY: `new` came from `Box::into_raw` above and was never published.
                Err(_) => Err(*unsafe { Box::from_raw(new) }),
            }
        }
    }

    impl<T> Default for OnceLock<T> {
        fn default() -> OnceLock<T> {
            OnceLock::new()
        }
    }

    impl<T: std::fmt::Debug> std::fmt::Debug for OnceLock<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_tuple("OnceLock").field(&self.get()).finish()
        }
    }

    impl<T> Drop for OnceLock<T> {
        fn drop(&mut self) {
            let p = self.value.with_mut(|p| *p);
            if !p.is_null() {
                // SAFETY: published by `set` from `Box::into_raw`; `&mut self` means no reader.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }

    /// loom's `UnsafeCell`, plus `get_mut` for parity with the std build.
    #[derive(Debug)]
    pub struct UnsafeCell<T>(loom::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub fn new(data: T) -> UnsafeCell<T> {
            UnsafeCell(loom::cell::UnsafeCell::new(data))
        }

        pub fn into_inner(self) -> T {
            self.0.into_inner()
        }

        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            self.0.with(f)
        }

        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            self.0.with_mut(f)
        }

        pub fn get_mut(&mut self) -> &mut T {
            // SAFETY: `&mut self` proves no other access exists.
            self.0.with_mut(|p| unsafe { &mut *p })
        }
    }
}

pub use imp::*;

/// std's `Arc`, under loom too (exception 7 in the module docs), for the places a std `Arc` is
/// required on purpose:
///
/// - an `Arc` the *user* owns and passes as a method receiver (`self: Arc<Self>` in rt-sync's
///   `acquire_owned`, `lock_owned`, `read_owned`, …, tokio's shapes, and `std::task::Wake`);
///   only std's `Arc` can be a receiver;
/// - an `Arc<dyn Trait>` (rt-sched's `IoDriver`, thread hooks, `rt_core::batch`'s
///   `Arc<dyn Unpark>`, which the schedulers' shared state is handed to): loom's `Arc` cannot be
///   coerced to a trait object.
///
/// Neither is a protocol loom must see: the synchronising state inside comes from this shim.
pub use std::sync::Arc as StdArc;

/// Atomics that stay std's even under `cfg(loom)` (exception 2 in the module docs): for
/// process-wide statistics and id sources that take part in no protocol. They can live in a
/// `static` in both builds; under loom they are shared by all executions of a model, so a model
/// must never assert on their values.
pub mod unmodelled {
    pub use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    /// std's `Mutex` for process-wide lists outside every protocol (`rt::process`'s orphaned
    /// children; the errors of panicked tasks, `task/core.rs`, handed over under the task state
    /// word's protocol like the rest of the stage), which must live in a `static`.
    pub use std::sync::Mutex;
    /// std's `OnceLock` for a process-wide value outside every protocol (the task-dump clock
    /// origin, `task/dump.rs`), which must live in a `static`.
    pub use std::sync::OnceLock;
}

/// `thread_local!` that is std's normally and loom's under `cfg(loom)` (each loom thread then
/// gets its own value). Accepts `= const { .. }` initialisers (const under std, plain under
/// loom, which has no const form).
#[macro_export]
#[doc(hidden)]
macro_rules! __rt_thread_local {
    () => {};
    ($(#[$a:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }; $($rest:tt)*) => {
        #[cfg(not(loom))]
        ::std::thread_local! { $(#[$a])* $vis static $name: $t = const { $init }; }
        #[cfg(loom)]
        $crate::sync::__loom_thread_local! { $(#[$a])* $vis static $name: $t = $init; }
        $crate::__rt_thread_local!($($rest)*);
    };
    ($(#[$a:meta])* $vis:vis static $name:ident: $t:ty = $init:expr; $($rest:tt)*) => {
        #[cfg(not(loom))]
        ::std::thread_local! { $(#[$a])* $vis static $name: $t = $init; }
        #[cfg(loom)]
        $crate::sync::__loom_thread_local! { $(#[$a])* $vis static $name: $t = $init; }
        $crate::__rt_thread_local!($($rest)*);
    };
}

pub use crate::__rt_thread_local as thread_local;
