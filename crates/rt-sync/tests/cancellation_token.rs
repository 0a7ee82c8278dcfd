//! `CancellationToken`: cancelling a parent cancels its children (transitively, also children
//! whose own parent was dropped), never the other way round; `cancelled()` completes whether
//! the cancel came before it was created, between creation and first poll, or while it waits;
//! clones share a token; `drop_guard` cancels on drop unless disarmed.

mod channel_util;

use std::pin::pin;

use channel_util::{block_on, poll_with, CountWaker};
use rt::sync::{CancellationToken, DropGuard};

#[test]
fn a_parent_cancels_its_children_but_not_the_reverse() {
    let parent = CancellationToken::new();
    let child = parent.child_token();
    let grandchild = child.child_token();
    let sibling = parent.child_token();

    child.cancel();
    assert!(child.is_cancelled() && grandchild.is_cancelled());
    assert!(!parent.is_cancelled(), "a child must not cancel its parent");
    assert!(!sibling.is_cancelled());

    let late = child.child_token(); // of a cancelled token: born cancelled
    assert!(late.is_cancelled());

    parent.cancel();
    assert!(sibling.is_cancelled());
}

#[test]
fn a_grandchild_is_reached_after_its_parent_is_dropped() {
    let root = CancellationToken::new();
    let middle = root.child_token();
    let leaf = middle.child_token();
    drop(middle);
    root.cancel();
    assert!(leaf.is_cancelled());
}

#[test]
fn cancelled_completes_for_a_cancel_before_creation_before_poll_and_while_waiting() {
    // Before the future exists.
    let token = CancellationToken::new();
    token.cancel();
    block_on(token.cancelled());

    // After creation, before the first poll.
    let token = CancellationToken::new();
    let fut = token.cancelled();
    token.cancel();
    block_on(fut);

    // While it waits: the waker is woken once, then it is ready.
    let token = CancellationToken::new();
    let clone = token.clone();
    let waker = CountWaker::new();
    let mut fut = pin!(token.cancelled());
    assert!(poll_with(fut.as_mut(), &waker).is_pending());
    clone.cancel(); // through a clone: clones share the token
    assert_eq!(waker.count(), 1);
    assert!(poll_with(fut.as_mut(), &waker).is_ready());
}

#[test]
fn a_child_waiting_in_a_task_wakes_when_the_parent_is_cancelled() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let parent = CancellationToken::new();
    let waiters: Vec<_> = (0..8)
        .map(|_| rt.spawn(parent.child_token().cancelled_owned()))
        .collect();
    parent.cancel();
    rt.block_on(async {
        for w in waiters {
            w.await.unwrap();
        }
    });
}

#[test]
fn drop_guard_cancels_on_drop_unless_disarmed() {
    let token = CancellationToken::new();
    let guard: DropGuard = token.clone().drop_guard();
    let back = guard.disarm();
    drop(back);
    assert!(!token.is_cancelled(), "a disarmed guard must not cancel");

    let guard = token.clone().drop_guard();
    assert!(!token.is_cancelled());
    drop(guard);
    assert!(token.is_cancelled());
}

#[test]
fn run_until_cancelled_returns_the_output_or_none_and_drops_the_future() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    // Completes first: its output comes back.
    let token = CancellationToken::new();
    assert_eq!(block_on(token.run_until_cancelled(async { 7 })), Some(7));

    // Cancelled before the first poll: the future never runs, and is dropped once.
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    token.cancel();
    let guard = Counted(drops.clone());
    let r = ran.clone();
    let out = block_on(token.run_until_cancelled(async move {
        let _guard = guard;
        r.fetch_add(1, Ordering::SeqCst);
    }));
    assert_eq!(out, None);
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "a cancelled token must not run the future"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 1);

    // Cancelled while the future waits: the waiter is woken, the result is None, and the
    // pending future is dropped unfinished.
    let token = CancellationToken::new();
    let (tx, rx) = rt::sync::oneshot::channel::<u32>();
    let waker = CountWaker::new();
    let guard = Counted(drops.clone());
    let mut fut = pin!(token.clone().run_until_cancelled_owned(async move {
        let _guard = guard;
        rx.await.unwrap()
    }));
    assert!(poll_with(fut.as_mut(), &waker).is_pending());
    token.cancel();
    assert_eq!(waker.count(), 1);
    assert_eq!(
        poll_with(fut.as_mut(), &waker),
        std::task::Poll::Ready(None)
    );
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert!(
        tx.send(1).is_err(),
        "the receiver went with the dropped future"
    );
}
