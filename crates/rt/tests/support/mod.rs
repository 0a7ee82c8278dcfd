//! Helpers shared by the behaviour tests (`panic.rs`, `abort.rs`, `shutdown.rs`, ...). Each test
//! file includes this module with `mod support;` and uses what it needs.

#![allow(dead_code)]

pub mod rss;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

/// How long [`deadline`] waits for a test body before failing it instead of hanging. Not a
/// performance bound: every body here finishes in well under a second when the runtime works.
pub const HANG: Duration = Duration::from_secs(60);

/// A panic message containing this is expected by the test that raised it: the quiet panic hook
/// does not print it.
pub const EXPECTED: &str = "[expected panic]";

/// Both flavours, each with a name for assertion messages.
pub fn runtimes() -> Vec<(&'static str, rt::Runtime)> {
    vec![
        ("multi_thread", multi_thread(2)),
        ("current_thread", current_thread()),
    ]
}

/// A multi-thread runtime with `workers` workers.
pub fn multi_thread(workers: usize) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .expect("failed to build a multi_thread runtime")
}

/// A current-thread runtime.
pub fn current_thread() -> rt::Runtime {
    rt::Builder::new_current_thread()
        .build()
        .expect("failed to build a current_thread runtime")
}

/// Installs (once per process) a panic hook that stays quiet for panics whose message contains
/// [`EXPECTED`] and forwards every other panic to the previous hook.
pub fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let p = info.payload();
            let text = p
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| p.downcast_ref::<String>().map(String::as_str));
            if text.is_some_and(|t| t.contains(EXPECTED)) {
                return;
            }
            prev(info);
        }));
    });
}

/// Runs `f`, which must panic, and returns the file and line the panic reported and its
/// message. It swaps the process-wide panic hook: a test binary that uses it has one test
/// that panics.
pub fn panic_of(f: impl FnOnce()) -> (String, u32, String) {
    let seen = Arc::new(Mutex::new(None));
    let hook_seen = seen.clone();
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let loc = info.location().unwrap();
        let text = panic_text(info.payload()).to_string();
        *hook_seen.lock().unwrap() = Some((loc.file().to_string(), loc.line(), text));
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(prev);
    assert!(result.is_err(), "expected a panic");
    let seen = seen.lock().unwrap().take();
    seen.unwrap()
}

/// The text of a panic payload (`&str` or `String`).
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .expect("the panic carries a message")
}

/// Runs `body` on its own thread and waits at most [`HANG`] for it: a runtime bug that
/// deadlocks or starves fails the test instead of hanging the test binary. A panic in `body` is
/// resumed here.
pub fn deadline<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("test-body".into())
        .spawn(move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
            let _ = tx.send(out);
        })
        .expect("spawn the test body thread");
    match rx.recv_timeout(HANG) {
        Ok(Ok(v)) => {
            let _ = thread.join();
            v
        }
        Ok(Err(p)) => std::panic::resume_unwind(p),
        Err(_) => panic!("the test body did not finish within {HANG:?}: the runtime hangs"),
    }
}

/// Counts drops; put one in a future to see that it was dropped (and how often).
#[derive(Debug)]
pub struct DropCount(pub Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Sends `()` when dropped: lets a test wait for a drop that happens on another thread.
#[derive(Debug)]
pub struct DropSignal(pub mpsc::Sender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// Waits (yielding to the scheduler) until `flag` is set. Works in tasks and in `block_on` on
/// both flavours.
pub async fn until(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        rt::task::yield_now().await;
    }
}

/// Waits (yielding) until `count` reaches `n`.
pub async fn until_count(count: &AtomicUsize, n: usize) {
    while count.load(Ordering::SeqCst) < n {
        rt::task::yield_now().await;
    }
}

struct NoopWake;

impl Wake for NoopWake {
    fn wake(self: Arc<Self>) {}
}

/// Polls `fut` once with a waker that does nothing (for futures that must already be ready,
/// such as the `JoinHandle` of a task cancelled by shutdown).
pub fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    let waker = Waker::from(Arc::new(NoopWake));
    Pin::new(fut).poll(&mut Context::from_waker(&waker))
}

/// A future that is never ready and counts its polls.
#[derive(Debug, Default)]
pub struct Never {
    pub polls: Arc<AtomicUsize>,
}

impl Future for Never {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        Poll::Pending
    }
}

/// A gate many tasks wait on; [`Gate::open`] releases them all. Hand-written so the tests do not
/// depend on `rt::sync`.
#[derive(Debug, Default)]
pub struct Gate {
    open: AtomicBool,
    waiters: Mutex<Vec<Waker>>,
}

impl Gate {
    /// Opens the gate and wakes every waiter.
    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        let waiters = std::mem::take(&mut *self.waiters.lock().unwrap());
        for w in waiters {
            w.wake();
        }
    }

    /// Waits until the gate is open.
    pub fn wait(&self) -> GateWait<'_> {
        GateWait(self)
    }

    /// Waiters registered and not yet woken.
    pub fn waiting(&self) -> usize {
        self.waiters.lock().unwrap().len()
    }
}

/// The future of [`Gate::wait`].
#[derive(Debug)]
pub struct GateWait<'a>(&'a Gate);

impl Future for GateWait<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.open.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        let mut waiters = self.0.waiters.lock().unwrap();
        // Re-check under the lock: `open` stores before it takes the list.
        if self.0.open.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        waiters.push(cx.waker().clone());
        Poll::Pending
    }
}

/// Stores its waker when polled and wakes it (by reference, then by value) when dropped, which
/// happens while the runtime holds the task's RUNNING bit (abort, shutdown).
pub struct WakeSelfOnDrop {
    pub waker: Option<Waker>,
    pub polls: Arc<AtomicUsize>,
    pub drops: DropCount,
}

impl Future for WakeSelfOnDrop {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        self.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for WakeSelfOnDrop {
    fn drop(&mut self) {
        if let Some(w) = self.waker.take() {
            w.wake_by_ref();
            w.wake();
        }
    }
}
