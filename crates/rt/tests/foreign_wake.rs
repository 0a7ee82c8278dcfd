//! Wakes from plain std threads, outside any runtime: a task whose waker is sent to another thread
//! and woken there is polled again, exactly once per wake, many times over and concurrently;
//! wakers that outlive their task, or the whole runtime, are harmless.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::task::{Context, Poll, Waker};

use support::{deadline, runtimes, DropCount};

const TASKS: usize = 8;
const ROUNDS: usize = 500;

/// Sends its waker to a foreign thread on every poll until `rounds` wakes came back.
struct ForeignWake {
    rounds: usize,
    polls: Arc<AtomicUsize>,
    to_thread: mpsc::Sender<Waker>,
}

impl Future for ForeignWake {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let n = self.polls.fetch_add(1, Ordering::SeqCst);
        if n == self.rounds {
            return Poll::Ready(());
        }
        // The foreign thread may wake us before this poll has even returned.
        self.to_thread.send(cx.waker().clone()).unwrap();
        Poll::Pending
    }
}

/// Std threads that wake whatever waker they receive, alternating `wake`, `wake_by_ref` and a
/// clone's `wake` after the original is dropped.
fn waker_threads(n: usize) -> (mpsc::Sender<Waker>, Vec<std::thread::JoinHandle<()>>) {
    let (tx, rx) = mpsc::channel::<Waker>();
    let rx = Arc::new(Mutex::new(rx));
    let threads = (0..n)
        .map(|t| {
            let rx = rx.clone();
            std::thread::spawn(move || {
                let mut i = t;
                loop {
                    let w = match rx.lock().unwrap().recv() {
                        Ok(w) => w,
                        Err(_) => return,
                    };
                    match i % 3 {
                        0 => w.wake(),
                        1 => w.wake_by_ref(),
                        _ => {
                            // A clone outlives the original: it holds its own reference.
                            let clone = w.clone();
                            drop(w);
                            clone.wake();
                        }
                    }
                    i += 1;
                }
            })
        })
        .collect();
    (tx, threads)
}

#[test]
fn wakes_from_foreign_threads_repoll_once_each() {
    deadline(|| {
        for (flavor, rt) in runtimes() {
            let (tx, threads) = waker_threads(4);
            let counters: Vec<Arc<AtomicUsize>> =
                (0..TASKS).map(|_| Arc::new(AtomicUsize::new(0))).collect();
            let handles: Vec<_> = counters
                .iter()
                .map(|polls| {
                    rt.spawn(ForeignWake {
                        rounds: ROUNDS,
                        polls: polls.clone(),
                        to_thread: tx.clone(),
                    })
                })
                .collect();
            drop(tx);
            rt.block_on(async {
                for h in handles {
                    h.await.unwrap();
                }
            });
            for polls in &counters {
                // One poll per wake plus the first: no wake lost, none doubled.
                assert_eq!(polls.load(Ordering::SeqCst), ROUNDS + 1, "{flavor}");
            }
            drop(rt); // drops the last senders held by completed futures
            for t in threads {
                t.join().unwrap();
            }
        }
    });
}

/// Completes once `done` is set and it has been polled after that; detects overlapping polls.
struct Hammered {
    done: Arc<AtomicBool>,
    slot: Arc<Mutex<Option<Waker>>>,
    in_poll: Arc<AtomicBool>,
    polls: Arc<AtomicUsize>,
}

impl Future for Hammered {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        assert!(
            !self.in_poll.swap(true, Ordering::SeqCst),
            "polled while already polling"
        );
        self.polls.fetch_add(1, Ordering::SeqCst);
        *self.slot.lock().unwrap() = Some(cx.waker().clone());
        let ready = self.done.load(Ordering::SeqCst);
        self.in_poll.store(false, Ordering::SeqCst);
        if ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

#[test]
fn many_threads_waking_one_task_at_once() {
    deadline(|| {
        for (flavor, rt) in runtimes() {
            let done = Arc::new(AtomicBool::new(false));
            let slot: Arc<Mutex<Option<Waker>>> = Arc::default();
            let polls = Arc::new(AtomicUsize::new(0));
            let h = rt.spawn(Hammered {
                done: done.clone(),
                slot: slot.clone(),
                in_poll: Arc::default(),
                polls: polls.clone(),
            });
            // Wait for the first poll to store a waker.
            rt.block_on(support::until_count(&polls, 1));
            let barrier = Arc::new(Barrier::new(4));
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    let (slot, barrier) = (slot.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        for i in 0..5_000 {
                            let w = slot.lock().unwrap().clone().expect("a waker is stored");
                            if i % 2 == 0 {
                                w.wake_by_ref();
                            } else {
                                w.wake();
                            }
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            done.store(true, Ordering::SeqCst);
            slot.lock().unwrap().take().unwrap().wake();
            rt.block_on(h).unwrap();
            let n = polls.load(Ordering::SeqCst);
            // Wakes that land while the task is queued or running coalesce.
            assert!((2..=20_002).contains(&n), "{flavor}: {n} polls");
        }
    });
}

#[test]
fn wakers_that_outlive_their_task_or_runtime_do_nothing() {
    for (flavor, rt) in runtimes() {
        // A task that completed: its waker wakes nothing.
        let slot: Arc<Mutex<Option<Waker>>> = Arc::default();
        let s = slot.clone();
        let h = rt.spawn(std::future::poll_fn(move |cx| {
            *s.lock().unwrap() = Some(cx.waker().clone());
            Poll::Ready(1)
        }));
        assert_eq!(rt.block_on(h).unwrap(), 1, "{flavor}");
        let w = slot.lock().unwrap().take().unwrap();
        std::thread::spawn(move || {
            w.wake_by_ref();
            w.wake();
        })
        .join()
        .unwrap();

        // A task parked when the runtime shuts down: its future is dropped, and its waker,
        // woken afterwards from another thread, schedules nothing on the dead runtime.
        let drops = Arc::new(AtomicUsize::new(0));
        let polls = Arc::new(AtomicUsize::new(0));
        let (s, guard, p) = (slot.clone(), DropCount(drops.clone()), polls.clone());
        drop(rt.spawn(async move {
            let _guard = guard;
            std::future::poll_fn(move |cx| {
                p.fetch_add(1, Ordering::SeqCst);
                *s.lock().unwrap() = Some(cx.waker().clone());
                Poll::<()>::Pending
            })
            .await
        }));
        rt.block_on(support::until_count(&polls, 1));
        drop(rt);
        assert_eq!(drops.load(Ordering::SeqCst), 1, "{flavor}");
        let w = slot.lock().unwrap().take().unwrap();
        std::thread::spawn(move || {
            let clone = w.clone();
            w.wake_by_ref();
            clone.wake();
            w.wake();
        })
        .join()
        .unwrap();
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "{flavor}: polled after shutdown"
        );
    }
}

#[test]
fn ping_pong_with_a_foreign_thread_through_idle_workers() {
    // One task and one plain thread take turns: between turns every worker has nothing to do
    // and parks, so each wake must unpark one.
    deadline(|| {
        for (flavor, rt) in runtimes() {
            let (tx, threads) = waker_threads(1);
            let polls = Arc::new(AtomicUsize::new(0));
            let h = rt.spawn(ForeignWake {
                rounds: 2_000,
                polls: polls.clone(),
                to_thread: tx,
            });
            rt.block_on(h).unwrap();
            assert_eq!(polls.load(Ordering::SeqCst), 2_001, "{flavor}");
            for t in threads {
                t.join().unwrap();
            }
        }
    });
}

#[test]
fn a_spawn_from_a_foreign_thread_wakes_a_parked_runtime() {
    deadline(|| {
        for (_, rt) in runtimes() {
            for _ in 0..100 {
                let gate = Arc::new(support::Gate::default());
                let (handle, g) = (rt.handle().clone(), gate.clone());
                // block_on parks on the gate; only the task spawned from the plain thread
                // opens it, so the spawn itself must get that task run.
                let spawner = std::thread::spawn(move || {
                    drop(handle.spawn(async move { g.open() }));
                });
                rt.block_on(gate.wait());
                spawner.join().unwrap();
            }
        }
    });
}
