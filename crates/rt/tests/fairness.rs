//! A task that wakes itself forever (`wake_by_ref` + `Pending`, or `yield_now` in a loop) does not
//! starve the others: they still complete while it spins, on both flavours, and on a
//! multi-thread runtime whose every worker has spinners.
//!
//! Each test stops its spinners with a flag only after the other tasks completed; a starving
//! scheduler therefore never finishes, and `deadline` turns that into a failure.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll};

use rt::task::JoinHandle;
use support::{deadline, until_count, Gate};

/// Wakes itself and returns `Pending` on every poll until `stop` is set.
struct SelfWake {
    stop: Arc<AtomicBool>,
    spins: Arc<AtomicUsize>,
}

impl Future for SelfWake {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.stop.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        self.spins.fetch_add(1, Ordering::SeqCst);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[derive(Clone, Copy, Debug)]
enum Spin {
    WakeByRef,
    YieldNow,
}

fn spawn_spinner(
    rt: &rt::Runtime,
    kind: Spin,
    stop: &Arc<AtomicBool>,
    spins: &Arc<AtomicUsize>,
) -> JoinHandle<()> {
    let (stop, spins) = (stop.clone(), spins.clone());
    match kind {
        Spin::WakeByRef => rt.spawn(SelfWake { stop, spins }),
        Spin::YieldNow => rt.spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                spins.fetch_add(1, Ordering::SeqCst);
                rt::task::yield_now().await;
            }
        }),
    }
}

/// A task that needs many turns: it yields `n` times before it returns.
async fn needs_turns(n: usize) -> usize {
    for _ in 0..n {
        rt::task::yield_now().await;
    }
    n
}

/// One spinner of `kind` and one other task on `rt`; the other must finish while it spins.
fn one_spinner(rt: rt::Runtime, kind: Spin) {
    let stop = Arc::new(AtomicBool::new(false));
    let spins = Arc::new(AtomicUsize::new(0));
    let spinner = spawn_spinner(&rt, kind, &stop, &spins);
    rt.block_on(async {
        // The spinner is really spinning before the other task exists.
        until_count(&spins, 10).await;
        let other = rt::spawn(needs_turns(100));
        assert_eq!(other.await.unwrap(), 100, "{kind:?}");
        assert!(
            !spinner.is_finished(),
            "{kind:?}: the spinner was still spinning"
        );
        stop.store(true, Ordering::SeqCst);
        spinner.await.unwrap();
    });
}

#[test]
fn a_spinner_does_not_starve_others_current_thread() {
    for kind in [Spin::WakeByRef, Spin::YieldNow] {
        deadline(move || one_spinner(support::current_thread(), kind));
    }
}

#[test]
fn a_spinner_does_not_starve_others_on_one_worker() {
    for kind in [Spin::WakeByRef, Spin::YieldNow] {
        deadline(move || one_spinner(support::multi_thread(1), kind));
    }
}

#[test]
fn four_spinners_on_two_workers_do_not_starve_others() {
    deadline(|| {
        let rt = support::multi_thread(2);
        let stop = Arc::new(AtomicBool::new(false));
        let spins: Vec<Arc<AtomicUsize>> = (0..4).map(|_| Arc::default()).collect();
        let kinds = [
            Spin::WakeByRef,
            Spin::YieldNow,
            Spin::WakeByRef,
            Spin::YieldNow,
        ];
        let spinners: Vec<_> = kinds
            .iter()
            .zip(&spins)
            .map(|(&kind, s)| spawn_spinner(&rt, kind, &stop, s))
            .collect();
        rt.block_on(async {
            for s in &spins {
                until_count(s, 10).await;
            }
        });

        // Others of every origin, all while the spinners spin:
        // - spawned from outside the runtime (the injector);
        let mut others: Vec<JoinHandle<usize>> =
            (0..4).map(|_| rt.spawn(needs_turns(50))).collect();
        // - spawned by a task running on a worker (that worker's own queue);
        let (tx, rx) = mpsc::channel();
        let spawner = rt.spawn(async move {
            for _ in 0..4 {
                tx.send(rt::spawn(needs_turns(50))).unwrap();
                rt::task::yield_now().await;
            }
        });
        // - parked, then woken from a plain thread.
        let gate = Arc::new(Gate::default());
        let woken: Vec<JoinHandle<usize>> = (0..4)
            .map(|_| {
                let gate = gate.clone();
                rt.spawn(async move {
                    gate.wait().await;
                    needs_turns(10).await
                })
            })
            .collect();
        let g = gate.clone();
        let opener = std::thread::spawn(move || g.open());

        rt.block_on(spawner).unwrap();
        others.extend(rx.iter());
        opener.join().unwrap();
        others.extend(woken);
        rt.block_on(async {
            for h in others {
                assert!(h.await.unwrap() > 0);
            }
        });
        assert!(
            spinners.iter().all(|s| !s.is_finished()),
            "the spinners were still spinning"
        );
        stop.store(true, Ordering::SeqCst);
        for s in spinners {
            rt.block_on(s).unwrap();
        }
    });
}

#[test]
fn the_block_on_future_progresses_next_to_a_spinner_current_thread() {
    deadline(|| {
        let rt = support::current_thread();
        let stop = Arc::new(AtomicBool::new(false));
        let spins = Arc::new(AtomicUsize::new(0));
        let spinner = spawn_spinner(&rt, Spin::WakeByRef, &stop, &spins);
        rt.block_on(async {
            // The block_on future itself yields 100 times with the spinner queued every time.
            assert_eq!(needs_turns(100).await, 100);
            assert!(
                spins.load(Ordering::SeqCst) > 0,
                "the spinner ran meanwhile"
            );
            stop.store(true, Ordering::SeqCst);
            spinner.await.unwrap();
        });
    });
}

/// One of a pair that wake each other forever: each poll stores its own waker, wakes the
/// other's, and returns `Pending`. On a worker, each wake lands in the LIFO slot.
struct PingPong {
    me: usize,
    slots: Arc<[std::sync::Mutex<Option<std::task::Waker>>; 2]>,
    stop: Arc<AtomicBool>,
    bounces: Arc<AtomicUsize>,
}

impl Future for PingPong {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.stop.load(Ordering::SeqCst) {
            // Let the partner see the flag too.
            if let Some(w) = self.slots[1 - self.me].lock().unwrap().take() {
                w.wake();
            }
            return Poll::Ready(());
        }
        *self.slots[self.me].lock().unwrap() = Some(cx.waker().clone());
        let other = self.slots[1 - self.me].lock().unwrap().take();
        if let Some(w) = other {
            self.bounces.fetch_add(1, Ordering::SeqCst);
            w.wake();
        }
        Poll::Pending
    }
}

#[test]
fn a_ping_pong_pair_does_not_starve_others() {
    for flavor in ["current_thread", "one_worker", "two_workers"] {
        deadline(move || {
            let rt = match flavor {
                "current_thread" => support::current_thread(),
                "one_worker" => support::multi_thread(1),
                _ => support::multi_thread(2),
            };
            let slots: Arc<[std::sync::Mutex<Option<std::task::Waker>>; 2]> = Arc::default();
            let stop = Arc::new(AtomicBool::new(false));
            let bounces = Arc::new(AtomicUsize::new(0));
            let pair: Vec<_> = (0..2)
                .map(|me| {
                    rt.spawn(PingPong {
                        me,
                        slots: slots.clone(),
                        stop: stop.clone(),
                        bounces: bounces.clone(),
                    })
                })
                .collect();
            rt.block_on(async {
                until_count(&bounces, 100).await;
                let others: Vec<_> = (0..4).map(|_| rt::spawn(needs_turns(20))).collect();
                for h in others {
                    assert_eq!(h.await.unwrap(), 20, "{flavor}");
                }
            });
            assert!(
                pair.iter().all(|h| !h.is_finished()),
                "{flavor}: the pair kept bouncing"
            );
            stop.store(true, Ordering::SeqCst);
            for h in pair {
                rt.block_on(h).unwrap();
            }
        });
    }
}
