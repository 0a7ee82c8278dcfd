#![cfg(loom)]
//! loom model of mpsc's send word (rules 1 to 3 at the top of rt-sync's mpsc/mod.rs):
//!
//! * `close_races_a_permit`: the receiver closes while a sender reserves a slot and sends
//!   through the permit. Either the reserve fails (it came after the close), or its value is
//!   received; either way the receiver then sees `None` — the queue is closed exactly when the
//!   close and the last in-flight send have both happened (a queue never closed would leave
//!   `recv` waiting forever, which loom reports as a deadlock).
//! * `close_races_an_unbounded_send`: the same for the synchronous unbounded send, which is
//!   not counted in flight: it queued before the close (and is received) or fails.
//!
//! The queue itself (rt-sync's channel, two mutexes) and the slot semaphore are run as they
//! ship, not modelled separately here.

use loom::thread;

use loom_tests::block_on;
use rt_sync::mpsc;

#[test]
fn close_races_a_permit() {
    loom::model(|| {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let tx2 = tx.clone();
        let sender = thread::spawn(move || match tx2.try_reserve() {
            Ok(permit) => {
                permit.send(7);
                true
            }
            Err(_) => false,
        });
        rx.close();
        let got = block_on(rx.recv());
        let sent = sender.join().unwrap();
        assert_eq!(got, sent.then_some(7));
        // `tx` is still alive: only the close (and no permit out) can end the channel.
        assert_eq!(block_on(rx.recv()), None);
        drop(tx);
    });
}

#[test]
fn close_races_an_unbounded_send() {
    loom::model(|| {
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        let tx2 = tx.clone();
        let sender = thread::spawn(move || tx2.send(7).is_ok());
        rx.close();
        let got = block_on(rx.recv());
        let sent = sender.join().unwrap();
        assert_eq!(got, sent.then_some(7));
        // `tx` is still alive: only the close (and no send in flight) can end the channel.
        assert_eq!(block_on(rx.recv()), None);
        drop(tx);
    });
}
