//! What the rt-io tests share: a runtime to run them in, and helpers to order events without
//! sleeping.
#![allow(dead_code)]

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// Runs `f` to completion on a fresh rt runtime (2 workers, multi-thread), the calling thread
/// blocked on it.
pub fn run<F: Future>(f: F) -> F::Output {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("build the runtime");
    rt.block_on(f)
}

/// Spawns `f` onto the current runtime; awaiting the result gives its output (a panic in `f`
/// fails the test).
pub fn spawn<F>(f: F) -> Task<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Task(rt::spawn(f))
}

/// The output of [`spawn`].
pub struct Task<T>(rt::task::JoinHandle<T>);

impl<T> Future for Task<T> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match Pin::new(&mut self.0).poll(cx) {
            Poll::Ready(Ok(v)) => Poll::Ready(v),
            Poll::Ready(Err(e)) => panic!("spawned task failed: {e:?}"),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A waker that records that it was woken and unparks the thread that made it.
pub struct Flag {
    woken: AtomicBool,
    thread: Thread,
}

impl Flag {
    pub fn new() -> Arc<Flag> {
        Arc::new(Flag {
            woken: AtomicBool::new(false),
            thread: thread::current(),
        })
    }

    pub fn is_woken(&self) -> bool {
        self.woken.load(Ordering::SeqCst)
    }

    /// Blocks the thread that created the flag until it is woken; panics after 20 s (a hang
    /// guard, not a timing assertion: a correct reactor wakes within microseconds).
    pub fn wait(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.is_woken() {
            let now = Instant::now();
            assert!(now < deadline, "the waker was never woken");
            thread::park_timeout(deadline - now);
        }
    }
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.thread.unpark();
    }
}

/// Runs a future to completion on this thread, blocking between polls (the workspace's one copy).
#[allow(unused_imports)] // each test file uses a different subset
pub use rt_core::test_support::block_on;

/// Polls `f` once with `flag`'s waker.
pub fn poll_once<F: Future + ?Sized>(f: Pin<&mut F>, flag: &Arc<Flag>) -> Poll<F::Output> {
    let waker = Waker::from(flag.clone());
    f.poll(&mut Context::from_waker(&waker))
}

/// Runs both futures concurrently in the calling task.
pub async fn join2<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = pin!(a);
    let mut b = pin!(b);
    let mut ra = None;
    let mut rb = None;
    std::future::poll_fn(|cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            Poll::Ready((ra.take().unwrap(), rb.take().unwrap()))
        } else {
            Poll::Pending
        }
    })
    .await
}

/// A fresh directory under the system temp dir, removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::AtomicUsize;
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "rt-io-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The output of whichever of `a` and `b` completes first (the other is dropped).
pub async fn select_first<T, A: Future<Output = T>, B: Future<Output = T>>(a: A, b: B) -> T {
    let mut a = pin!(a);
    let mut b = pin!(b);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(v) = a.as_mut().poll(cx) {
            return Poll::Ready(v);
        }
        b.as_mut().poll(cx)
    })
    .await
}
