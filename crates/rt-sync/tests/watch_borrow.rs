//! `watch` borrows take no lock: two live borrows on one thread do not deadlock, a borrow held
//! while another thread sends neither blocks that send nor changes under the borrower's feet,
//! `send_replace` hands the old value back once its borrows are gone, `send_modify` waits for
//! the borrows of the value it changes, and `Ref::has_changed` reports what the borrow saw.

mod channel_util;

use std::sync::mpsc as std_mpsc;
use std::thread;

use channel_util::block_on;
use rt_sync::watch;

#[test]
fn two_borrows_on_one_thread() {
    let (tx, rx) = watch::channel(String::from("a"));
    let rx2 = rx.clone();
    let first = rx.borrow();
    let second = rx2.borrow();
    let third = tx.borrow();
    assert_eq!(
        (first.as_str(), second.as_str(), third.as_str()),
        ("a", "a", "a")
    );
    // A send on this very thread while they live: tokio's RwLock would deadlock here.
    tx.send(String::from("b")).unwrap();
    assert_eq!(*first, "a", "a borrow keeps the value it borrowed");
    assert_eq!(*rx.borrow(), "b");
}

#[test]
fn a_borrow_held_while_another_thread_sends() {
    let (tx, mut rx) = watch::channel(0_u64);
    let held = rx.borrow();
    let (done_tx, done_rx) = std_mpsc::channel();
    let sender = thread::spawn(move || {
        for i in 1..=100 {
            tx.send(i).unwrap();
        }
        done_tx.send(()).unwrap();
        tx
    });
    // The sends finish while `held` is still alive: they never wait for it.
    done_rx.recv().unwrap();
    assert_eq!(*held, 0);
    // Another borrow while the first lives sees the latest value.
    assert_eq!(*rx.borrow(), 100);
    drop(held);
    let tx = sender.join().unwrap();
    assert_eq!(rx.has_changed(), Ok(true));
    let r = rx.borrow_and_update();
    assert!(r.has_changed());
    assert_eq!(*r, 100);
    drop(r);
    assert!(!rx.borrow().has_changed());
    assert_eq!(rx.has_changed(), Ok(false));
    tx.send(101).unwrap();
    block_on(async { rx.changed().await.unwrap() });
    // `changed` marked it seen already.
    assert!(!rx.borrow_and_update().has_changed());
    drop(tx);
}

#[test]
fn send_replace_returns_the_old_value_after_its_borrows_end() {
    let (tx, rx) = watch::channel(vec![1]);
    let held = rx.borrow();
    let replacer = thread::spawn(move || {
        let old = tx.send_replace(vec![2]);
        (tx, old)
    });
    // The new value is visible while the replacer still waits for `held`.
    while *rx.borrow() != [2] {
        thread::yield_now();
    }
    assert_eq!(*held, [1]);
    drop(held);
    let (_tx, old) = replacer.join().unwrap();
    assert_eq!(old, [1]);
}

#[test]
fn send_modify_changes_in_place_once_borrows_are_gone() {
    let (tx, mut rx) = watch::channel(vec![1]);
    let held = rx.borrow();
    let modifier = thread::spawn(move || {
        tx.send_modify(|v| v.push(2));
        tx
    });
    // The modifier cannot touch the value while `held` borrows it.
    assert_eq!(*held, [1]);
    drop(held);
    let tx = modifier.join().unwrap();
    assert_eq!(*rx.borrow_and_update(), [1, 2]);
    assert_eq!(rx.has_changed(), Ok(false));
    drop(tx);
}
