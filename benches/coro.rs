//! Coroutines: one resume→yield round trip (resume with a value, the body's `yield_` returns
//! it, the body yields a value back, the resume returns it), three ways, side by side:
//!
//! - `rt_coro`: `rt::coro::Coroutine::resume` on a body looping over `co.yield_`.
//! - `naive_generator`: a genawaiter-style generator written the naive way here: the body is a
//!   `Pin<Box<dyn Future>>`, the yield future and the resumer share an `Rc<RefCell<..>>` slot,
//!   and a resume polls the body once with a no-op waker.
//! - `channel_ping_pong`: two tasks on a current-thread rt runtime, one round trip = a send on
//!   an `rt::sync::channel::bounded(1)` each way (the cheapest way two tasks hand a value to and
//!   fro; same thread, as a coroutine's resumer and body are).
//!
//! Target (issue 10): the `rt_coro` round trip ≤ 25 ns.
//!
//! Also printed: `rt_coro` and `naive_generator` in 30 alternating rounds of 1,000,000 round
//! trips each, with the median of the per-round ratios (steadier than criterion's two separate
//! measurements on a machine whose speed drifts; see `rt_benches::paired`).
//!
//! Run: `cargo bench -p rt-benches --bench coro`

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rt::coro::{Co, Coroutine, Resumed};

fn rt_coro() -> Coroutine<u64, u64, ()> {
    Coroutine::new(|co: Co<u64, u64>, first: u64| async move {
        let mut x = first;
        loop {
            x = co.yield_(x + 1).await;
        }
    })
}

/// The naive generator: shared slot + boxed body + no-op waker.
mod naive {
    use super::*;

    #[derive(Default)]
    pub struct Slot {
        resumed: Option<u64>,
        yielded: Option<u64>,
    }

    pub struct Yield {
        slot: Rc<RefCell<Slot>>,
        value: Option<u64>,
    }

    impl Future for Yield {
        type Output = u64;
        fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<u64> {
            match self.value.take() {
                Some(v) => {
                    self.slot.borrow_mut().yielded = Some(v);
                    Poll::Pending
                }
                None => match self.slot.borrow_mut().resumed.take() {
                    Some(r) => Poll::Ready(r),
                    None => Poll::Pending,
                },
            }
        }
    }

    pub struct Generator {
        slot: Rc<RefCell<Slot>>,
        body: Pin<Box<dyn Future<Output = ()>>>,
    }

    impl Generator {
        pub fn new() -> Generator {
            let slot = Rc::new(RefCell::new(Slot::default()));
            let inner = slot.clone();
            let body = Box::pin(async move {
                let mut x = 0;
                loop {
                    x = Yield {
                        slot: inner.clone(),
                        value: Some(x + 1),
                    }
                    .await;
                }
            });
            Generator { slot, body }
        }

        pub fn resume(&mut self, arg: u64) -> Option<u64> {
            self.slot.borrow_mut().resumed = Some(arg);
            let mut cx = Context::from_waker(Waker::noop());
            match self.body.as_mut().poll(&mut cx) {
                Poll::Ready(()) => None,
                Poll::Pending => self.slot.borrow_mut().yielded.take(),
            }
        }
    }
}

fn round_trip(c: &mut Criterion) {
    let mut g = c.benchmark_group("coro_round_trip");
    g.measurement_time(Duration::from_secs(3));

    g.bench_function("rt_coro", |b| {
        let mut co = rt_coro();
        let mut i = 0u64;
        b.iter(|| {
            i += 1;
            match co.resume(black_box(i)) {
                Ok(Resumed::Yield(y)) => black_box(y),
                _ => unreachable!("the body loops forever"),
            }
        });
    });

    g.bench_function("naive_generator", |b| {
        let mut gen = naive::Generator::new();
        gen.resume(0); // start: the first resume runs the body to its first yield
        let mut i = 0u64;
        b.iter(|| {
            i += 1;
            black_box(gen.resume(black_box(i)))
        });
    });

    g.bench_function("channel_ping_pong", |b| {
        let rt = rt::Builder::new_current_thread().build().unwrap();
        b.iter_custom(|iters| {
            rt.block_on(async move {
                let (to_echo, echo_rx) = rt::sync::channel::bounded::<u64>(1);
                let (to_main, main_rx) = rt::sync::channel::bounded::<u64>(1);
                let echo = rt::spawn(async move {
                    while let Some(v) = echo_rx.recv().await {
                        if to_main.send(v + 1).await.is_err() {
                            break;
                        }
                    }
                });
                let start = Instant::now();
                for i in 0..iters {
                    to_echo.send(i).await.unwrap();
                    black_box(main_rx.recv().await.unwrap());
                }
                let elapsed = start.elapsed();
                drop(to_echo);
                echo.await.unwrap();
                elapsed
            })
        });
    });
    g.finish();
}

/// `rt_coro` vs `naive_generator`, alternating, with the median per-round ratio.
fn paired(_c: &mut Criterion) {
    const ROUNDS: usize = 30;
    const TRIPS: u64 = 1_000_000;
    let mut co = rt_coro();
    let mut gen = naive::Generator::new();
    gen.resume(0);
    let mut run_rt = || {
        let start = Instant::now();
        for i in 0..TRIPS {
            black_box(co.resume(black_box(i)).is_ok());
        }
        start.elapsed()
    };
    let mut run_naive = || {
        let start = Instant::now();
        for i in 0..TRIPS {
            black_box(gen.resume(black_box(i)));
        }
        start.elapsed()
    };
    let (mut rts, mut naives, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (r, n) = if round % 2 == 0 {
            let r = run_rt();
            (r, run_naive())
        } else {
            let n = run_naive();
            (run_rt(), n)
        };
        rts.push(r);
        naives.push(n);
        ratios.push(r.as_secs_f64() / n.as_secs_f64());
    }
    rts.sort();
    naives.sort();
    ratios.sort_by(f64::total_cmp);
    let per_trip = |d: Duration| d.as_secs_f64() * 1e9 / TRIPS as f64;
    println!(
        "coro_round_trip paired ({ROUNDS} alternating rounds of {TRIPS}): rt_coro median \
         {:.1} ns, naive_generator median {:.1} ns, median of per-round rt/naive = {:.2} \
         (range {:.2}-{:.2})",
        per_trip(rts[ROUNDS / 2]),
        per_trip(naives[ROUNDS / 2]),
        ratios[ROUNDS / 2],
        ratios[0],
        ratios[ROUNDS - 1],
    );
}

criterion_group!(benches, round_trip, paired);
criterion_main!(benches);
