//! A channel for exactly one value.
//!
//! One allocation holds a state word, the value slot and two waker slots: the receiver's (woken
//! when the value arrives or the sender goes away) and the sender's (woken by
//! [`Sender::closed`] when the receiver goes away). No lock: each slot has one owner at a time,
//! and the state word says who.
//!
//! # The state word (this file owns its layout)
//!
//! ```text
//!  bit    5         4          3             2          1           0
//!      +---------+---------+-------------+----------+-----------+-------------+
//!      | RX_GONE | TX_GONE | TX_TASK_SET |  CLOSED  | COMPLETE  | RX_TASK_SET |
//!      +---------+---------+-------------+----------+-----------+-------------+
//! ```
//!
//! - `RX_TASK_SET`: the receiver's waker slot holds a waker and is handed to the sender: the
//!   sender whose `COMPLETE` transition finds the bit set takes the waker out and wakes it (by
//!   value, so the task's reference moves into the wake-up). Set and cleared only by the
//!   receiver, which does not touch the slot while the bit is set. To look at or replace its
//!   waker the receiver clears the bit first: if the clearing shows `COMPLETE`, the slot went to
//!   the sender (and the value is ready); otherwise the slot is the receiver's again.
//! - `COMPLETE`: the sender is done, by sending (the value slot is full) or by dropping (it is
//!   empty). Set only by the sender, never when `CLOSED` is already set. Before it the value slot
//!   belongs to the sender, after it to the receiver.
//! - `CLOSED`: the receiver closed or dropped. Set only by the receiver. A send that finds it
//!   takes its value back.
//! - `TX_TASK_SET`: the sender's waker slot (for [`Sender::closed`]) is handed to the receiver;
//!   the mirror image of `RX_TASK_SET`, with `CLOSED` in the role of `COMPLETE`.
//!
//! - `TX_GONE` / `RX_GONE`: the sender / receiver will not touch the cell again. They replace a
//!   reference count: the side whose transition sets its bit and finds the other's already set
//!   frees the cell, and a side that *loads* the other's bit (with `Acquire`) owns the cell
//!   outright and frees it without a write. A send that finds the receiver not yet waiting sets
//!   `COMPLETE | TX_GONE` in one step, and a receiver that completes after the sender left frees
//!   the cell with no atomic write at all: one allocation and, in the common hand-off, three
//!   read-modify-writes per channel (an `Arc` would add a clone and two decrements). The cell
//!   comes from rt-core's frame pool, which recycles it without atomics when it is freed on the
//!   thread that made it (both ends of a request/reply usually run on one worker).
//!
//! Each transition is one atomic read-modify-write, so of a racing send and close exactly one
//! wins: either the receiver sees `COMPLETE` (and gets the value) or the sender sees `CLOSED`
//! (and gets it back). The slots hold `Option`s, so freeing the cell drops whatever is left.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use std::alloc::Layout;
use std::ptr::NonNull;

use rt_core::coop;
use rt_core::sync::{AtomicUsize, UnsafeCell};

use crate::waiters::set_waker;

/// The state word's bits and transitions. Nothing outside this module masks them.
mod state {
    use rt_core::sync::{AtomicUsize, Ordering};

    const RX_TASK_SET: usize = 0b0001;
    const COMPLETE: usize = 0b0010;
    const CLOSED: usize = 0b0100;
    const TX_TASK_SET: usize = 0b1000;
    const TX_GONE: usize = 0b1_0000;
    const RX_GONE: usize = 0b10_0000;

    /// A decoded value of the state word.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) struct State(usize);

    impl State {
        #[inline]
        pub(super) fn is_rx_task_set(self) -> bool {
            self.0 & RX_TASK_SET != 0
        }
        #[inline]
        pub(super) fn is_complete(self) -> bool {
            self.0 & COMPLETE != 0
        }
        #[inline]
        pub(super) fn is_closed(self) -> bool {
            self.0 & CLOSED != 0
        }
        #[inline]
        pub(super) fn is_tx_task_set(self) -> bool {
            self.0 & TX_TASK_SET != 0
        }
        #[inline]
        pub(super) fn is_tx_gone(self) -> bool {
            self.0 & TX_GONE != 0
        }
        #[inline]
        pub(super) fn is_rx_gone(self) -> bool {
            self.0 & RX_GONE != 0
        }
    }

    impl std::fmt::Debug for State {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("State")
                .field("rx_task_set", &self.is_rx_task_set())
                .field("complete", &self.is_complete())
                .field("closed", &self.is_closed())
                .field("tx_task_set", &self.is_tx_task_set())
                .field("tx_gone", &self.is_tx_gone())
                .field("rx_gone", &self.is_rx_gone())
                .finish()
        }
    }

    #[inline]
    pub(super) fn new() -> AtomicUsize {
        AtomicUsize::new(0)
    }

    #[inline]
    pub(super) fn load(word: &AtomicUsize) -> State {
        State(word.load(Ordering::Acquire))
    }

    /// Sets `COMPLETE` unless `CLOSED` is set; also `TX_GONE` when the receiver's waker slot
    /// is not handed over (then the sender has nothing left to do). Returns the state before.
    #[inline]
    pub(super) fn set_complete(word: &AtomicUsize) -> State {
        let mut cur = word.load(Ordering::Relaxed);
        loop {
            if cur & CLOSED != 0 {
                // The receiver is gone: `COMPLETE` must stay clear so the value stays ours.
                // Acquire pairs with the receiver's close so we see its final accesses.
                return State(word.load(Ordering::Acquire));
            }
            let next = if cur & RX_TASK_SET != 0 {
                cur | COMPLETE
            } else {
                cur | COMPLETE | TX_GONE
            };
            match word.compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(prev) => return State(prev),
                Err(actual) => cur = actual,
            }
        }
    }

    /// Sets `TX_GONE`. Returns the state before.
    #[inline]
    pub(super) fn set_tx_gone(word: &AtomicUsize) -> State {
        State(word.fetch_or(TX_GONE, Ordering::AcqRel))
    }

    /// Sets `RX_GONE`. Returns the state before.
    #[inline]
    pub(super) fn set_rx_gone(word: &AtomicUsize) -> State {
        State(word.fetch_or(RX_GONE, Ordering::AcqRel))
    }

    /// Sets `CLOSED`. Returns the state before.
    #[inline]
    pub(super) fn set_closed(word: &AtomicUsize) -> State {
        State(word.fetch_or(CLOSED, Ordering::AcqRel))
    }

    /// Sets `RX_TASK_SET`. Returns the state after.
    #[inline]
    pub(super) fn set_rx_task(word: &AtomicUsize) -> State {
        State(word.fetch_or(RX_TASK_SET, Ordering::AcqRel) | RX_TASK_SET)
    }

    /// Clears `RX_TASK_SET`. Returns the state after.
    #[inline]
    pub(super) fn unset_rx_task(word: &AtomicUsize) -> State {
        State(word.fetch_and(!RX_TASK_SET, Ordering::AcqRel) & !RX_TASK_SET)
    }

    /// Sets `TX_TASK_SET`. Returns the state after.
    #[inline]
    pub(super) fn set_tx_task(word: &AtomicUsize) -> State {
        State(word.fetch_or(TX_TASK_SET, Ordering::AcqRel) | TX_TASK_SET)
    }

    /// Clears `TX_TASK_SET`. Returns the state after.
    #[inline]
    pub(super) fn unset_tx_task(word: &AtomicUsize) -> State {
        State(word.fetch_and(!TX_TASK_SET, Ordering::AcqRel) & !TX_TASK_SET)
    }
}

/// Creates a oneshot channel.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    // From the frame pool: both ends of a request/reply usually live on one worker, where the
    // pool recycles the cell without atomics (a cross-thread free is a lock-free push).
    let inner = rt_core::pool::alloc(Layout::new::<Inner<T>>()).cast::<Inner<T>>();
    // SAFETY: a fresh block of `Inner<T>`'s layout.
    unsafe {
        inner.as_ptr().write(Inner {
            state: state::new(),
            value: UnsafeCell::new(None),
            rx_task: UnsafeCell::new(None),
            tx_task: UnsafeCell::new(None),
        })
    };
    (
        Sender { inner: Some(inner) },
        Receiver { inner: Some(inner) },
    )
}

struct Inner<T> {
    state: AtomicUsize,
    /// The sender's before `COMPLETE`, the receiver's after.
    value: UnsafeCell<Option<T>>,
    /// Read by the sender only while `RX_TASK_SET`; written by the receiver only while clear.
    rx_task: UnsafeCell<Option<Waker>>,
    /// Read by the receiver only while `TX_TASK_SET`; written by the sender only while clear.
    tx_task: UnsafeCell<Option<Waker>>,
}

// SAFETY: the value moves from the sender's thread to the receiver's, so `T: Send` is needed and
// enough; the cells are handed over by the state word as documented on `Inner`'s fields, so no
// two threads access a cell at once unless both only read.
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: as for `Send`; `&Inner` never hands out a `&T`.
unsafe impl<T: Send> Sync for Inner<T> {}

/// Frees the cell.
///
/// # Safety
///
/// The caller is the last side holding `inner` (it saw the other side's `*_GONE` bit, by a load
/// with `Acquire` or in the value before its own `*_GONE` transition), and does not use it again.
unsafe fn free<T>(inner: NonNull<Inner<T>>) {
    // SAFETY: written into a pool block of this layout by `channel`; per the contract nobody
    // else can reach it, so it is dropped once and its block given back once.
    unsafe {
        std::ptr::drop_in_place(inner.as_ptr());
        rt_core::pool::dealloc(inner.cast(), Layout::new::<Inner<T>>());
    }
}

impl<T> Inner<T> {
    /// Sender side: marks the sender done, wakes the receiver and lets go of the cell.
    /// `false`: the receiver is gone (closed) and `COMPLETE` was not set; the sender still
    /// holds the cell (and its value slot) and must [`Inner::release_tx`].
    ///
    /// # Safety
    ///
    /// `this` is the sender's live cell; on `true` the sender does not use it again.
    #[inline]
    unsafe fn complete(this: NonNull<Inner<T>>) -> bool {
        // SAFETY: the sender still holds the cell.
        let inner = unsafe { this.as_ref() };
        let prev = state::set_complete(&inner.state);
        if prev.is_closed() {
            return false;
        }
        if prev.is_rx_task_set() {
            // SAFETY: `RX_TASK_SET` was set when we set `COMPLETE`, so the slot is ours: the
            // receiver does not touch it while the bit is set, and clearing the bit now shows it
            // `COMPLETE`, which keeps it away (rule on `RX_TASK_SET`).
            let waker = inner.rx_task.with_mut(|p| unsafe { (*p).take() });
            if let Some(w) = waker {
                w.wake();
            }
            // `set_complete` left `TX_GONE` clear because of this waker; now we are done.
            // SAFETY: we hold the cell and do not use it after.
            unsafe { Inner::release_tx(this) };
        }
        // Else `set_complete` set `TX_GONE` too, and the receiver (not `RX_GONE`: that comes
        // with `CLOSED`, or after `COMPLETE`) frees the cell.
        true
    }

    /// The sender lets go of the cell (sets `TX_GONE`), freeing it if the receiver already has.
    ///
    /// # Safety
    ///
    /// `this` is the sender's live cell, `TX_GONE` is not set, and the sender does not use it
    /// again.
    #[inline]
    unsafe fn release_tx(this: NonNull<Inner<T>>) {
        // SAFETY: the sender still holds the cell.
        let prev = state::set_tx_gone(unsafe { &this.as_ref().state });
        if prev.is_rx_gone() {
            // SAFETY: both sides are gone and we were last (AcqRel saw the receiver's release).
            unsafe { free(this) };
        }
    }

    /// The receiver lets go of the cell, freeing it if the sender already has.
    ///
    /// # Safety
    ///
    /// `this` is the receiver's live cell, `RX_GONE` is not set, and the receiver does not use
    /// it again.
    #[inline]
    unsafe fn release_rx(this: NonNull<Inner<T>>) {
        // SAFETY: the receiver still holds the cell.
        let word = unsafe { &this.as_ref().state };
        // The common case after a hand-off: the sender has left, so the cell is ours alone
        // (Acquire pairs with the sender's `TX_GONE` transition) and needs no write.
        if state::load(word).is_tx_gone() || state::set_rx_gone(word).is_tx_gone() {
            // SAFETY: the sender is gone for good and we were last.
            unsafe { free(this) };
        }
    }

    /// Receiver side, after seeing `COMPLETE`: takes the value, if one was sent.
    ///
    /// # Safety
    ///
    /// `COMPLETE` must have been observed with `Acquire` by the receiver, the only caller.
    #[inline]
    unsafe fn take_value(&self) -> Option<T> {
        // SAFETY: after `COMPLETE` the value slot belongs to the receiver (caller's contract),
        // and the receiver is unique.
        self.value.with_mut(|p| unsafe { (*p).take() })
    }

    /// Receiver side, after seeing `COMPLETE`: whether a value was sent and not yet taken.
    ///
    /// # Safety
    ///
    /// As for [`Inner::take_value`].
    #[inline]
    unsafe fn has_value(&self) -> bool {
        // SAFETY: as in `take_value`; only read.
        self.value.with(|p| unsafe { (*p).is_some() })
    }

    /// Puts `cx`'s waker in `cell` unless the one there already wakes the same task.
    ///
    /// Called only by the cell's owner side while the cell's `*_TASK_SET` bit is clear.
    #[inline]
    fn store_waker(cell: &UnsafeCell<Option<Waker>>, cx: &Context<'_>) {
        // SAFETY: with the bit clear the other side does not touch the cell (rules on
        // `RX_TASK_SET` and `TX_TASK_SET`), and we are the only one of our side.
        cell.with_mut(|p| set_waker(unsafe { &mut *p }, cx.waker()));
    }
}

/// Sends the one value. Dropping it without sending makes the receiver see [`RecvError`].
pub struct Sender<T> {
    /// `None` once `send` has consumed the sender. While `Some`, `TX_GONE` is clear and the
    /// cell is alive.
    inner: Option<NonNull<Inner<T>>>,
}

/// Receives the one value: a future of `Result<T, RecvError>`.
///
/// # Cancel safety
/// Cancel safe: awaiting `&mut receiver` in a `select!` and dropping that future loses nothing; the value stays for the next await.
pub struct Receiver<T> {
    /// `None` once the future has completed: nothing is left to close or drop. While `Some`,
    /// `RX_GONE` is clear and the cell is alive.
    inner: Option<NonNull<Inner<T>>>,
}

// SAFETY: each handle owns one side of the cell, which is `Send + Sync` for `T: Send` (see
// `Inner`); a handle holds no `&T` and no thread-bound state.
unsafe impl<T: Send> Send for Sender<T> {}
// SAFETY: `&Sender` only reads the state word (`is_closed`); the rest needs `&mut`.
unsafe impl<T: Send> Sync for Sender<T> {}
// SAFETY: as for `Sender`.
unsafe impl<T: Send> Send for Receiver<T> {}
// SAFETY: `&Receiver` gives access to nothing; every method takes `&mut` or `Pin<&mut>`.
unsafe impl<T: Send> Sync for Receiver<T> {}

impl<T> Sender<T> {
    fn inner(&self) -> Option<&Inner<T>> {
        // SAFETY: while the sender holds `Some`, the cell is alive (field rule).
        self.inner.map(|p| unsafe { &*p.as_ptr() })
    }
}

impl<T> Receiver<T> {
    fn inner(&self) -> Option<&Inner<T>> {
        // SAFETY: while the receiver holds `Some`, the cell is alive (field rule).
        self.inner.map(|p| unsafe { &*p.as_ptr() })
    }
}

/// The errors under tokio's path (`tokio::sync::oneshot::error::{RecvError, TryRecvError}`).
pub mod error {
    pub use super::{RecvError, TryRecvError};
}

/// The sender went away without sending (or the receiver closed first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvError(());

/// `try_recv` found no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// No value yet; the sender may still send.
    Empty,
    /// No value will come: the sender is gone, the receiver closed, or the value was taken.
    Closed,
}

impl<T> Sender<T> {
    /// Sends `value`. If the receiver is gone (or closed) the value comes back.
    #[inline]
    pub fn send(mut self, value: T) -> Result<(), T> {
        let this = self.inner.take().expect("sender used after send");
        // SAFETY: we held `Some`, so the cell is alive.
        let inner = unsafe { this.as_ref() };
        // SAFETY: `COMPLETE` is not set (only this consumed sender sets it), so the value slot
        // is the sender's.
        inner.value.with_mut(|p| unsafe { *p = Some(value) });
        // SAFETY: the cell is ours; on success we never touch it again.
        if unsafe { Inner::complete(this) } {
            return Ok(());
        }
        // SAFETY: `complete` failed, so `COMPLETE` stays clear and the slot is still ours.
        let value = inner.value.with_mut(|p| unsafe { (*p).take() });
        // SAFETY: done with the cell.
        unsafe { Inner::release_tx(this) };
        Err(value.expect("value just stored"))
    }

    /// Whether the receiver has gone away or closed.
    pub fn is_closed(&self) -> bool {
        self.inner()
            .is_none_or(|i| state::load(&i.state).is_closed())
    }

    /// Waits until the receiver goes away or closes.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn closed(&mut self) {
        std::future::poll_fn(|cx| self.poll_closed(cx)).await
    }

    /// Polls for the receiver going away or closing.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(inner) = self.inner() else {
            return Poll::Ready(());
        };
        let st = state::load(&inner.state);
        if st.is_closed() {
            return Poll::Ready(());
        }
        // Take the slot back before touching it; a close in between took the waker to wake.
        if st.is_tx_task_set() && state::unset_tx_task(&inner.state).is_closed() {
            return Poll::Ready(());
        }
        Inner::<T>::store_waker(&inner.tx_task, cx);
        if state::set_tx_task(&inner.state).is_closed() {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(this) = self.inner.take() {
            // SAFETY: the cell is ours; `complete` lets go of it on success, else we do.
            unsafe {
                if !Inner::complete(this) {
                    Inner::release_tx(this);
                }
            }
        }
    }
}

impl<T> Receiver<T> {
    /// Waits for the value from synchronous code, parking this thread (tokio's
    /// `blocking_recv`); fails when the sender is dropped without sending.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on` (it would block the thread that drives
    /// tasks): `.await` the receiver there instead, or call this from `spawn_blocking`.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        crate::block_on::block_on("oneshot::Receiver::blocking_recv", self)
    }

    /// Takes the value if it has been sent. After `Ok` or `Closed` the receiver is terminated
    /// (as in tokio): it has let go of the channel, and must not be polled again.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let Some(inner) = self.inner() else {
            return Err(TryRecvError::Closed);
        };
        let st = state::load(&inner.state);
        let result = if st.is_complete() {
            // SAFETY: `COMPLETE` observed with `Acquire`, and we are the receiver.
            unsafe { inner.take_value() }.ok_or(TryRecvError::Closed)
        } else if st.is_closed() {
            Err(TryRecvError::Closed)
        } else {
            return Err(TryRecvError::Empty);
        };
        self.terminate();
        result
    }

    /// Whether the receiver has completed: it returned `Ready` from a poll, or `Ok`/`Closed`
    /// from [`Receiver::try_recv`]. A terminated receiver must not be polled again.
    pub fn is_terminated(&self) -> bool {
        self.inner.is_none()
    }

    /// Whether no value waits to be received: true before the send, after the value was taken,
    /// when the sender left without sending, and once terminated.
    pub fn is_empty(&self) -> bool {
        let Some(inner) = self.inner() else {
            return true;
        };
        // SAFETY: `COMPLETE` observed with `Acquire` (the `&&` orders the read after it), and
        // we are the receiver.
        !(state::load(&inner.state).is_complete() && unsafe { inner.has_value() })
    }

    /// Closes the channel (a no-op once complete), drops a value not taken, and lets go of the
    /// cell: what dropping the receiver does.
    fn terminate(&mut self) {
        self.close();
        if let Some(this) = self.inner.take() {
            // SAFETY: we held `Some`, so the cell is alive until our release.
            let inner = unsafe { this.as_ref() };
            if state::load(&inner.state).is_complete() {
                // SAFETY: `COMPLETE` observed with `Acquire`; drop a sent value now, not when
                // the sender's handle goes.
                drop(unsafe { inner.take_value() });
            }
            // SAFETY: done with the cell.
            unsafe { Inner::release_rx(this) };
        }
    }

    /// Closes the channel: a later `send` fails and gives its value back. A value sent before
    /// the close can still be received.
    pub fn close(&mut self) {
        let Some(inner) = self.inner() else {
            return;
        };
        let prev = state::set_closed(&inner.state);
        if !prev.is_closed() && prev.is_tx_task_set() {
            // SAFETY: `TX_TASK_SET` was set when this call set `CLOSED`, so the slot is ours:
            // the sender does not touch it while the bit is set, and clearing the bit now shows
            // it `CLOSED`, which keeps it away (rule on `TX_TASK_SET`).
            let waker = inner.tx_task.with_mut(|p| unsafe { (*p).take() });
            if let Some(w) = waker {
                w.wake();
            }
        }
    }

    /// Completes the future, budget permitting: takes the value (if any) and lets go of the
    /// channel. With the budget spent the task is woken to come back, and the value waits.
    #[inline]
    fn ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<T, RecvError>> {
        let coop = std::task::ready!(coop::poll_proceed(cx));
        coop.made_progress();
        let this = self
            .inner
            .take()
            .expect("oneshot receiver polled after completion");
        // SAFETY: every caller observed `COMPLETE` with `Acquire`; we are the receiver, and the
        // cell is alive until our release below.
        let value = unsafe { this.as_ref().take_value() };
        // SAFETY: done with the cell.
        unsafe { Inner::release_rx(this) };
        Poll::Ready(value.ok_or(RecvError(())))
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // The budget is spent only when the future completes: it is checked on the ready paths,
        // so the waiting path does not touch it at all.
        let this = self.get_mut();
        let inner = this
            .inner()
            .expect("oneshot receiver polled after completion");
        let st = state::load(&inner.state);
        if st.is_complete() {
            return this.ready(cx);
        }
        if st.is_closed() {
            let coop = std::task::ready!(coop::poll_proceed(cx));
            coop.made_progress();
            if let Some(p) = this.inner.take() {
                // SAFETY: done with the cell.
                unsafe { Inner::release_rx(p) };
            }
            return Poll::Ready(Err(RecvError(())));
        }
        // Take the slot back before touching it; a send in between took the waker to wake.
        if st.is_rx_task_set() && state::unset_rx_task(&inner.state).is_complete() {
            return this.ready(cx);
        }
        Inner::<T>::store_waker(&inner.rx_task, cx);
        if state::set_rx_task(&inner.state).is_complete() {
            return this.ready(cx);
        }
        Poll::Pending
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.terminate();
    }
}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the oneshot sender went away without sending")
    }
}

impl Error for RecvError {}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("no value sent yet"),
            TryRecvError::Closed => f.write_str("no value will be sent"),
        }
    }
}

impl Error for TryRecvError {}

impl<T> fmt::Debug for Inner<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inner")
            .field("state", &state::load(&self.state))
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("inner", &self.inner())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("inner", &self.inner())
            .finish()
    }
}
