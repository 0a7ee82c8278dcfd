//! One timer's shared state: the state word and the waker, shared by the [`Sleep`] that owns the
//! timer (on the thread that polls it) and the time driver that fires it (on the thread of
//! whichever reactor turn finds it due: a worker driving a shard, or the `rt-io` thread).
//!
//! This file owns the layout of the entry state word; nobody else masks its bits.
//!
//! ```text
//!  bit     4          3           2         1          0
//!      +----------+-----------+--------+---------+-------------+
//!      | SHUTDOWN | CANCELLED | FIRED  | WAKING  | REGISTERING |
//!      +----------+-----------+--------+---------+-------------+
//!        driver     owner       driver   driver    owner
//! ```
//!
//! Each bit has one writer that sets it:
//! - `REGISTERING` (owner): the owner is writing the waker cell. Set and cleared within one
//!   [`Entry::register`] call. While it is set the driver does not touch the cell.
//! - `WAKING` (driver): the driver is taking and calling the waker. Set together with `FIRED`,
//!   cleared once the wake call has returned. While it is set the owner does not touch the cell.
//! - `FIRED` (driver): the deadline passed (or the driver shut down). Never cleared: an entry fires
//!   once. A reset timer gets a fresh entry.
//! - `CANCELLED` (owner): the owner dropped or reset the timer. Never cleared. Once
//!   [`Entry::cancel`] has returned the driver never touches the waker again.
//! - `SHUTDOWN` (driver): set together with `FIRED` when the driver fired the entry because it shut
//!   down, not because the deadline passed.
//!
//! The protocol is `AtomicWaker`'s (futures-rs), extended with cancellation:
//!
//! 1. The driver fires with one `fetch_or(FIRED | WAKING)`. If `REGISTERING` or `CANCELLED` was
//!    set it leaves the cell alone (the owner sees `FIRED` itself, or no longer cares) and clears
//!    `WAKING`. Otherwise it owns the cell: it takes the waker, calls it, and only then clears
//!    `WAKING`.
//! 2. The owner registers with `fetch_or(REGISTERING)`. If `FIRED` was set it does not touch the
//!    cell and reports the timer as fired. Otherwise it owns the cell until it clears
//!    `REGISTERING`; if the clearing `fetch_and` shows `FIRED`, the driver fired meanwhile and
//!    skipped the wake, so the owner reports the timer as fired itself. Either the owner sees
//!    `FIRED` or the driver sees the new waker: a wake-up is never lost.
//! 3. The owner cancels with `fetch_or(CANCELLED)`. If `WAKING` was set the driver is inside the
//!    wake call, and the owner waits until `WAKING` clears. So when `cancel` returns, every wake
//!    the driver will ever make has already returned: a dropped timer's waker is never called
//!    after the drop. (The wait lasts one `Waker::wake` call.) One exception: an owner that
//!    cancels from inside that very wake call, on the firing thread (a waker that drops the
//!    sleep it is woken by), does not wait — the wake it would wait for is below it on its own
//!    stack. The driver took the waker out of the cell before calling it and touches only the
//!    state word after it returns, so the owner may take the (empty) cell at once. The firing
//!    thread knows the entry it is waking from a thread-local set around the call.
//!
//! The entry itself lives in an `Arc`: one reference held by the owner, one by the wheel while the
//! entry is linked in it (and by the driver while it fires it). The waker goes with the last one.
//!
//! [`Sleep`]: super::Sleep

use std::fmt;
use std::task::Waker;

use std::cell::Cell;

use rt_core::sync::{spin_loop, thread, AtomicU32, AtomicUsize, Ordering, UnsafeCell};

rt_core::sync::thread_local! {
    /// The entry whose waker this thread is calling in [`Entry::fire`] (null outside), so that
    /// a `cancel` from inside that call does not wait for it (rule 3).
    static FIRING: Cell<*const Entry> = const { Cell::new(std::ptr::null()) };
}

/// The owner is writing the waker cell.
const REGISTERING: usize = 1 << 0;
/// The driver is taking and calling the waker.
const WAKING: usize = 1 << 1;
/// The entry fired: the deadline passed or the driver shut down.
const FIRED: usize = 1 << 2;
/// The owner gave the entry up.
const CANCELLED: usize = 1 << 3;
/// The entry fired because the driver shut down.
const SHUTDOWN: usize = 1 << 4;

/// The shared state of one registered timer. See the module docs for the protocol.
pub struct Entry {
    state: AtomicUsize,
    /// Written by whoever holds `REGISTERING` (owner) or `WAKING` (driver), per the protocol.
    waker: UnsafeCell<Option<Waker>>,
    /// The wheel key of a staged entry that a flush moved into the wheel (`stage.rs`, rule 1).
    /// Written and read only under the wheel's lock, which orders it (so `Relaxed`); not part of
    /// the state word's protocol.
    key: AtomicU32,
    /// Where the entry sits in its stage's list while staged (`stage.rs`). Written and read
    /// only under that stage's lock (so `Relaxed`).
    slot: AtomicU32,
}

// SAFETY: the only non-`Sync` field is the waker cell, and the state protocol gives exactly one
// thread access to it at a time: the owner while it holds `REGISTERING` (or after `cancel`), the
// driver while it holds `WAKING`. `Waker` is `Send + Sync`.
unsafe impl Send for Entry {}
// SAFETY: as for `Send`.
unsafe impl Sync for Entry {}

/// What the owner learns from [`Entry::register`] and [`Entry::fired`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Fired {
    /// Not fired yet; the registered waker will be called when it does.
    No,
    /// The deadline passed.
    Elapsed,
    /// The driver shut down before the deadline.
    Shutdown,
}

impl Entry {
    /// A new entry holding `waker`, not fired.
    pub fn new(waker: Option<Waker>) -> Entry {
        Entry {
            state: AtomicUsize::new(0),
            waker: UnsafeCell::new(waker),
            key: AtomicU32::new(u32::MAX),
            slot: AtomicU32::new(u32::MAX),
        }
    }

    /// Makes a used entry fresh again (not fired, holding `waker`), for the next registration
    /// of a timer on this thread (`sleep.rs`'s entry cache). Taking `&mut self` is the proof
    /// that nobody else holds it: the owner got it out of its `Arc` with `Arc::get_mut`, so the
    /// wheel and every firing thread have let go (rule 3's `cancel` or the fire returned).
    pub fn reuse(&mut self, waker: Waker) {
        self.state.store(0, Ordering::Relaxed);
        *self.waker.get_mut() = Some(waker);
    }

    /// Takes out the waker a used entry may still hold (a fire that found the owner
    /// registering leaves the owner's new waker in the cell), so that a cached entry keeps no
    /// task alive. `&mut self`: as for [`reuse`](Entry::reuse).
    pub fn take_waker(&mut self) -> Option<Waker> {
        self.waker.get_mut().take()
    }

    /// Records the wheel key a flush gave this staged entry. Under the wheel's lock.
    pub(crate) fn set_key(&self, key: u32) {
        self.key.store(key, Ordering::Relaxed);
    }

    /// The key [`set_key`](Entry::set_key) recorded. Under the wheel's lock.
    pub(crate) fn key(&self) -> u32 {
        self.key.load(Ordering::Relaxed)
    }

    /// Records where the entry sits in its stage. Under the stage's lock.
    pub(crate) fn set_slot(&self, slot: usize) {
        self.slot.store(slot as u32, Ordering::Relaxed);
    }

    /// The slot [`set_slot`](Entry::set_slot) recorded. Under the stage's lock.
    pub(crate) fn slot(&self) -> usize {
        self.slot.load(Ordering::Relaxed) as usize
    }

    /// Whether the entry fired, and why. Owner side.
    pub fn fired(&self) -> Fired {
        decode(self.state.load(Ordering::Acquire))
    }

    /// Stores `waker` to be called when the entry fires, unless it already fired. Owner side:
    /// callers must be the single owner, which `&mut Sleep` guarantees.
    pub fn register(&self, waker: &Waker) -> Fired {
        let prev = self.state.fetch_or(REGISTERING, Ordering::Acquire);
        debug_assert_eq!(
            prev & (REGISTERING | CANCELLED),
            0,
            "one owner, not cancelled"
        );
        if prev & FIRED != 0 {
            // Rule 2: the driver owns or owned the cell; leave it.
            self.state.fetch_and(!REGISTERING, Ordering::Relaxed);
            return decode(prev);
        }
        // SAFETY: we hold `REGISTERING` and `FIRED` was clear when we took it, so the driver's
        // `fetch_or` comes after ours and sees `REGISTERING`: it will not touch the cell (rule 1).
        self.waker.with_mut(|cell| unsafe {
            match &mut *cell {
                Some(old) if old.will_wake(waker) => {}
                slot => *slot = Some(waker.clone()),
            }
        });
        let prev = self.state.fetch_and(!REGISTERING, Ordering::AcqRel);
        decode(prev)
    }

    /// Gives the entry up: once this returns, the driver will never call or touch the waker, and
    /// the waker is returned to the caller. Owner side; called at most once.
    pub fn cancel(&self) -> Option<Waker> {
        let mut state = self.state.fetch_or(CANCELLED, Ordering::AcqRel);
        debug_assert_eq!(
            state & (REGISTERING | CANCELLED),
            0,
            "one owner, one cancel"
        );
        // Rule 3: the driver is calling the waker right now; wait for that call to return. Should
        // the firing thread be preempted inside the call, yield to it instead of burning its core.
        let mut spins = 0u32;
        if state & WAKING != 0
            && FIRING.try_with(Cell::get).unwrap_or(std::ptr::null()) == std::ptr::from_ref(self)
        {
            // Rule 3's exception: cancelled from inside our own wake call, on this thread.
            return self.waker.with_mut(|cell| {
                // SAFETY: the firing thread is this one, inside the wake call below us on the
                // stack: it took the waker out before the call and touches only the state word
                // after it, so nobody else is in the cell.
                unsafe { (*cell).take() }
            });
        }
        while state & WAKING != 0 {
            if spins < 64 {
                spin_loop();
                spins += 1;
            } else {
                thread::yield_now();
            }
            state = self.state.load(Ordering::Acquire);
        }
        // SAFETY: `CANCELLED` is set and `WAKING` is clear, so the driver has finished with the
        // cell (its `fetch_and(!WAKING)` is Release, our load Acquire) and will not take it again
        // (rule 1: it sees `CANCELLED`).
        self.waker.with_mut(|cell| unsafe { (*cell).take() })
    }

    /// Fires the entry: wakes its waker unless the owner is registering (it will see `FIRED`) or
    /// has cancelled. Driver side; called at most once per entry, with no lock held. Never
    /// unwinds: a panicking waker is contained.
    pub fn fire(&self, shutdown: bool) {
        let bits = if shutdown {
            FIRED | WAKING | SHUTDOWN
        } else {
            FIRED | WAKING
        };
        let prev = self.state.fetch_or(bits, Ordering::AcqRel);
        debug_assert_eq!(prev & FIRED, 0, "an entry fires once");
        if prev & (REGISTERING | CANCELLED) == 0 {
            // SAFETY: we set `WAKING` while neither `REGISTERING` nor `CANCELLED` was set, so the
            // owner is not in the cell and will not enter it until we clear `WAKING` (rules 2, 3).
            let waker = self.waker.with_mut(|cell| unsafe { (*cell).take() });
            if let Some(waker) = waker {
                // A panicking wake is contained (`rt_core::wake`): `WAKING` is cleared below
                // either way, so the owner's `cancel` never waits on a wake that unwound. The
                // wake may drop the timer itself: `FIRING` tells its `cancel` (rule 3).
                let outer = FIRING.try_with(|f| f.replace(std::ptr::from_ref(self)));
                rt_core::wake::wake(waker);
                if let Ok(outer) = outer {
                    let _ = FIRING.try_with(|f| f.set(outer));
                }
            }
        }
        self.state.fetch_and(!WAKING, Ordering::Release);
    }
}

fn decode(state: usize) -> Fired {
    if state & SHUTDOWN != 0 {
        Fired::Shutdown
    } else if state & FIRED != 0 {
        Fired::Elapsed
    } else {
        Fired::No
    }
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.state.load(Ordering::Relaxed);
        f.debug_struct("Entry")
            .field("registering", &(s & REGISTERING != 0))
            .field("waking", &(s & WAKING != 0))
            .field("fired", &(s & FIRED != 0))
            .field("cancelled", &(s & CANCELLED != 0))
            .field("shutdown", &(s & SHUTDOWN != 0))
            .finish()
    }
}
