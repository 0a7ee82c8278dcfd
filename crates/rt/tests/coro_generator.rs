//! A generator (`Coroutine<Y, (), ()>`) is an `Iterator` of its yields, and `into_stream`
//! gives a `futures_core::Stream` of them whose body may await timers between yields.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use rt::coro::{Co, Coroutine, LocalCoroutine};

fn fibonacci(limit: u64) -> Coroutine<u64> {
    Coroutine::new(move |co: Co<u64>, ()| async move {
        let (mut a, mut b) = (0u64, 1u64);
        while a <= limit {
            co.yield_(a).await;
            (a, b) = (b, a + b);
        }
    })
}

#[test]
fn a_generator_is_an_iterator() {
    let v: Vec<u64> = fibonacci(100).collect();
    assert_eq!(v, [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]);

    let mut g = fibonacci(1);
    assert_eq!(g.by_ref().take(2).collect::<Vec<_>>(), [0, 1]);
    assert!(g.is_alive());
    assert_eq!(g.next(), Some(1));
    assert_eq!(g.next(), None);
    assert_eq!(g.next(), None, "fused after the end");
}

#[test]
fn a_local_generator_is_an_iterator_too() {
    let shared = std::rc::Rc::new(vec!['a', 'b']);
    let s = shared.clone();
    let g: LocalCoroutine<char> = LocalCoroutine::new(move |co: Co<char>, ()| async move {
        for c in s.iter() {
            co.yield_(*c).await;
        }
    });
    assert_eq!(g.collect::<String>(), "ab");
}

#[test]
fn a_panic_in_a_generator_unwinds_out_of_next() {
    let mut g: Coroutine<u32> = Coroutine::new(|co: Co<u32>, ()| async move {
        co.yield_(1).await;
        panic!("generator broke");
    });
    assert_eq!(g.next(), Some(1));
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g.next())).unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"generator broke"));
    assert_eq!(g.next(), None);
}

/// `StreamExt::next` without a dependency on futures-util.
struct Next<'a, S>(&'a mut S);

impl<S: Stream + Unpin> Future for Next<'_, S> {
    type Output = Option<S::Item>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut *self.0).poll_next(cx)
    }
}

#[test]
fn into_stream_drives_a_body_that_awaits_timers() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let got = rt.block_on(async {
        let g: Coroutine<u32> = Coroutine::new(|co: Co<u32>, ()| async move {
            for i in 0..3 {
                rt::time::sleep(Duration::from_millis(1)).await;
                co.yield_(i).await;
            }
        });
        let mut s = g.into_stream();
        let mut got = Vec::new();
        while let Some(v) = Next(&mut s).await {
            got.push(v);
        }
        assert_eq!(Next(&mut s).await, None);
        got
    });
    assert_eq!(got, [0, 1, 2]);
}
