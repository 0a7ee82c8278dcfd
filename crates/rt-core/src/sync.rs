//! The one shim through which every atomic, cell, `Arc`, lock, thread-local and thread spawn of the
//! runtime passes. Under `cfg(loom)` each is loom's, so the models in `loom-tests/` see every
//! synchronising operation; otherwise each is std's, at no cost.
//!
//! Architecture invariant: no crate of the workspace imports `std::sync::atomic`, `std::cell::UnsafeCell`
//! or `std::sync::Arc` for shared state directly; they import them from here.
//!
//! # What may differ under `cfg(loom)` in rt-core and rt-io
//!
//! A model proves something only about the code that ships, so under `cfg(loom)` only **sizes**
//! may change (the frame pool's geometry in `pool/class.rs`, `OwnedTasks`' chunk and batch sizes
//! in `task/list.rs`: fewer states, the same code), plus this short list of exceptions, each
//! cited again at its site:
//!
//! 1. **The fence after `OwnedTasks::bind`'s slot swap** (`task/list.rs`). loom models a `SeqCst`
//!    read-modify-write as `AcqRel` only (tokio-rs/loom#180), so the swap-then-load against
//!    `close`'s `SeqCst` store and swaps would show a reordering the hardware forbids. Under loom
//!    a `fence(SeqCst)` stands in for the `SeqCst` the shipped code relies on; in the shipped
//!    build the `SeqCst` swap is itself the full barrier (an `xchg` on x86), and a fence would
//!    cost an `mfence` per spawn.
//! 2. **[`unmodelled`] atomics**: process-wide statistics and id sources that take part in no
//!    protocol (all `Relaxed`, nothing waits on them) stay std's under loom, because loom's atomics
//!    cannot live in a `static` (and a `loom::lazy_static!` is dropped before the other threads'
//!    thread-local destructors have run). Users: task ids (`task/id.rs`), the pool's counters
//!    (`pool/counters.rs`), reactor ids (rt-io `handle.rs`), the process-wide "a clock was
//!    paused" hint (rt-io `time/clock.rs`).
//! 3. **Thread-local initialisers**: loom's `thread_local!` has no `const { }` form, so
//!    [`thread_local!`](crate::sync::thread_local) drops the `const` under loom (the same value,
//!    built lazily); a `const { }` initialiser that is not a plain expression (the pool's `HEAP`)
//!    is spelled twice, once per build.
//! 4. **Slab memory** (`pool/mapping.rs`): under loom through loom's allocator instead of `mmap`,
//!    so a slab still mapped when an execution ends is reported as a leak.
//! 5. **Visibility**: a few modules are `pub` (and `#[doc(hidden)]`) under loom only, so
//!    `loom-tests` can reach the code they model (rt-io's `time::entry`).
//!
//! Nothing else: no branch, retry or ordering that exists in one build and not in the other.

#[cfg(not(loom))]
mod imp {
    pub use std::sync::atomic::{
        fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub use std::sync::{Arc, Condvar, Mutex, MutexGuard};

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
        #[inline]
        pub const fn new(data: T) -> UnsafeCell<T> {
            UnsafeCell(std::cell::UnsafeCell::new(data))
        }

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

/// std's `Arc`, under loom too, for the one place a std `Arc` is required on purpose: an `Arc`
/// the *user* owns and passes as a method receiver (`self: Arc<Self>` in rt-sync's
/// `acquire_owned`, `lock_owned`, `read_owned`, …, tokio's shapes). Only std's `Arc` can be a
/// receiver, and a user's `Arc` around a lock is not runtime-internal shared state: the
/// protocols loom must see are the lock's own atomics and cells, which do come from this shim.
pub use std::sync::Arc as StdArc;

/// Atomics that stay std's even under `cfg(loom)` (exception 2 in the module docs): for
/// process-wide statistics and id sources that take part in no protocol. They can live in a
/// `static` in both builds; under loom they are shared by all executions of a model, so a model
/// must never assert on their values.
pub mod unmodelled {
    pub use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
