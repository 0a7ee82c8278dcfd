//! What rt-sched promises on its own, with a stub `IoDriver` in place of rt-io's: spawn and
//! join on both schedulers, idle threads blocking in the driver and woken through its
//! `unpark`, shutdown dropping every pending task exactly once, and `block_in_place` lending a
//! worker's queue so that the tasks on it keep running.

use std::future::{pending, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rt_core::task::next_id;
use rt_sched::current_thread::{park_block_on, CurrentThread};
use rt_sched::multi_thread::{self, MultiThread};
use rt_sched::IoDriver;

/// Long enough that only a lost wake-up reaches it: a hang guard, not a measurement.
const HANG_GUARD: Duration = Duration::from_secs(60);

#[derive(Default)]
struct ShardState {
    /// A thread is inside `try_drive` of this shard.
    driving: bool,
    /// A thread is blocked in a turn of this shard, waiting for an unpark or its timeout.
    blocked: bool,
    /// An `unpark` is pending for this shard.
    woken: bool,
}

/// An IO driver with no IO: a thread "drives" a shard by waiting on a condvar until the shard
/// is unparked or the timeout passes. Counts blocking turns and unparks.
struct StubDriver {
    shards: Mutex<Vec<ShardState>>,
    changed: Condvar,
    /// Turns that blocked (the thread waited for an unpark or its timeout).
    blocking_turns: AtomicUsize,
    /// Calls of `unpark`.
    unparks: AtomicUsize,
}

impl StubDriver {
    fn new(shards: usize) -> Arc<StubDriver> {
        Arc::new(StubDriver {
            shards: Mutex::new((0..shards).map(|_| ShardState::default()).collect()),
            changed: Condvar::new(),
            blocking_turns: AtomicUsize::new(0),
            unparks: AtomicUsize::new(0),
        })
    }

    /// Waits until some thread is blocked inside a turn of `shard` (an idle scheduler thread
    /// sleeps in the driver, not on its own parker).
    fn wait_until_blocked_in(&self, shard: usize) {
        let deadline = Instant::now() + HANG_GUARD;
        let mut s = self.shards.lock().unwrap();
        while !s[shard].blocked {
            let left = deadline
                .checked_duration_since(Instant::now())
                .expect("no thread ever blocked in the driver");
            s = self.changed.wait_timeout(s, left).unwrap().0;
        }
    }
}

impl IoDriver for StubDriver {
    fn shards(&self) -> usize {
        self.shards.lock().unwrap().len()
    }

    fn try_drive(
        &self,
        shard: usize,
        timeout: Option<Duration>,
        unless: &dyn Fn() -> bool,
    ) -> bool {
        let mut s = self.shards.lock().unwrap();
        if s[shard].driving {
            return false;
        }
        s[shard].driving = true;
        self.changed.notify_all();
        drop(s);
        // Checked once the shard is held, as the trait asks; an unpark after this ends the turn.
        let skip = unless();
        let mut s = self.shards.lock().unwrap();
        if !skip && !s[shard].woken && timeout != Some(Duration::ZERO) {
            self.blocking_turns.fetch_add(1, Ordering::SeqCst);
            s[shard].blocked = true;
            self.changed.notify_all();
            let deadline = timeout.map(|t| Instant::now() + t);
            while !s[shard].woken {
                match deadline {
                    None => s = self.changed.wait(s).unwrap(),
                    Some(d) => {
                        let Some(left) = d.checked_duration_since(Instant::now()) else {
                            break;
                        };
                        s = self.changed.wait_timeout(s, left).unwrap().0;
                    }
                }
            }
        }
        s[shard].blocked = false;
        s[shard].woken = false;
        s[shard].driving = false;
        self.changed.notify_all();
        true
    }

    fn unpark(&self, shard: usize) {
        self.unparks.fetch_add(1, Ordering::SeqCst);
        self.shards.lock().unwrap()[shard].woken = true;
        self.changed.notify_all();
    }
}

/// Counts its drops.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn multi_thread(workers: usize, driver: &Arc<StubDriver>) -> MultiThread {
    let mut config = multi_thread::Config::new(workers);
    config.io_driver = Some(driver.clone() as Arc<dyn IoDriver>);
    let mut mt = MultiThread::new(config);
    mt.start().expect("start the workers");
    mt
}

#[test]
fn multi_thread_spawns_and_joins_from_outside_and_from_tasks() {
    let driver = StubDriver::new(2);
    let mut mt = multi_thread(2, &driver);
    let handle = mt.handle().clone();
    let joins: Vec<_> = (0..100u64)
        .map(|i| {
            let inner = handle.clone();
            handle.spawn(
                async move {
                    // A task spawned from a task, joined there.
                    inner.spawn(async move { i * 2 }, next_id()).await.unwrap() + 1
                },
                next_id(),
            )
        })
        .collect();
    let sum: u64 = park_block_on(async {
        let mut sum = 0;
        for j in joins {
            sum += j.await.unwrap();
        }
        sum
    });
    assert_eq!(sum, (0..100u64).map(|i| i * 2 + 1).sum());
    mt.shutdown(None);
}

#[test]
fn current_thread_spawns_and_joins() {
    let driver = StubDriver::new(1);
    let ct = CurrentThread::new(true, Some(driver.clone() as Arc<dyn IoDriver>));
    let handle = ct.handle().clone();
    let out = ct.block_on(async move {
        let joins: Vec<_> = (0..50u32)
            .map(|i| handle.spawn(async move { i + 1 }, next_id()))
            .collect();
        let mut sum = 0;
        for j in joins {
            sum += j.await.unwrap();
        }
        sum
    });
    assert_eq!(out, (1..=50).sum::<u32>());
}

#[test]
fn an_idle_worker_blocks_in_the_driver_and_a_remote_spawn_unparks_it() {
    let driver = StubDriver::new(1);
    let mut mt = multi_thread(1, &driver);
    driver.wait_until_blocked_in(0);
    let unparks_before = driver.unparks.load(Ordering::SeqCst);
    let out = park_block_on(mt.handle().spawn(async { 7 }, next_id())).unwrap();
    assert_eq!(out, 7);
    assert!(driver.blocking_turns.load(Ordering::SeqCst) >= 1);
    assert!(
        driver.unparks.load(Ordering::SeqCst) > unparks_before,
        "the spawn woke the worker through the driver"
    );
    mt.shutdown(None);
}

/// A future that is pending until another thread, which first waits for the `block_on`
/// thread to be blocked in the driver, wakes it.
struct WokenFromAfar {
    driver: Arc<StubDriver>,
    started: bool,
    done: Arc<Mutex<bool>>,
}

impl Future for WokenFromAfar {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if *self.done.lock().unwrap() {
            return Poll::Ready(());
        }
        if !self.started {
            self.started = true;
            let (driver, done, waker): (_, _, Waker) =
                (self.driver.clone(), self.done.clone(), cx.waker().clone());
            std::thread::spawn(move || {
                driver.wait_until_blocked_in(0);
                *done.lock().unwrap() = true;
                waker.wake();
            });
        }
        Poll::Pending
    }
}

#[test]
fn current_thread_block_on_sleeps_in_the_driver_and_a_wake_unparks_it() {
    let driver = StubDriver::new(1);
    let ct = CurrentThread::new(true, Some(driver.clone() as Arc<dyn IoDriver>));
    ct.block_on(WokenFromAfar {
        driver: driver.clone(),
        started: false,
        done: Arc::new(Mutex::new(false)),
    });
    assert!(driver.blocking_turns.load(Ordering::SeqCst) >= 1);
    assert!(driver.unparks.load(Ordering::SeqCst) >= 1);
}

#[test]
fn multi_thread_shutdown_drops_every_pending_task_once() {
    let driver = StubDriver::new(2);
    let mut mt = multi_thread(2, &driver);
    let dropped = Arc::new(AtomicUsize::new(0));
    let (started_tx, started_rx) = mpsc::channel();
    let joins: Vec<_> = (0..64)
        .map(|_| {
            let guard = DropCount(dropped.clone());
            let started = started_tx.clone();
            mt.handle().spawn(
                async move {
                    let _guard = guard;
                    started.send(()).unwrap();
                    pending::<()>().await
                },
                next_id(),
            )
        })
        .collect();
    for _ in 0..64 {
        started_rx.recv_timeout(HANG_GUARD).expect("every task ran");
    }
    mt.shutdown(None);
    assert_eq!(dropped.load(Ordering::SeqCst), 64);
    for j in joins {
        assert!(park_block_on(j).unwrap_err().is_cancelled());
    }
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        64,
        "no future dropped twice"
    );
}

#[test]
fn current_thread_shutdown_drops_every_pending_task_once() {
    let driver = StubDriver::new(1);
    let ct = CurrentThread::new(true, Some(driver as Arc<dyn IoDriver>));
    let dropped = Arc::new(AtomicUsize::new(0));
    let handle = ct.handle().clone();
    // Half of them have run (and wait forever), half are still queued, never polled.
    let ran: Vec<_> = (0..8)
        .map(|_| {
            let guard = DropCount(dropped.clone());
            handle.spawn(
                async move {
                    let _guard = guard;
                    pending::<()>().await
                },
                next_id(),
            )
        })
        .collect();
    ct.block_on(async {
        // One yield: the queued tasks run once before this future completes.
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await
    });
    let queued: Vec<_> = (0..8)
        .map(|_| {
            let guard = DropCount(dropped.clone());
            handle.spawn(
                async move {
                    let _guard = guard;
                },
                next_id(),
            )
        })
        .collect();
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
    ct.shutdown();
    assert_eq!(dropped.load(Ordering::SeqCst), 16);
    ct.shutdown();
    for j in ran.into_iter().chain(queued) {
        assert!(park_block_on(j).unwrap_err().is_cancelled());
    }
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        16,
        "no future dropped twice"
    );
}

#[test]
fn block_in_place_lends_the_workers_queue_so_its_tasks_keep_running() {
    let driver = StubDriver::new(1);
    let mut mt = multi_thread(1, &driver);
    let handle = mt.handle().clone();
    let out = park_block_on(handle.clone().spawn(
        async move {
            let (tx, rx) = mpsc::channel();
            // Queued on this (the only) worker; it can run only if the worker's queue is lent.
            let _sibling = handle.spawn(
                async move {
                    tx.send(5).unwrap();
                },
                next_id(),
            );
            multi_thread::block_in_place(|| rx.recv_timeout(HANG_GUARD))
                .unwrap_or_else(|_| panic!("on a worker: block_in_place runs the closure"))
                .expect("the sibling ran while the worker blocked")
        },
        next_id(),
    ))
    .unwrap();
    assert_eq!(out, 5);
    // Outside a worker, the closure comes back unrun.
    assert!(multi_thread::block_in_place(|| ()).is_err());
    mt.shutdown(None);
}
