//! Helpers for the lock tests: a future polled by hand with a waker that records wake-ups, and a
//! thread-parking `block_on` for the multi-threaded tests.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts its wake-ups.
#[derive(Debug, Default)]
pub struct Counter(pub AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A future driven by hand, so a test decides exactly when each one is polled (or dropped).
pub struct Task<'a, T> {
    fut: Pin<Box<dyn Future<Output = T> + 'a>>,
    wakes: Arc<Counter>,
    waker: Waker,
}

impl<'a, T> Task<'a, T> {
    pub fn new(fut: impl Future<Output = T> + 'a) -> Task<'a, T> {
        let wakes = Arc::new(Counter::default());
        Task {
            fut: Box::pin(fut),
            waker: Waker::from(wakes.clone()),
            wakes,
        }
    }

    pub fn poll(&mut self) -> Poll<T> {
        self.fut
            .as_mut()
            .poll(&mut Context::from_waker(&self.waker))
    }

    /// Polls and expects `Pending`.
    #[track_caller]
    pub fn pending(&mut self) {
        assert!(
            self.poll().is_pending(),
            "expected the future to be pending"
        );
    }

    /// Polls and expects `Ready`, returning the output.
    #[track_caller]
    pub fn ready(&mut self) -> T {
        match self.poll() {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("expected the future to be ready"),
        }
    }

    /// Whether the waker was woken since the last call.
    pub fn woken(&self) -> bool {
        self.wakes.0.swap(0, Ordering::SeqCst) > 0
    }
}

/// Runs a future to completion on this thread, blocking between polls (the workspace's one copy).
#[allow(unused_imports)] // each test file uses a different subset
pub use rt_core::test_support::block_on;
