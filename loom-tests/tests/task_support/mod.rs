//! Shared by the task, join-handle, idle, shards and shutdown models: the model builder, the
//! multi-thread scheduler's configuration, a test
//! scheduler whose queue the model drains by hand, probes that count polls and drops, a waker
//! that parks and unparks a loom thread, and the record of outcomes seen across executions.
//!
//! Counters are std atomics behind std `Arc`s: they only observe (loom runs one thread at a
//! time, so they are exact) and add no branches to the model. Everything the protocol under
//! test synchronises through is loom's.
#![allow(dead_code)]

use std::collections::{BTreeSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use loom::sync::{Arc, Condvar, Mutex};
use loom::thread::{self, ThreadId};
use rt_core::task::{next_id, JoinHandle, Notified, OwnedTasks, Schedule, Task};

/// A multi-thread scheduler of `workers` loom threads, without the frame pool or thread hooks.
pub fn mt_config(
    workers: usize,
    io_driver: Option<std::sync::Arc<dyn rt_sched::IoDriver>>,
) -> rt_sched::multi_thread::Config {
    rt_sched::multi_thread::Config {
        frame_pool: false,
        io_driver,
        ..rt_sched::multi_thread::Config::new(workers)
    }
}

/// Runs `f` under loom with the preemption bound from `LOOM_MAX_PREEMPTIONS`, 2 when unset;
/// prints how many executions it explored (see it with `--nocapture`).
pub fn model(f: impl Fn() + Sync + Send + 'static) {
    model_capped(usize::MAX, f);
}

/// [`model`], with the preemption bound capped at `cap` for a model too big to explore deeper
/// within the suite's time budget (each caller says why).
pub fn model_capped(cap: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    let bound = b.preemption_bound.unwrap_or(2).min(cap);
    b.preemption_bound = Some(bound);
    let runs = std::sync::Arc::new(StdAtomicUsize::new(0));
    let counted = runs.clone();
    let start = std::time::Instant::now();
    b.check(move || {
        counted.fetch_add(1, SeqCst);
        f();
    });
    eprintln!(
        "loom: {} executions in {:.1?} (preemption bound {:?})",
        runs.load(SeqCst),
        start.elapsed(),
        b.preemption_bound
    );
}

/// Whether `LOOM_MAX_PREEMPTIONS` asks for less than the default bound of 2, which the
/// outcome lists are written for: some interleavings, and so some outcomes, are then out of
/// reach.
fn below_default_bound() -> bool {
    loom::model::Builder::new()
        .preemption_bound
        .is_some_and(|b| b < 2)
}

/// Outcomes observed across the executions of one model; a `static` per model.
pub struct Seen(std::sync::Mutex<BTreeSet<String>>);

impl Seen {
    pub const fn new() -> Seen {
        Seen(std::sync::Mutex::new(BTreeSet::new()))
    }

    pub fn record(&self, outcome: impl Into<String>) {
        self.0.lock().unwrap().insert(outcome.into());
    }

    /// Panics unless every outcome in `expected` was seen, and nothing else. Below the default
    /// preemption bound only "nothing else" is checked.
    pub fn assert_exactly(&self, expected: &[&str]) {
        let seen = self.0.lock().unwrap();
        let want: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
        if below_default_bound() {
            assert!(
                seen.is_subset(&want),
                "unexpected outcomes: {seen:?}, want {want:?}"
            );
        } else {
            assert_eq!(*seen, want, "outcomes seen across executions");
        }
    }
}

// ===== probes =====

/// Counts the polls and the drop of one future, and catches a concurrent poll.
#[derive(Default)]
pub struct Probe {
    polls: StdAtomicUsize,
    drops: StdAtomicUsize,
    in_poll: StdAtomicBool,
}

impl Probe {
    pub fn new() -> std::sync::Arc<Probe> {
        std::sync::Arc::default()
    }
    pub fn polls(&self) -> usize {
        self.polls.load(SeqCst)
    }
    pub fn drops(&self) -> usize {
        self.drops.load(SeqCst)
    }
}

/// Wraps a future: every poll and the drop are counted in the `Probe`.
pub struct Probed<F> {
    inner: F,
    probe: std::sync::Arc<Probe>,
}

/// `f` with a probe. The closure gets the poll's number (1 for the first poll).
pub fn probed<T>(
    probe: &std::sync::Arc<Probe>,
    mut f: impl FnMut(usize, &mut Context<'_>) -> Poll<T> + Send + 'static,
) -> Probed<impl Future<Output = T> + Send + 'static> {
    let p = probe.clone();
    let inner = std::future::poll_fn(move |cx| f(p.polls(), cx));
    Probed {
        inner,
        probe: probe.clone(),
    }
}

impl<F: Future> Future for Probed<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is structurally pinned; `probe` is never moved out.
        let this = unsafe { self.get_unchecked_mut() };
        assert!(
            !this.probe.in_poll.swap(true, SeqCst),
            "future polled concurrently"
        );
        this.probe.polls.fetch_add(1, SeqCst);
        // SAFETY: as above.
        let res = unsafe { Pin::new_unchecked(&mut this.inner) }.poll(cx);
        this.probe.in_poll.store(false, SeqCst);
        res
    }
}

impl<F> Drop for Probed<F> {
    fn drop(&mut self) {
        assert!(
            !self.probe.in_poll.load(SeqCst),
            "future dropped inside its own poll"
        );
        let prev = self.probe.drops.fetch_add(1, SeqCst);
        assert_eq!(prev, 0, "future dropped twice");
    }
}

/// A task output whose drop is counted (and where it happened recorded).
pub struct Output {
    drops: std::sync::Arc<Dropped>,
}

#[derive(Default)]
pub struct Dropped {
    count: StdAtomicUsize,
    on: std::sync::Mutex<Vec<ThreadId>>,
}

impl Dropped {
    pub fn new() -> std::sync::Arc<Dropped> {
        std::sync::Arc::default()
    }
    pub fn count(&self) -> usize {
        self.count.load(SeqCst)
    }
    /// The thread of the (only) drop.
    pub fn on(&self) -> Option<ThreadId> {
        let on = self.on.lock().unwrap();
        assert!(on.len() <= 1, "dropped {} times", on.len());
        on.first().copied()
    }
    fn hit(&self) {
        self.count.fetch_add(1, SeqCst);
        self.on.lock().unwrap().push(thread::current().id());
    }
}

impl Output {
    pub fn new(drops: &std::sync::Arc<Dropped>) -> Output {
        Output {
            drops: drops.clone(),
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.drops.hit();
    }
}

// ===== the test scheduler =====

struct Inner {
    queue: Mutex<VecDeque<Notified<TestSched>>>,
    owned: OwnedTasks<TestSched>,
    schedules: StdAtomicUsize,
    yields: StdAtomicUsize,
}

/// A scheduler whose run queue the model drains by hand. The copy handed to a task (by
/// [`TestSched::bind`]) counts its own drop, which happens exactly when the cell is freed.
pub struct TestSched {
    inner: Arc<Inner>,
    cell: Option<std::sync::Arc<Dropped>>,
}

impl Clone for TestSched {
    fn clone(&self) -> TestSched {
        TestSched {
            inner: self.inner.clone(),
            cell: None,
        }
    }
}

impl Drop for TestSched {
    fn drop(&mut self) {
        if let Some(cell) = &self.cell {
            cell.hit();
        }
    }
}

impl Schedule for TestSched {
    fn release(&self, task: &Task<TestSched>) -> Option<Task<TestSched>> {
        self.inner.owned.remove(task)
    }

    fn schedule(&self, task: Notified<TestSched>) {
        self.inner.schedules.fetch_add(1, SeqCst);
        self.inner.queue.lock().unwrap().push_back(task);
    }

    fn yield_now(&self, task: Notified<TestSched>) {
        self.inner.yields.fetch_add(1, SeqCst);
        self.inner.queue.lock().unwrap().push_back(task);
    }
}

impl TestSched {
    pub fn new() -> TestSched {
        TestSched {
            inner: Arc::new(Inner {
                queue: Mutex::new(VecDeque::new()),
                owned: OwnedTasks::new(0),
                schedules: StdAtomicUsize::new(0),
                yields: StdAtomicUsize::new(0),
            }),
            cell: None,
        }
    }

    /// Binds `future` to the owned list (global allocator, no frame pool). `cell` counts the
    /// freeing of the task cell.
    pub fn bind<F>(
        &self,
        future: F,
        cell: &std::sync::Arc<Dropped>,
    ) -> (JoinHandle<F::Output>, Option<Notified<TestSched>>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let mut s = self.clone();
        s.cell = Some(cell.clone());
        self.inner.owned.bind(
            future,
            s,
            next_id(),
            rt_core::task::SpawnMeta::caller(),
            false,
        )
    }

    /// Binds `future` and queues its first `Notified` (without counting a schedule).
    pub fn spawn<F>(&self, future: F, cell: &std::sync::Arc<Dropped>) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) = self.bind(future, cell);
        self.push(notified.expect("list closed"));
        join
    }

    pub fn push(&self, task: Notified<TestSched>) {
        self.inner.queue.lock().unwrap().push_back(task);
    }

    pub fn pop(&self) -> Option<Notified<TestSched>> {
        self.inner.queue.lock().unwrap().pop_front()
    }

    /// Runs queued tasks (outside the queue lock) until the queue is empty; returns how many.
    pub fn run_all(&self) -> usize {
        let mut n = 0;
        while let Some(t) = self.pop() {
            t.run();
            n += 1;
        }
        n
    }

    pub fn owned(&self) -> &OwnedTasks<TestSched> {
        &self.inner.owned
    }

    /// Closes the list, cancels every task in it, and drops whatever is still queued.
    pub fn shutdown(&self) {
        self.inner.owned.close_and_shutdown_all();
        while let Some(t) = self.pop() {
            t.shutdown();
        }
    }

    /// Wakes submitted through `Schedule::schedule`.
    pub fn schedules(&self) -> usize {
        self.inner.schedules.load(SeqCst)
    }

    /// Self-wakes during a poll, resubmitted through `Schedule::yield_now`.
    pub fn yields(&self) -> usize {
        self.inner.yields.load(SeqCst)
    }

    /// Handles to the scheduler still alive (this one included): 1 once every task cell is
    /// freed and the queue is empty.
    pub fn handles(&self) -> usize {
        Arc::strong_count(&self.inner)
    }
}

// ===== wakers =====

/// A waker target a loom thread can wait on. Each waker clone is one strong count of the std
/// `Arc` around it, so `live_wakers` says whether the task gave back every clone; where each
/// clone was dropped is recorded.
///
/// A loom `Mutex` + `Condvar`, not a flag with `thread::park`: under loom an `unpark` also
/// wakes a thread blocked in `join` or on a lock (and trips loom's own assertions), and loom
/// 0.7.3 lets an RMW read a store superseded by one that happens-before it, so a
/// `store(true)` / `swap(false)` flag shows a false lost wake-up.
pub struct Signal {
    woken: Mutex<bool>,
    cond: Condvar,
    dropped_on: std::sync::Mutex<Vec<ThreadId>>,
}

impl Signal {
    pub fn new() -> std::sync::Arc<Signal> {
        std::sync::Arc::new(Signal {
            woken: Mutex::new(false),
            cond: Condvar::new(),
            dropped_on: std::sync::Mutex::new(Vec::new()),
        })
    }

    pub fn waker(self: &std::sync::Arc<Signal>) -> Waker {
        let data = std::sync::Arc::into_raw(self.clone()) as *const ();
        // SAFETY: `SIGNAL_VTABLE` upholds the `RawWaker` contract over an `Arc<Signal>`.
        unsafe { Waker::from_raw(RawWaker::new(data, &SIGNAL_VTABLE)) }
    }

    /// Whether a wake arrived since the last call; clears it.
    pub fn take(&self) -> bool {
        std::mem::take(&mut *self.woken.lock().unwrap())
    }

    /// Blocks until a wake arrives (loom reports a deadlock if none ever does); clears it.
    pub fn wait(&self) {
        let mut woken = self.woken.lock().unwrap();
        while !*woken {
            woken = self.cond.wait(woken).unwrap();
        }
        *woken = false;
    }

    /// Waker clones still alive.
    pub fn live_wakers(self: &std::sync::Arc<Signal>) -> usize {
        std::sync::Arc::strong_count(self) - 1
    }

    /// Threads on which waker clones were dropped, in order.
    pub fn dropped_on(&self) -> Vec<ThreadId> {
        self.dropped_on.lock().unwrap().clone()
    }

    fn wake(&self) {
        *self.woken.lock().unwrap() = true;
        self.cond.notify_one();
    }
}

static SIGNAL_VTABLE: RawWakerVTable =
    RawWakerVTable::new(signal_clone, signal_wake, signal_wake_by_ref, signal_drop);

unsafe fn signal_clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` came from `Arc::into_raw` and the waker being cloned keeps it alive.
    unsafe { std::sync::Arc::increment_strong_count(data as *const Signal) };
    RawWaker::new(data, &SIGNAL_VTABLE)
}

unsafe fn signal_wake(data: *const ()) {
    // SAFETY: the waker's own count, consumed here.
    unsafe {
        signal_wake_by_ref(data);
        signal_drop(data);
    }
}

unsafe fn signal_wake_by_ref(data: *const ()) {
    // SAFETY: the waker keeps the `Arc` alive for the call.
    unsafe { &*(data as *const Signal) }.wake();
}

unsafe fn signal_drop(data: *const ()) {
    // SAFETY: the waker keeps the `Arc` alive until this drop, which gives its count back.
    unsafe {
        let s = &*(data as *const Signal);
        s.dropped_on.lock().unwrap().push(thread::current().id());
        drop(std::sync::Arc::from_raw(data as *const Signal));
    }
}

/// Polls `f` on this thread until it is ready, blocking (loom-visibly) between polls; returns
/// the output and the number of polls. A lost wake-up is a deadlock, which loom reports. The
/// crate's shared `block_on` (`loom-tests/src/lib.rs`).
pub fn block_on<F: Future>(f: F) -> (F::Output, usize) {
    loom_tests::block_on_counting(f)
}

/// Polls `f` once with `waker`.
pub fn poll_once<F: Future + Unpin>(f: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(waker))
}

/// A one-slot mailbox for a waker, filled by a future, emptied by the model.
pub type WakerSlot = Arc<Mutex<Option<Waker>>>;

pub fn waker_slot() -> WakerSlot {
    Arc::new(Mutex::new(None))
}

/// Takes the waker a poll stored in `slot`.
pub fn take_waker(slot: &WakerSlot) -> Waker {
    slot.lock()
        .unwrap()
        .take()
        .expect("the poll stored its waker")
}
