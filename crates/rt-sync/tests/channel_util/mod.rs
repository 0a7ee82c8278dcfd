//! Helpers shared by the channel tests: a thread-parking `block_on`, a single poll with a
//! counting waker, a drop-counting value and a small deterministic random source.

#![allow(dead_code)] // each test file uses a different subset

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on this thread, blocking between polls (the workspace's one copy).
#[allow(unused_imports)] // each test file uses a different subset
pub use rt_core::test_support::block_on;

/// A waker that counts its wake-ups.
#[derive(Default)]
pub struct CountWaker(AtomicUsize);

impl CountWaker {
    pub fn new() -> Arc<CountWaker> {
        Arc::new(CountWaker::default())
    }
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for CountWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Polls `fut` once with `waker`.
pub fn poll_with<F: Future + ?Sized>(fut: Pin<&mut F>, waker: &Arc<CountWaker>) -> Poll<F::Output> {
    let waker = Waker::from(waker.clone());
    fut.poll(&mut Context::from_waker(&waker))
}

/// Polls `fut` once with a waker that unparks this thread.
pub fn poll_here<F: Future + ?Sized>(fut: Pin<&mut F>) -> Poll<F::Output> {
    let waker = Waker::from(Arc::new(Unparker(thread::current())));
    fut.poll(&mut Context::from_waker(&waker))
}

/// A value that counts how often it is dropped.
#[derive(Debug)]
pub struct Counted(pub u64, pub Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

/// xorshift64: deterministic per seed, so a failing run can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}
