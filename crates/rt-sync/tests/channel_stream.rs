//! `Receiver` is a `Stream` of the values, ending when the channel is closed and drained.

mod channel_util;

use std::pin::{pin, Pin};
use std::task::Poll;
use std::thread;

use channel_util::{block_on, poll_with, CountWaker};
use futures_core::Stream;
use rt_sync::channel;

fn next<S: Stream + Unpin>(s: &mut S) -> impl std::future::Future<Output = Option<S::Item>> + '_ {
    std::future::poll_fn(move |cx| Pin::new(&mut *s).poll_next(cx))
}

#[test]
fn stream_yields_every_value_then_ends() {
    let (tx, mut rx) = channel::bounded::<u32>(2);
    let producer = thread::spawn(move || {
        block_on(async {
            for i in 0..100 {
                tx.send(i).await.unwrap();
            }
        })
    });
    let got = block_on(async {
        let mut got = Vec::new();
        while let Some(v) = next(&mut rx).await {
            got.push(v);
        }
        got
    });
    producer.join().unwrap();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn a_waiting_stream_is_woken_and_a_dropped_waiting_stream_passes_the_wake_on() {
    let (tx, mut rx) = channel::unbounded::<u32>();
    let mut other = rx.clone();
    let (a, b) = (CountWaker::new(), CountWaker::new());
    assert!(poll_with(pin!(next(&mut rx)), &a).is_pending());
    assert!(poll_with(pin!(next(&mut other)), &b).is_pending());
    tx.try_send(1).unwrap();
    assert_eq!((a.count(), b.count()), (1, 0));
    // The woken stream goes away without taking: the other one is woken instead.
    drop(rx);
    assert_eq!(b.count(), 1);
    assert_eq!(poll_with(pin!(next(&mut other)), &b), Poll::Ready(Some(1)));
    drop(tx);
    assert_eq!(poll_with(pin!(next(&mut other)), &b), Poll::Ready(None));
}
