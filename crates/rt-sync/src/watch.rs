//! A single-value channel that keeps only the latest value: receivers are told it changed.
//!
//! The value sits under a lock ([`borrow`](Receiver::borrow) holds it; keep borrows short). A
//! version word counts changes; each receiver remembers the version it has seen, and
//! [`changed`](Receiver::changed) waits until the word moves past it.
//!
//! # The version word (this file owns its layout)
//!
//! ```text
//!  bit  usize::BITS-1                        1   0
//!      +------------------------------------+--------+
//!      |  version (changes since creation)  | CLOSED |
//!      +------------------------------------+--------+
//! ```
//!
//! A change adds 2 (one version) while the value lock is held, so a receiver that reads the value
//! and the word under that lock sees a matching pair. `CLOSED` is set once, when the sender goes.
//! Waiters register under the waiter lock and re-read the word there; a change bumps the word
//! before taking that lock to wake them, so no wake-up is lost.
//!
//! ```
//! # use rt_core::test_support::block_on;
//! let (tx, mut rx) = rt_sync::watch::channel("hello");
//! tx.send("world").unwrap();
//! block_on(async {
//!     rx.changed().await.unwrap();
//!     assert_eq!(*rx.borrow_and_update(), "world");
//!     drop(tx);
//!     assert!(rx.changed().await.is_err());
//! });
//! ```

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::coop;
use rt_core::sync::{Arc, AtomicUsize, Mutex, MutexGuard, Ordering};

use rt_core::wait_queue::{Key, WaitQueue};

/// The version word's bits. Nothing outside this module masks them.
mod version {
    use rt_core::sync::{AtomicUsize, Ordering};

    const CLOSED: usize = 1;
    const STEP: usize = 2;

    /// A decoded value of the version word.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) struct Snapshot(usize);

    impl Snapshot {
        /// The version, without the closed flag.
        pub(super) fn version(self) -> usize {
            self.0 & !CLOSED
        }
        pub(super) fn is_closed(self) -> bool {
            self.0 & CLOSED != 0
        }
    }

    pub(super) fn new() -> AtomicUsize {
        AtomicUsize::new(0)
    }

    pub(super) fn load(word: &AtomicUsize) -> Snapshot {
        Snapshot(word.load(Ordering::Acquire))
    }

    /// Records one change (wrapping; the closed bit is untouched since `STEP` is even).
    pub(super) fn bump(word: &AtomicUsize) {
        word.fetch_add(STEP, Ordering::Release);
    }

    pub(super) fn close(word: &AtomicUsize) {
        word.fetch_or(CLOSED, Ordering::Release);
    }
}

/// Creates a watch channel holding `init`.
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: Mutex::new(init),
        version: version::new(),
        receivers: AtomicUsize::new(1),
        waiters: Mutex::new(Waiters {
            receivers: WaitQueue::new(),
            senders: WaitQueue::new(),
        }),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, seen: 0 },
    )
}

struct Shared<T> {
    value: Mutex<T>,
    version: AtomicUsize,
    receivers: AtomicUsize,
    waiters: Mutex<Waiters>,
}

struct Waiters {
    /// Receivers in `changed`.
    receivers: WaitQueue<Waker>,
    /// Senders in `closed`.
    senders: WaitQueue<Waker>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic under the value lock (in `send_modify`'s closure) leaves a value, just as a panic
    // in any other code holding a `&mut T` would.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T> Shared<T> {
    fn wake(queue: impl FnOnce(&mut Waiters) -> &mut WaitQueue<Waker>, shared: &Self) {
        let wakers = queue(&mut lock(&shared.waiters)).drain();
        for w in wakers {
            w.wake();
        }
    }

    /// Registers (or refreshes) `waiting` in the queue picked by `queue`, unless `ready` holds
    /// when checked under the waiter lock.
    fn register(
        &self,
        cx: &Context<'_>,
        waiting: &mut Option<Key>,
        queue: impl FnOnce(&mut Waiters) -> &mut WaitQueue<Waker>,
        ready: impl FnOnce() -> bool,
    ) -> bool {
        let mut waiters = lock(&self.waiters);
        if ready() {
            return true;
        }
        let q = queue(&mut waiters);
        match waiting.and_then(|k| q.get_mut(k)) {
            Some(w) if w.will_wake(cx.waker()) => {}
            Some(w) => *w = cx.waker().clone(),
            None => *waiting = Some(q.push_back(cx.waker().clone())),
        }
        false
    }

    fn unregister(&self, key: Key, queue: impl FnOnce(&mut Waiters) -> &mut WaitQueue<Waker>) {
        queue(&mut lock(&self.waiters)).remove(key);
    }
}

fn rx_queue(w: &mut Waiters) -> &mut WaitQueue<Waker> {
    &mut w.receivers
}

fn tx_queue(w: &mut Waiters) -> &mut WaitQueue<Waker> {
    &mut w.senders
}

/// Publishes values. Dropping it closes the channel.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Observes the latest value; cloning keeps the clone's notion of "seen".
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version this receiver has seen.
    seen: usize,
}

/// A borrow of the current value; holds the value lock.
pub struct Ref<'a, T> {
    guard: MutexGuard<'a, T>,
}

/// `send` found no receiver; the value comes back.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

/// The sender is gone (and, for `changed`, no unseen value remains).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct RecvError(());

impl<T> Sender<T> {
    /// Replaces the value and notifies receivers; fails, giving the value back, when there is
    /// no receiver.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.receiver_count() == 0 {
            return Err(SendError(value));
        }
        drop(self.send_replace(value));
        Ok(())
    }

    /// Replaces the value even with no receiver, notifies receivers, returns the old value.
    pub fn send_replace(&self, value: T) -> T {
        let old = {
            let mut guard = lock(&self.shared.value);
            let old = std::mem::replace(&mut *guard, value);
            version::bump(&self.shared.version);
            old
        };
        Shared::wake(rx_queue, &self.shared);
        old
    }

    /// Modifies the value in place and notifies receivers.
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        {
            let mut guard = lock(&self.shared.value);
            modify(&mut guard);
            version::bump(&self.shared.version);
        }
        Shared::wake(rx_queue, &self.shared);
    }

    /// Borrows the current value.
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            guard: lock(&self.shared.value),
        }
    }

    /// A new receiver that has seen the current value.
    pub fn subscribe(&self) -> Receiver<T> {
        self.shared.receivers.fetch_add(1, Ordering::Relaxed);
        let _value = lock(&self.shared.value);
        Receiver {
            shared: self.shared.clone(),
            seen: version::load(&self.shared.version).version(),
        }
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.receivers.load(Ordering::Acquire)
    }

    /// Whether every receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Waits until every receiver is gone.
    pub fn closed(&self) -> Closed<'_, T> {
        Closed {
            shared: &self.shared,
            waiting: None,
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        version::close(&self.shared.version);
        Shared::wake(rx_queue, &self.shared);
    }
}

impl<T> Receiver<T> {
    /// Borrows the current value without marking it seen.
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            guard: lock(&self.shared.value),
        }
    }

    /// Borrows the current value and marks it seen.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let guard = lock(&self.shared.value);
        // Read under the value lock: the version matches the value we hand out.
        self.seen = version::load(&self.shared.version).version();
        Ref { guard }
    }

    /// Whether the value changed since last seen; fails once the sender is gone.
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        let now = version::load(&self.shared.version);
        if now.is_closed() {
            return Err(RecvError(()));
        }
        Ok(now.version() != self.seen)
    }

    /// Waits for a value not yet seen and marks it seen. Fails when the sender is gone and
    /// nothing new remains.
    ///
    /// Cancel-safe: dropping the future before it completes marks nothing seen.
    ///
    /// # Cancel safety
    /// Cancel safe: the version seen is marked only when the future returns.
    pub fn changed(&mut self) -> Changed<'_, T> {
        Changed {
            rx: self,
            waiting: None,
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.shared.receivers.fetch_add(1, Ordering::Relaxed);
        Receiver {
            shared: self.shared.clone(),
            seen: self.seen,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if self.shared.receivers.fetch_sub(1, Ordering::AcqRel) == 1 {
            Shared::wake(tx_queue, &self.shared);
        }
    }
}

/// The future of [`Receiver::changed`].
#[must_use = "futures do nothing unless polled"]
pub struct Changed<'a, T> {
    rx: &'a mut Receiver<T>,
    waiting: Option<Key>,
}

impl<T> Changed<'_, T> {
    /// The outcome if there is one now; marks a new version seen.
    fn check(rx: &mut Receiver<T>) -> Option<Result<(), RecvError>> {
        let now = version::load(&rx.shared.version);
        if now.version() != rx.seen {
            rx.seen = now.version();
            Some(Ok(()))
        } else if now.is_closed() {
            Some(Err(RecvError(())))
        } else {
            None
        }
    }
}

impl<T> Future for Changed<'_, T> {
    type Output = Result<(), RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let mut out = Self::check(this.rx);
        if out.is_none() {
            let rx = &mut *this.rx;
            let shared = rx.shared.clone();
            shared.register(cx, &mut this.waiting, rx_queue, || {
                out = Self::check(rx);
                out.is_some()
            });
        }
        match out {
            Some(r) => {
                if let Some(key) = this.waiting.take() {
                    this.rx.shared.unregister(key, rx_queue);
                }
                coop.made_progress();
                Poll::Ready(r)
            }
            None => Poll::Pending,
        }
    }
}

impl<T> Drop for Changed<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.rx.shared.unregister(key, rx_queue);
        }
    }
}

/// The future of [`Sender::closed`].
#[must_use = "futures do nothing unless polled"]
pub struct Closed<'a, T> {
    shared: &'a Shared<T>,
    waiting: Option<Key>,
}

impl<T> Future for Closed<'_, T> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let shared = this.shared;
        let gone = || shared.receivers.load(Ordering::Acquire) == 0;
        if gone() || shared.register(cx, &mut this.waiting, tx_queue, gone) {
            if let Some(key) = this.waiting.take() {
                shared.unregister(key, tx_queue);
            }
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl<T> Drop for Closed<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.shared.unregister(key, tx_queue);
        }
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendError").finish_non_exhaustive()
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch channel has no receiver")
    }
}

impl<T> Error for SendError<T> {}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch sender is gone")
    }
}

impl Error for RecvError {}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("version", &version::load(&self.shared.version))
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("seen", &self.seen)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Changed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Changed")
            .field("waiting", &self.waiting.is_some())
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Closed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Closed")
            .field("waiting", &self.waiting.is_some())
            .finish_non_exhaustive()
    }
}
