//! tokio's `mpsc` shapes over rt's [`channel`](mod@crate::channel): [`channel()`] (bounded),
//! [`unbounded_channel`] with a synchronous [`UnboundedSender::send`], permits
//! ([`Sender::reserve`], [`Permit::send`]), [`Sender::closed`], blocking calls for threads
//! outside the runtime, [`Receiver::recv_many`], weak senders, and the errors at
//! `mpsc::error::…`. Users port by renaming `tokio::sync::mpsc` to `rt::sync::mpsc`.
//!
//! ```
//! # use rt_core::test_support::block_on;
//! use rt_sync::mpsc;
//!
//! let (tx, mut rx) = mpsc::channel(2);
//! block_on(async {
//!     let permit = tx.reserve().await.unwrap(); // a slot is ours: sending cannot fail now
//!     permit.send(1);
//!     tx.send(2).await.unwrap();
//!     assert!(tx.try_send(3).is_err()); // full
//!     drop(tx);
//!     let mut got = Vec::new();
//!     assert_eq!(rx.recv_many(&mut got, 10).await, 2);
//!     assert_eq!(got, [1, 2]);
//!     assert_eq!(rx.recv().await, None);
//! });
//! ```
//!
//! # How it is built
//!
//! A bounded channel has a [`Semaphore`] of `n` slots, as tokio's: a send (or [`Permit`]) takes
//! a slot, the receiver gives it back when it takes the value. Behind it is the queue:
//!
//! - a bounded channel of 1 to `MPSC_RING_MAX` (4,096) slots: the lock-free ring of `permit_ring.rs`, for
//!   many producers and this one consumer. A permit guarantees its push a free slot, so a push
//!   is one `fetch_add`, a write, a stamp, and a fence and a look at the receiver's parking
//!   word (a wake only when it is parked); the receiver pops without a compare-and-swap (its
//!   `head` is its own);
//! - an unbounded channel, or a bounded one above `MPSC_RING_MAX` (whose ring would be allocated up
//!   front): an unbounded [`channel`](mod@crate::channel) (its lock-based hand-off, growing
//!   buffer, FIFO order and cancel-safe `recv`), with the semaphore in front for a bound.
//!
//! The mpsc senders are counted in `Shared::senders`, and the queue is closed when the last mpsc
//! sender goes, so weak senders do not keep it open.
//!
//! # The send word (this file owns its layout)
//!
//! ```text
//!  bit  usize::BITS-1                           1   0
//!      +---------------------------------------+-----------+
//!      |  sends in flight (permits held on the | RX_CLOSED |
//!      |  locked queue of a bound > RING_MAX)  |           |
//!      +---------------------------------------+-----------+
//! ```
//!
//! tokio's rule for [`Receiver::close`]: no new send or permit succeeds, but permits already
//! held still send, and the receiver drains everything before it sees `None`. So the queue may
//! close only once `RX_CLOSED` is set *and* no send is in flight. The rules:
//!
//! 1. A permit first adds one in-flight unit (`begin_send`); if the word it replaced had
//!    `RX_CLOSED`, it takes the unit back (rule 2) and fails. (An unbounded send is not
//!    counted: with no permits to honour, a send that races the close may simply fail, so it
//!    goes straight into the queue, which rule 3 then closes at once.)
//! 2. A send ends (`end_send`: the permit sent or was dropped) by taking its unit back; the one
//!    that takes the last unit while `RX_CLOSED` is set closes the queue.
//! 3. `Receiver::close` (and dropping the receiver) sets `RX_CLOSED`; if no send was in flight
//!    it closes the queue itself. It also closes the semaphore (waiting `reserve`s fail) and
//!    wakes `Sender::closed`.
//!
//! All three are one read-modify-write on the word, so exactly one party sees "closed and none
//! in flight" and closes the queue; a `begin_send` that raced with `close` either counted
//! before it (and its `end_send` closes the queue) or saw `RX_CLOSED`. Closing twice is
//! harmless. Modelled in `loom-tests/tests/mpsc_close.rs`.
//!
//! **On the ring the in-flight count is not kept** (two read-modify-writes per send saved), as
//! in tokio: the word only carries `RX_CLOSED`, rule 3 closes the semaphore but not the ring,
//! and the receiver, finding the ring empty with `RX_CLOSED` set, ends once every slot permit
//! is back (`Shared::ring_done`: the semaphore holds all `bound` permits, so no permit is out
//! and nothing is queued; the semaphore is closed, so none can be taken again). A permit given
//! back unused (or a slot a failed or cancelled `reserve` held) wakes the receiver if it is
//! parked and that slot was the last one out, as tokio wakes a closed receiver only once the
//! channel is idle: the check runs after the wake's fence (`Ring::wake_receiver_if`), so it
//! sees the close and every slot given back before the receiver's last look. The last
//! strong sender going still closes the ring (`Ring::close`). Modelled in
//! `loom-tests/tests/mpsc_ring.rs`.
//!
//! # tokio's `mpsc`
//!
//! `rt::sync::mpsc` has tokio's shapes, so `tokio::sync::mpsc` ports by renaming: `channel(n)`
//! (panics on 0), `unbounded_channel()` whose `send` is **synchronous** (tokio's `let _ =
//! tx.send(msg);` sends), `reserve`/`Permit`, `reserve_owned`/`OwnedPermit`, `closed()`,
//! `send_timeout`, `blocking_send`/`blocking_recv` for plain threads (they panic on a thread that
//! drives tasks), `recv_many`, `WeakSender`, and the errors at `mpsc::error::…`. It runs on rt's
//! MPMC `rt::sync::channel` (still there) with a slot semaphore in front for the bound.
//!
//! ```rust
//! use rt::sync::mpsc;
//!
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! let (tx, mut rx) = mpsc::channel::<u32>(8);
//! let (log_tx, mut log_rx) = mpsc::unbounded_channel::<String>();
//! rt.block_on(async move {
//!     let permit = tx.reserve().await.unwrap(); // a slot is ours now
//!     permit.send(1);
//!     let _ = log_tx.send("sent 1".to_string()); // no .await: it is synchronous
//!     let producer = std::thread::spawn(move || tx.blocking_send(2).unwrap());
//!     let mut batch = Vec::new();
//!     while batch.len() < 2 {
//!         rx.recv_many(&mut batch, 10).await;
//!     }
//!     assert_eq!(batch, [1, 2]);
//!     producer.join().unwrap();
//!     assert_eq!(rx.recv().await, None); // every sender gone
//!     assert_eq!(log_rx.recv().await.as_deref(), Some("sent 1"));
//! });
//! # Ok::<(), std::io::Error>(())
//! ```

/// The methods and impls the senders of either flavour have alike: the strong sender's
/// `downgrade`, `same_channel`, counts, `Clone` and `Drop`, and the weak sender's `upgrade`,
/// counts, `Clone` and `Drop` (`$strong_doc` says what the strong count counts).
macro_rules! senders_common {
    ($strong:ident, $weak:ident, $strong_doc:literal) => {
        impl<T> $strong<T> {
            /// A sender that does not keep the channel open.
            pub fn downgrade(&self) -> $weak<T> {
                self.shared.weak.fetch_add(1, Ordering::Relaxed);
                $weak {
                    shared: self.shared.clone(),
                }
            }

            /// Whether both senders belong to one channel.
            pub fn same_channel(&self, other: &Self) -> bool {
                Arc::ptr_eq(&self.shared, &other.shared)
            }

            #[doc = concat!("Number of ", $strong_doc, " of this channel.")]
            pub fn strong_count(&self) -> usize {
                self.shared.senders.load(Ordering::Acquire)
            }

            #[doc = concat!("Number of `", stringify!($weak), "`s of this channel.")]
            pub fn weak_count(&self) -> usize {
                self.shared.weak.load(Ordering::Acquire)
            }
        }

        impl<T> Clone for $strong<T> {
            fn clone(&self) -> Self {
                self.shared.add_sender();
                $strong {
                    shared: self.shared.clone(),
                }
            }
        }

        impl<T> Drop for $strong<T> {
            fn drop(&mut self) {
                self.shared.drop_sender();
            }
        }

        impl<T> $weak<T> {
            #[doc = concat!("A `", stringify!($strong), "` again, unless every one is gone.")]
            pub fn upgrade(&self) -> Option<$strong<T>> {
                self.shared.upgrade().then(|| $strong {
                    shared: self.shared.clone(),
                })
            }

            #[doc = concat!("Number of ", $strong_doc, " of this channel.")]
            pub fn strong_count(&self) -> usize {
                self.shared.senders.load(Ordering::Acquire)
            }

            #[doc = concat!("Number of `", stringify!($weak), "`s of this channel.")]
            pub fn weak_count(&self) -> usize {
                self.shared.weak.load(Ordering::Acquire)
            }
        }

        impl<T> Clone for $weak<T> {
            fn clone(&self) -> Self {
                self.shared.weak.fetch_add(1, Ordering::Relaxed);
                $weak {
                    shared: self.shared.clone(),
                }
            }
        }

        impl<T> Drop for $weak<T> {
            fn drop(&mut self) {
                self.shared.weak.fetch_sub(1, Ordering::Relaxed);
            }
        }
    };
}

/// The receive methods a receiver of either flavour has alike, all forwarding to its `Rx`
/// (`$weak` names the weak sender type, `$strong_doc` what the strong count counts).
macro_rules! receiver_common {
    ($rx:ident, $weak:ident, $strong_doc:literal) => {
        impl<T> $rx<T> {
            pub(super) fn new(rx: Rx<T>) -> $rx<T> {
                $rx { rx }
            }

            /// The next value; `None` once every sender is gone (or the channel is closed) and
            /// the queue is drained.
            ///
            /// # Cancel safety
            /// Cancel safe: a dropped `recv` future took nothing.
            pub async fn recv(&mut self) -> Option<T> {
                self.rx.recv().await
            }

            /// Waits for at least one value, then moves up to `limit` queued values into
            /// `buffer`. Returns how many it moved: 0 only when `limit` is 0 or the channel is
            /// done.
            ///
            /// # Cancel safety
            /// Cancel safe: a dropped future took nothing.
            pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
                self.rx.recv_many(buffer, limit).await
            }

            /// A value if one is queued now.
            pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
                self.rx.try_recv()
            }

            /// Receives from a thread that is not driving tasks, parking it while the queue is
            /// empty.
            ///
            /// # Panics
            /// On a runtime worker thread or inside `block_on`. Use `recv().await` there.
            #[track_caller]
            pub fn blocking_recv(&mut self) -> Option<T> {
                super::block_on(concat!(stringify!($rx), "::blocking_recv"), self.rx.recv())
            }

            /// Receives up to `limit` values from a thread that is not driving tasks, parking
            /// it while the queue is empty, as [`recv_many`](Self::recv_many).
            ///
            /// # Panics
            /// On a runtime worker thread or inside `block_on`. Use `recv_many(..).await` there.
            #[track_caller]
            pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
                super::block_on(
                    concat!(stringify!($rx), "::blocking_recv_many"),
                    self.rx.recv_many(buffer, limit),
                )
            }

            /// Polls for the next value (for hand-written futures and streams).
            pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
                self.rx.poll_recv(cx)
            }

            /// Polls for up to `limit` values, appended to `buffer` (for hand-written futures
            /// and streams): `Ready(0)` when `limit` is 0 or the channel is closed and empty,
            /// as [`recv_many`](Self::recv_many).
            pub fn poll_recv_many(
                &mut self,
                cx: &mut Context<'_>,
                buffer: &mut Vec<T>,
                limit: usize,
            ) -> Poll<usize> {
                self.rx.poll_recv_many(cx, buffer, limit)
            }

            /// Whether the channel is closed (by [`close`](Self::close), or every sender is
            /// gone).
            pub fn is_closed(&self) -> bool {
                self.rx.is_closed()
            }

            /// Number of queued values.
            pub fn len(&self) -> usize {
                self.rx.len()
            }

            /// Whether nothing is queued.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            #[doc = concat!("Number of ", $strong_doc, " of this channel.")]
            pub fn sender_strong_count(&self) -> usize {
                self.rx.shared.senders.load(Ordering::Acquire)
            }

            #[doc = concat!("Number of `", stringify!($weak), "`s of this channel.")]
            pub fn sender_weak_count(&self) -> usize {
                self.rx.shared.weak.load(Ordering::Acquire)
            }
        }
    };
}

mod bounded;
pub mod error;
mod permit_ring;
mod unbounded;

use std::task::{Context, Poll};

use futures_core::Stream;
use rt_core::coop;
use rt_core::sync::{AtomicUsize, Ordering};

use crate::block_on::block_on;
use crate::channel;
use crate::notify::Notify;
use crate::semaphore::Semaphore;

use self::permit_ring::Ring;
use crate::tuning::MPSC_RING_MAX;

pub use self::bounded::{OwnedPermit, Permit, PermitIterator, Receiver, Sender, WeakSender};
pub use self::unbounded::{UnboundedReceiver, UnboundedSender, WeakUnboundedSender};

/// A bounded channel with room for `buffer` values: `send` waits while it is full.
///
/// # Panics
/// When `buffer` is 0 (tokio's rule; for a rendezvous use `rt::sync::channel::bounded(0)`).
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    let (shared, rx) = Shared::new(Some(buffer));
    (
        Sender::new(shared.clone()),
        Receiver::new(Rx::new(shared, rx)),
    )
}

/// A channel without a bound: [`UnboundedSender::send`] never waits (it is not `async`).
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (shared, rx) = Shared::new(None);
    (
        UnboundedSender::new(shared.clone()),
        UnboundedReceiver::new(Rx::new(shared, rx)),
    )
}

type Padded<T> = crossbeam_utils::CachePadded<T>;

const RX_CLOSED: usize = 1;
const IN_FLIGHT: usize = 2;

/// The queue behind the slots (module docs).
// One per channel, inside its `Arc`: boxing the ring would add a pointer chase per operation.
#[allow(clippy::large_enum_variant)]
enum Queue<T> {
    /// A bounded channel of at most `MPSC_RING_MAX` slots.
    Ring(Ring<T>),
    /// The unbounded MPMC channel's one sender.
    Locked(channel::Sender<T>),
}

/// The receiver's end of the queue.
enum RxQueue<T> {
    /// The consumer's position in the ring.
    Ring {
        head: usize,
    },
    Locked(channel::Receiver<T>),
}

/// What the senders and the receiver of one channel share.
pub(crate) struct Shared<T> {
    queue: Queue<T>,
    /// Free slots of a bounded channel; `None` when unbounded. Written by both sides, so on a
    /// cache line of its own (as `word`, written by senders only): off the lines the ring's
    /// read-only fields and the counts are read from.
    slots: Option<Padded<Semaphore>>,
    bound: usize,
    /// Strong senders (a `Sender`/`UnboundedSender`, or an `OwnedPermit` holding one).
    senders: AtomicUsize,
    /// Weak senders.
    weak: AtomicUsize,
    /// The send word (module docs).
    word: Padded<AtomicUsize>,
    /// Woken by rule 3, for `Sender::closed`.
    rx_closed: Notify,
}

impl<T> Shared<T> {
    fn new(bound: Option<usize>) -> (rt_core::sync::Arc<Shared<T>>, RxQueue<T>) {
        let (queue, rx) = match bound {
            Some(b) if b <= MPSC_RING_MAX => (Queue::Ring(Ring::new(b)), RxQueue::Ring { head: 0 }),
            _ => {
                let (tx, rx) = channel::unbounded();
                (Queue::Locked(tx), RxQueue::Locked(rx))
            }
        };
        let shared = rt_core::sync::Arc::new(Shared {
            queue,
            slots: bound.map(|b| Padded::new(Semaphore::new(b))),
            bound: bound.unwrap_or(usize::MAX),
            senders: AtomicUsize::new(1),
            weak: AtomicUsize::new(0),
            word: Padded::new(AtomicUsize::new(0)),
            rx_closed: Notify::new(),
        });
        (shared, rx)
    }

    /// Closes the queue: the receiver drains it, then sees `None`.
    fn close_queue(&self) {
        match &self.queue {
            Queue::Ring(ring) => ring.close(),
            Queue::Locked(tx) => {
                tx.close();
            }
        }
    }

    /// Rule 1. Returns whether the send may go ahead.
    fn begin_send(&self) -> bool {
        let prev = self.word.fetch_add(IN_FLIGHT, Ordering::AcqRel);
        if prev & RX_CLOSED != 0 {
            self.end_send();
            return false;
        }
        true
    }

    /// A permit (or send) may begin: on the ring unless the receiver has closed (its slot
    /// semaphore is closed with the receiver and the receiver counts permits out, module docs;
    /// the check only refuses a slot the semaphore assigned before the close, as tokio's
    /// `reserve` does); rule 1 on the locked queue.
    fn begin_permit(&self) -> bool {
        match &self.queue {
            Queue::Ring(_) => !self.is_closed(),
            Queue::Locked(_) => self.begin_send(),
        }
    }

    /// A permit went unused: its slot goes back (rule 2 on the locked queue). On the ring, a
    /// receiver that closed may be waiting for the last permit out: it is woken if this was
    /// the last one.
    fn drop_permit(&self) {
        match &self.queue {
            Queue::Ring(ring) => {
                self.release_slots(1);
                ring.wake_receiver_if(|| self.ring_done());
            }
            Queue::Locked(_) => {
                self.end_send();
                self.release_slots(1);
            }
        }
    }

    /// A `reserve` that waited for slots ended without a permit (it failed on the closed
    /// channel, or was cancelled): any slot the semaphore had assigned it is back now, which
    /// may be the last one a closed ring's receiver waits for (`ring_done`), so it is woken if
    /// it was.
    fn slot_wait_abandoned(&self) {
        if let Queue::Ring(ring) = &self.queue {
            ring.wake_receiver_if(|| self.ring_done());
        }
    }

    /// On the ring: the receiver closed and every slot is back (no permit out, nothing queued),
    /// so nothing more can come.
    fn ring_done(&self) -> bool {
        self.is_closed()
            && self
                .slots
                .as_ref()
                .is_some_and(|s| s.available_permits() == self.bound)
    }

    /// Rule 2.
    fn end_send(&self) {
        let prev = self.word.fetch_sub(IN_FLIGHT, Ordering::AcqRel);
        if prev == RX_CLOSED | IN_FLIGHT {
            self.close_queue();
        }
    }

    /// Rule 3.
    fn close_rx(&self) {
        let prev = self.word.fetch_or(RX_CLOSED, Ordering::AcqRel);
        if prev & RX_CLOSED != 0 {
            return;
        }
        if prev == 0 && matches!(self.queue, Queue::Locked(_)) {
            // (The ring is not closed here: its receiver waits for the permits out instead.)
            self.close_queue();
        }
        if let Some(slots) = &self.slots {
            slots.close();
        }
        self.rx_closed.notify_waiters();
    }

    /// Whether the receiver is closed or gone.
    fn is_closed(&self) -> bool {
        self.word.load(Ordering::Acquire) & RX_CLOSED != 0
    }

    /// Pushes `value` for a send that went through `begin_permit` or `begin_send` (holding a
    /// slot, if bounded), then ends it. Fails only on the locked queue once the receiver is gone.
    fn push(&self, value: T) -> Result<(), T> {
        match &self.queue {
            Queue::Ring(ring) => {
                ring.push(value);
                Ok(())
            }
            Queue::Locked(tx) => {
                let out = tx.try_send(value).map_err(|e| e.into_inner());
                self.end_send();
                out
            }
        }
    }

    /// An unbounded send: straight into the locked queue, which `close_rx` closes at once (no
    /// send of an unbounded channel is ever counted in flight).
    fn push_unbounded(&self, value: T) -> Result<(), T> {
        match &self.queue {
            Queue::Locked(tx) => tx.try_send(value).map_err(|e| e.into_inner()),
            Queue::Ring(_) => unreachable!("an unbounded channel has the locked queue"),
        }
    }

    /// Returns `n` slots (a permit dropped unused, or values taken by the receiver).
    fn release_slots(&self, n: usize) {
        if let (Some(slots), true) = (&self.slots, n > 0) {
            slots.add_permits(n);
        }
    }

    /// A new strong sender (`Clone`).
    fn add_sender(&self) {
        self.senders.fetch_add(1, Ordering::Relaxed);
    }

    /// A strong sender from a weak one, unless every strong sender is gone.
    fn upgrade(&self) -> bool {
        let mut n = self.senders.load(Ordering::Relaxed);
        loop {
            if n == 0 {
                return false;
            }
            match self
                .senders
                .compare_exchange_weak(n, n + 1, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(actual) => n = actual,
            }
        }
    }

    /// A strong sender went; the last one closes the queue (the receiver drains, then `None`).
    fn drop_sender(&self) {
        if self.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.close_queue();
        }
    }

    /// Waits until the receiver is closed or gone.
    async fn closed(&self) {
        loop {
            // Created before the check: a `notify_waiters` after it is not missed.
            let notified = self.rx_closed.notified();
            if self.is_closed() {
                return;
            }
            notified.await;
        }
    }
}

/// The receiving half both receivers share.
pub(crate) struct Rx<T> {
    shared: rt_core::sync::Arc<Shared<T>>,
    queue: RxQueue<T>,
}

impl<T> Rx<T> {
    fn new(shared: rt_core::sync::Arc<Shared<T>>, queue: RxQueue<T>) -> Rx<T> {
        Rx { shared, queue }
    }

    /// The next value without waiting: `Ok`, or `Err(closed)`.
    fn take(&mut self) -> Result<T, bool> {
        match (&mut self.queue, &self.shared.queue) {
            (RxQueue::Ring { head }, Queue::Ring(ring)) => {
                ring.try_pop(head, || self.shared.ring_done())
            }
            (RxQueue::Locked(rx), _) => rx.try_recv().map_err(|e| match e {
                channel::TryRecvError::Empty => false,
                channel::TryRecvError::Closed => true,
            }),
            _ => unreachable!("the two ends of a queue are of one kind"),
        }
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let out = match (&mut self.queue, &self.shared.queue) {
            (RxQueue::Ring { head }, Queue::Ring(ring)) => {
                let coop = std::task::ready!(coop::poll_proceed(cx));
                let out = ring.poll_pop(head, cx, || self.shared.ring_done());
                if out.is_ready() {
                    coop.made_progress();
                }
                out
            }
            (RxQueue::Locked(rx), _) => std::pin::Pin::new(rx).poll_next(cx),
            _ => unreachable!("the two ends of a queue are of one kind"),
        };
        if let Poll::Ready(Some(_)) = out {
            self.shared.release_slots(1);
        }
        out
    }

    async fn recv(&mut self) -> Option<T> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    fn try_recv(&mut self) -> Result<T, error::TryRecvError> {
        match self.take() {
            Ok(v) => {
                self.shared.release_slots(1);
                Ok(v)
            }
            Err(false) => Err(error::TryRecvError::Empty),
            Err(true) => Err(error::TryRecvError::Disconnected),
        }
    }

    async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        std::future::poll_fn(|cx| self.poll_recv_many(cx, buffer, limit)).await
    }

    fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        let Some(first) = std::task::ready!(self.poll_recv(cx)) else {
            return Poll::Ready(0);
        };
        buffer.push(first);
        let mut taken = 0;
        while taken + 1 < limit {
            match self.take() {
                Ok(v) => {
                    buffer.push(v);
                    taken += 1;
                }
                Err(_) => break,
            }
        }
        self.shared.release_slots(taken);
        Poll::Ready(taken + 1)
    }

    fn close(&mut self) {
        self.shared.close_rx();
    }

    fn is_closed(&self) -> bool {
        self.shared.is_closed()
            || match (&self.queue, &self.shared.queue) {
                (RxQueue::Ring { .. }, Queue::Ring(ring)) => ring.is_closed(),
                (RxQueue::Locked(rx), _) => rx.is_closed(),
                _ => unreachable!("the two ends of a queue are of one kind"),
            }
    }

    fn len(&self) -> usize {
        match (&self.queue, &self.shared.queue) {
            (RxQueue::Ring { head }, Queue::Ring(ring)) => ring.len(*head),
            (RxQueue::Locked(rx), _) => rx.len(),
            _ => unreachable!("the two ends of a queue are of one kind"),
        }
    }
}

impl<T> Drop for Rx<T> {
    fn drop(&mut self) {
        // Rule 3. The locked queue's receiver then drops, which closes it and drops what is
        // queued; the ring is drained here, and a permit that sends after this leaves its value
        // for the ring's `Drop`.
        self.shared.close_rx();
        if let (RxQueue::Ring { head }, Queue::Ring(ring)) = (&mut self.queue, &self.shared.queue) {
            while ring.pop(head).is_some() {}
            ring.receiver_gone();
        }
    }
}

// The handles are `UnwindSafe` and `RefUnwindSafe` whatever `T` is, as tokio's: the channel's
// state changes by single atomic operations or under the queue's lock, and a value is moved
// into or out of the queue whole, so a panic never leaves a value or a count half-updated for
// the other side to see.
macro_rules! unwind_safe {
    ($($t:ident $(<$l:lifetime>)?),*) => {
        $(
            impl<$($l,)? T> std::panic::UnwindSafe for $t<$($l,)? T> {}
            impl<$($l,)? T> std::panic::RefUnwindSafe for $t<$($l,)? T> {}
        )*
    };
}

unwind_safe!(
    Sender,
    Receiver,
    Permit<'a>,
    PermitIterator<'a>,
    OwnedPermit,
    WeakSender,
    UnboundedSender,
    UnboundedReceiver,
    WeakUnboundedSender
);
