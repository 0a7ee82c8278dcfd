#![cfg(loom)]
//! loom models of watch's borrow/send protocol and its version word (rules 1 to 6 at the top of
//! rt-sync's watch.rs):
//!
//! * `borrow_races_send`: a borrow races a `send`; the borrow reads either value, and the old
//!   node is freed (its value's drop writes the cell) only after the borrow's read, whichever
//!   order the window, the swap and the reference counts take (rule 2).
//! * `changed_then_borrow_sees_the_new_value`: a receiver waits in `changed` while the value is
//!   sent; once `changed` returns, a borrow sees the new value and the version word agrees
//!   (rules 5 and 6; a lost wake-up would deadlock, which loom reports).
//! * `send_modify_races_borrow`: `send_modify` writes the value in place while a borrow reads
//!   it; the two accesses are always ordered (rule 4), and the borrow sees the value before or
//!   after the change, never a mix.
//! * `send_replace_races_borrow`: the old value comes back whole, after the borrow of it ended
//!   (rule 3).
//!
//! Each value holds a loom `UnsafeCell`: loom reports any read and write of one value (its
//! drop included) that are not ordered by happens-before. What the models do not cover: more
//! than one writer at a time (writers are serialised by an ordinary lock) and the waiter list
//! of `changed` (a mutex).

use loom::cell::UnsafeCell;

use loom::thread;

use loom_tests::block_on;
use rt_sync::watch;

/// A value whose reads and writes (its drop too) loom checks.
struct Val(UnsafeCell<[usize; 2]>);

// SAFETY: every access goes through loom's `UnsafeCell`, which reports unordered ones.
unsafe impl Sync for Val {}

impl Val {
    fn new(v: usize) -> Val {
        Val(UnsafeCell::new([v, v]))
    }

    fn read(&self) -> usize {
        // SAFETY: loom checks this read against every write of the cell.
        let [a, b] = self.0.with(|p| unsafe { *p });
        assert_eq!(a, b, "a torn value");
        a
    }

    fn write(&mut self, v: usize) {
        self.0.with_mut(|p| {
            // SAFETY: `&mut self`; loom checks it against every read.
            unsafe { (*p)[0] = v };
            // SAFETY: as above.
            unsafe { (*p)[1] = v };
        });
    }
}

impl Drop for Val {
    fn drop(&mut self) {
        self.write(usize::MAX);
    }
}

#[test]
fn borrow_races_send() {
    loom::model(|| {
        let (tx, rx) = watch::channel(Val::new(1));
        let rx2 = rx.clone();
        let reader = thread::spawn(move || {
            let r = rx2.borrow();
            let v = r.read();
            assert!(v == 1 || v == 2, "read {v}");
        });
        // `rx` keeps a receiver alive, so the send succeeds.
        tx.send(Val::new(2)).unwrap_or_else(|_| unreachable!());
        reader.join().unwrap();
        assert_eq!(rx.borrow().read(), 2);
    });
}

#[test]
fn changed_then_borrow_sees_the_new_value() {
    loom::model(|| {
        let (tx, mut rx) = watch::channel(Val::new(1));
        let reader = thread::spawn(move || {
            block_on(rx.changed()).unwrap();
            let r = rx.borrow_and_update();
            assert_eq!(r.read(), 2);
            drop(r);
            assert_eq!(rx.has_changed(), Ok(false));
        });
        tx.send(Val::new(2)).unwrap_or_else(|_| unreachable!());
        reader.join().unwrap();
    });
}

#[test]
fn send_modify_races_borrow() {
    loom::model(|| {
        let (tx, rx) = watch::channel(Val::new(1));
        let reader = thread::spawn(move || {
            let v = rx.borrow().read();
            assert!(v == 1 || v == 2, "read {v}");
        });
        tx.send_modify(|v| v.write(2));
        reader.join().unwrap();
        assert_eq!(tx.borrow().read(), 2);
    });
}

#[test]
fn send_replace_races_borrow() {
    loom::model(|| {
        let (tx, rx) = watch::channel(Val::new(1));
        let reader = thread::spawn(move || {
            let v = rx.borrow().read();
            assert!(v == 1 || v == 2, "read {v}");
        });
        let old = tx.send_replace(Val::new(2));
        assert_eq!(old.read(), 1);
        drop(old);
        reader.join().unwrap();
    });
}
