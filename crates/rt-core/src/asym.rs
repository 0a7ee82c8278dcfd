//! Asymmetric fences: a store-load barrier whose cost is moved to the rare side.
//!
//! A Dekker-style handshake ("I write my flag, then read yours"; the other side the same, so at
//! least one sees the other) needs a full barrier between the write and the read on *both*
//! sides. When one side runs on every spawn and the other once per shutdown, the frequent side
//! can pay only a compiler fence ([`light`]) if the rare side ([`heavy`]) makes every other
//! running thread of the process execute a full barrier: Linux's `membarrier(2)` with
//! `MEMBARRIER_CMD_PRIVATE_EXPEDITED` does exactly that (an IPI to each CPU running one of our
//! threads; a thread that is not running has passed a context switch, itself a full barrier).
//! So either the light side's barrier point falls after its write, which the heavy side's read
//! then sees, or before its read, which then sees the heavy side's write. The same technique as
//! folly's `asymmetricLightBarrier`/`asymmetricHeavyBarrier` and the kernel's own RCU.
//!
//! The process registers once ([`init`], called when a task list is built); where the kernel
//! refuses (`membarrier` missing or filtered by seccomp), both sides fall back to a real
//! `SeqCst` fence: correct, at the old price. Under loom both sides are `fence(SeqCst)`, which
//! is what the heavy barrier guarantees the pair (`rt_core::sync`'s exception 1).
//!
//! Users: `OwnedTasks::bind_in` (light) against `close_and_shutdown_all` (heavy), `task/list.rs`.

#[cfg(not(loom))]
mod imp {
    use std::sync::atomic::{compiler_fence, fence, AtomicU8, Ordering};
    use std::sync::Once;

    /// `membarrier(2)` commands (linux/membarrier.h).
    const CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

    const UNKNOWN: u8 = 0;
    const MEMBARRIER: u8 = 1;
    const FALLBACK: u8 = 2;

    /// Which barrier pair this process uses. Only moves from `UNKNOWN` once, inside `INIT`; a
    /// light side that reads `MEMBARRIER` therefore knows every heavy side will use it too
    /// (`heavy` goes through `INIT` before it reads this). Not a shim atomic: a process-wide
    /// setting that takes part in no modelled protocol (under loom this module is not built).
    static MODE: AtomicU8 = AtomicU8::new(UNKNOWN);
    static INIT: Once = Once::new();

    fn membarrier(cmd: libc::c_long) -> bool {
        // SAFETY: `membarrier` takes two integer arguments and touches no memory of ours.
        unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_long) == 0 }
    }

    /// Registers the process for expedited membarriers (once); until then, and where that
    /// fails, both sides use real fences.
    pub fn init() {
        INIT.call_once(|| {
            let mode = if membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) {
                MEMBARRIER
            } else {
                FALLBACK
            };
            MODE.store(mode, Ordering::Release);
        });
    }

    /// The frequent side's barrier, between its write and its read.
    #[inline]
    pub fn light() {
        if MODE.load(Ordering::Relaxed) == MEMBARRIER {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// The rare side's barrier, between its write and its read (a system call: microseconds).
    pub fn heavy() {
        init();
        fence(Ordering::SeqCst);
        if MODE.load(Ordering::Acquire) == MEMBARRIER
            && !membarrier(CMD_PRIVATE_EXPEDITED)
            // Registered processes cannot see this fail; a forked child whose kernel did not
            // carry the registration over registers again.
            && !(membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) && membarrier(CMD_PRIVATE_EXPEDITED))
        {
            // Then the light sides that skipped their fence would be unprotected.
            eprintln!("rt: membarrier(PRIVATE_EXPEDITED) failed after registration; aborting");
            std::process::abort();
        }
    }
}

#[cfg(loom)]
mod imp {
    use crate::sync::{fence, Ordering};

    /// Nothing to register under loom.
    pub fn init() {}

    /// A `SeqCst` fence (what the heavy barrier guarantees the pair).
    pub fn light() {
        fence(Ordering::SeqCst);
    }

    /// A `SeqCst` fence.
    pub fn heavy() {
        fence(Ordering::SeqCst);
    }
}

pub use imp::{heavy, init, light};

#[cfg(all(test, not(loom)))]
mod tests {
    #[test]
    fn heavy_and_light_run_in_either_mode() {
        super::light();
        super::init();
        super::light();
        super::heavy();
    }
}
