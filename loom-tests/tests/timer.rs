//! Model of one timer entry (`rt_io::time::entry`): the owner (a `Sleep` on a worker thread)
//! re-registering its waker and cancelling (drop or reset) races the driver firing the entry on the
//! reactor thread.
//!
//! Checked in every interleaving:
//! - the waker is called at most once, and never after `cancel` (the drop) has returned;
//! - no wake-up is lost: a registration that reports "not fired" has its waker called by the fire;
//! - every waker clone the entry took is dropped exactly once, and the entry is freed (loom checks
//!   `Arc` leaks);
//! - loom's `UnsafeCell` checks that owner and driver never touch the waker cell at the same time.
//!
//! Across executions both orders are observed (the fire wins; the cancel wins).
#![cfg(loom)]

use std::sync::atomic::{AtomicBool as StdBool, Ordering::Relaxed};
use std::task::{Wake, Waker};

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;
use rt_io::time::entry::{Entry, Fired};

/// A waker that counts its wakes and checks none comes after the owner's drop completed.
struct Counting {
    wakes: AtomicUsize,
    /// Set by the owner once `cancel` returned.
    dropped: Arc<AtomicBool>,
}

impl Wake for Counting {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        assert!(
            !self.dropped.load(SeqCst),
            "woken after the timer was dropped"
        );
        self.wakes.fetch_add(1, SeqCst);
    }
}

fn counting(dropped: &Arc<AtomicBool>) -> (std::sync::Arc<Counting>, Waker) {
    let c = std::sync::Arc::new(Counting {
        wakes: AtomicUsize::new(0),
        dropped: dropped.clone(),
    });
    let w = Waker::from(c.clone());
    (c, w)
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(2);
    }
    b.check(f);
}

/// The drop of a registered timer races its fire.
#[test]
fn cancel_races_fire() {
    static FIRE_WON: StdBool = StdBool::new(false);
    static CANCEL_WON: StdBool = StdBool::new(false);
    model(|| {
        let dropped = Arc::new(AtomicBool::new(false));
        let (w1, waker) = counting(&dropped);
        // As `Sleep::poll` does: the entry holds the first waker before it is shared.
        let entry = Arc::new(Entry::new(Some(waker)));
        let driver = {
            let entry = entry.clone();
            thread::spawn(move || entry.fire(false))
        };
        // The owner drops the sleep.
        drop(entry.cancel());
        dropped.store(true, SeqCst);
        driver.join().unwrap();
        assert_eq!(
            Arc::strong_count(&entry),
            1,
            "the driver released the entry"
        );
        drop(entry);
        let wakes = w1.wakes.load(SeqCst);
        assert!(wakes <= 1);
        if wakes == 1 {
            FIRE_WON.store(true, Relaxed);
        } else {
            CANCEL_WON.store(true, Relaxed);
        }
        assert_eq!(std::sync::Arc::strong_count(&w1), 1, "waker dropped once");
    });
    assert!(FIRE_WON.load(Relaxed), "the fire won in some execution");
    assert!(CANCEL_WON.load(Relaxed), "the cancel won in some execution");
}

/// A re-poll with a new waker races the fire, then the owner drops the sleep.
#[test]
fn register_races_fire_then_cancel() {
    static SAW_FIRED: StdBool = StdBool::new(false);
    static WOKE_NEW: StdBool = StdBool::new(false);
    static WOKE_OLD: StdBool = StdBool::new(false);
    model(|| {
        let dropped = Arc::new(AtomicBool::new(false));
        let (w1, waker1) = counting(&dropped);
        let (w2, waker2) = counting(&dropped);
        let entry = Arc::new(Entry::new(Some(waker1)));
        let driver = {
            let entry = entry.clone();
            thread::spawn(move || entry.fire(false))
        };
        let registered = entry.register(&waker2);
        drop(waker2);
        let fired_before_cancel = entry.fired();
        drop(entry.cancel());
        dropped.store(true, SeqCst);
        driver.join().unwrap();
        assert_eq!(
            Arc::strong_count(&entry),
            1,
            "the driver released the entry"
        );
        drop(entry);

        let (old, new) = (w1.wakes.load(SeqCst), w2.wakes.load(SeqCst));
        assert!(old + new <= 1, "one wake at most");
        if old == 1 {
            // The fire took the first waker, so the registration must have seen it.
            assert_eq!(registered, Fired::Elapsed);
            WOKE_OLD.store(true, Relaxed);
        }
        if new == 1 {
            WOKE_NEW.store(true, Relaxed);
        }
        if registered == Fired::No && fired_before_cancel == Fired::Elapsed {
            // The fire came after the registration and before the drop: it must have woken
            // the new waker (no lost wake-up).
            assert_eq!(new, 1, "lost wake-up");
        }
        if registered == Fired::Elapsed {
            SAW_FIRED.store(true, Relaxed);
        }
        assert_eq!(
            std::sync::Arc::strong_count(&w1),
            1,
            "first waker dropped once"
        );
        assert_eq!(
            std::sync::Arc::strong_count(&w2),
            1,
            "second waker dropped once"
        );
    });
    assert!(
        SAW_FIRED.load(Relaxed),
        "registration saw the fire in some execution"
    );
    assert!(
        WOKE_NEW.load(Relaxed),
        "the new waker was woken in some execution"
    );
    assert!(
        WOKE_OLD.load(Relaxed),
        "the old waker was woken in some execution"
    );
}
