#![cfg(loom)]
//! loom models of `CancellationToken` (rules 1 to 4 at the top of rt-sync's
//! cancellation_token.rs):
//!
//! * `cancel_races_a_waiting_child`: a child waits in `cancelled()` while its parent is
//!   cancelled; it always wakes (rule 4: a lost wake-up would deadlock, which loom reports).
//! * `cancel_races_child_token`: a child is made while the parent is cancelled; once both are
//!   done the child is cancelled, whichever came first (rule 2).
//! * `cancel_races_a_middle_drop`: the middle of root → middle → leaf is dropped while the root
//!   is cancelled; the leaf is cancelled either way (rule 3).
//!
//! The tree itself is under a mutex; what is lock-free is the `cancelled` flag read by
//! `is_cancelled` and `cancelled()` and its pairing with `Notify`.

use loom::thread;

use loom_tests::block_on;
use rt_sync::CancellationToken;

#[test]
fn cancel_races_a_waiting_child() {
    loom::model(|| {
        let parent = CancellationToken::new();
        let child = parent.child_token();
        let waiter = thread::spawn(move || {
            block_on(child.cancelled());
            assert!(child.is_cancelled());
        });
        parent.cancel();
        waiter.join().unwrap();
    });
}

#[test]
fn cancel_races_child_token() {
    loom::model(|| {
        let parent = CancellationToken::new();
        let p2 = parent.clone();
        let maker = thread::spawn(move || p2.child_token());
        parent.cancel();
        let child = maker.join().unwrap();
        assert!(child.is_cancelled());
    });
}

#[test]
fn cancel_races_a_middle_drop() {
    loom::model(|| {
        let root = CancellationToken::new();
        let middle = root.child_token();
        let leaf = middle.child_token();
        let dropper = thread::spawn(move || drop(middle));
        root.cancel();
        dropper.join().unwrap();
        assert!(leaf.is_cancelled());
    });
}
