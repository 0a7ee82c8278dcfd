//! The bounded channel's handles: [`Sender`], [`Receiver`], [`Permit`], [`PermitIterator`],
//! [`OwnedPermit`], [`WeakSender`].

use std::fmt;
use std::task::{Context, Poll};

use rt_core::sync::{Arc, Ordering};

use super::error::{SendError, TryRecvError, TrySendError};
use super::{Rx, Shared};
use crate::semaphore::TryAcquireError;

/// Sends values into a bounded channel; cloning adds a sender. The channel's receiver sees
/// `None` once every `Sender` is gone and the queue is drained.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives values from a bounded channel.
pub struct Receiver<T> {
    rx: Rx<T>,
}

/// A slot reserved by [`Sender::reserve`]: [`send`](Permit::send) cannot fail or wait.
/// Dropping it unused gives the slot back.
pub struct Permit<'a, T> {
    sender: &'a Sender<T>,
}

/// Slots reserved by [`Sender::reserve_many`] or [`Sender::try_reserve_many`]: yields one
/// [`Permit`] per slot. Dropping it gives the slots of the permits not yet taken back.
pub struct PermitIterator<'a, T> {
    sender: &'a Sender<T>,
    n: usize,
}

/// A slot reserved by [`Sender::reserve_owned`]; holds the sender it came from.
pub struct OwnedPermit<T> {
    sender: Option<Sender<T>>,
}

/// A sender that does not keep the channel open; [`upgrade`](WeakSender::upgrade) it to send.
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Sender<T> {
    pub(super) fn new(shared: Arc<Shared<T>>) -> Sender<T> {
        Sender { shared }
    }

    fn slots(&self) -> &crate::semaphore::Semaphore {
        self.shared
            .slots
            .as_deref()
            .expect("a bounded channel has slots")
    }

    /// Waits for a slot and sends `value`; fails, giving it back, once the receiver is closed
    /// or gone.
    ///
    /// # Cancel safety
    /// If the future is dropped before it completes, `value` was not sent (and is dropped); the
    /// place in the queue of waiting senders is lost. Use [`reserve`](Sender::reserve) to keep
    /// the value.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        match self.reserve().await {
            Ok(permit) => {
                permit.send(value);
                Ok(())
            }
            Err(_) => Err(SendError(value)),
        }
    }

    /// Sends `value` if a slot is free now.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        match self.try_reserve() {
            Ok(permit) => {
                permit.send(value);
                Ok(())
            }
            Err(TrySendError::Full(())) => Err(TrySendError::Full(value)),
            Err(TrySendError::Closed(())) => Err(TrySendError::Closed(value)),
        }
    }

    /// Like [`send`](Sender::send), giving up after `timeout`, on the runtime's timer
    /// (`rt_core::timer`, which rt-io provides).
    ///
    /// # Panics
    /// Outside an rt runtime (the timer needs one).
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: std::time::Duration,
    ) -> Result<(), super::error::SendTimeoutError<T>> {
        use super::error::SendTimeoutError;
        match rt_core::timer::timeout(timeout, self.reserve()).await {
            Some(Ok(permit)) => {
                permit.send(value);
                Ok(())
            }
            Some(Err(_)) => Err(SendTimeoutError::Closed(value)),
            None => Err(SendTimeoutError::Timeout(value)),
        }
    }

    /// Sends from a thread that is not driving tasks (a plain thread, a `spawn_blocking`
    /// closure), parking it while the channel is full.
    ///
    /// # Panics
    /// On a runtime worker thread or inside `block_on`: it would block the thread that drives
    /// tasks. Use `send(..).await` there.
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        super::block_on("Sender::blocking_send", self.send(value))
    }

    /// Waits for a slot and reserves it.
    ///
    /// # Cancel safety
    /// Cancel safe in that no slot is lost, but the place in the queue of waiting senders is.
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        // A free slot is taken without building the waiting future (no barging: while anyone
        // waits the semaphore's word holds no permits).
        match self.slots().try_acquire_raw(1) {
            Ok(()) => {}
            Err(TryAcquireError::Closed) => return Err(SendError(())),
            Err(TryAcquireError::NoPermits) => self.wait_for_slots(1).await?,
        }
        self.permit_for_slot().ok_or(SendError(()))
    }

    /// Reserves a slot if one is free now.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        match self.slots().try_acquire_raw(1) {
            Ok(()) => {}
            Err(TryAcquireError::NoPermits) => return Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => return Err(TrySendError::Closed(())),
        }
        self.permit_for_slot().ok_or(TrySendError::Closed(()))
    }

    /// Waits for `n` slots at once and reserves them, as tokio's `reserve_many`: the returned
    /// iterator yields `n` permits. Fails when the channel is closed, or when `n` exceeds
    /// [`max_capacity`](Sender::max_capacity) (it could never be satisfied). `n == 0` gives an
    /// empty iterator.
    ///
    /// # Cancel safety
    /// Cancel safe in that no slot is lost, but the place in the queue of waiting senders is.
    ///
    /// ```
    /// # rt_core::test_support::block_on(async {
    /// let (tx, mut rx) = rt_sync::mpsc::channel(2);
    /// let mut permits = tx.reserve_many(2).await.unwrap();
    /// assert!(tx.try_send(0).is_err()); // both slots are taken
    /// permits.next().unwrap().send(1);
    /// permits.next().unwrap().send(2);
    /// assert!(permits.next().is_none());
    /// assert_eq!((rx.recv().await, rx.recv().await), (Some(1), Some(2)));
    /// # });
    /// ```
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        if n > self.max_capacity() {
            return Err(SendError(()));
        }
        match self.slots().try_acquire_raw(n) {
            Ok(()) => {}
            Err(TryAcquireError::Closed) => return Err(SendError(())),
            Err(TryAcquireError::NoPermits) => self.wait_for_slots(n).await?,
        }
        self.permits_for_slots(n).ok_or(SendError(()))
    }

    /// Reserves `n` slots if they are all free now, as tokio's `try_reserve_many`. `Full` when
    /// they are not, or when `n` exceeds [`max_capacity`](Sender::max_capacity); `Closed` when
    /// the receiver is closed or gone.
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        if n > self.max_capacity() {
            return Err(TrySendError::Full(()));
        }
        match self.slots().try_acquire_raw(n) {
            Ok(()) => {}
            Err(TryAcquireError::NoPermits) => return Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => return Err(TrySendError::Closed(())),
        }
        self.permits_for_slots(n).ok_or(TrySendError::Closed(()))
    }

    /// Waits for `n` slots. Failing or cancelled, it wakes a closed receiver that may be
    /// waiting for the slot the wait gave back (`Shared::slot_wait_abandoned`).
    async fn wait_for_slots(&self, n: usize) -> Result<(), SendError<()>> {
        struct Abandoned<'a, T> {
            shared: &'a Shared<T>,
            armed: bool,
        }
        impl<T> Drop for Abandoned<'_, T> {
            fn drop(&mut self) {
                if self.armed {
                    self.shared.slot_wait_abandoned();
                }
            }
        }
        // Declared before the wait, so on cancellation it drops after the wait has given its
        // slots back.
        let mut abandoned = Abandoned {
            shared: &self.shared,
            armed: true,
        };
        let acquired = self.slots().acquire_raw(n).await;
        abandoned.armed = acquired.is_err();
        acquired.map_err(|_| SendError(()))
    }

    /// With `n` slots taken: counts `n` sends in flight (rule 1), or gives every slot back.
    fn permits_for_slots(&self, n: usize) -> Option<PermitIterator<'_, T>> {
        for begun in 0..n {
            if !self.shared.begin_permit() {
                for _ in 0..begun {
                    self.shared.drop_permit();
                }
                self.shared.release_slots(n - begun);
                self.shared.slot_wait_abandoned();
                return None;
            }
        }
        Some(PermitIterator { sender: self, n })
    }

    /// With a slot taken: counts the send in flight (rule 1) or gives the slot back.
    fn permit_for_slot(&self) -> Option<Permit<'_, T>> {
        if self.shared.begin_permit() {
            Some(Permit { sender: self })
        } else {
            self.shared.release_slots(1);
            // The slot may be the last one a closed receiver waits for.
            self.shared.slot_wait_abandoned();
            None
        }
    }

    /// [`reserve`](Sender::reserve) for a permit that owns this sender (to move it elsewhere).
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        self.reserve().await?.forget_into_flight();
        Ok(OwnedPermit { sender: Some(self) })
    }

    /// [`try_reserve`](Sender::try_reserve) for a permit that owns this sender.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        let reserved = self.try_reserve().map(Permit::forget_into_flight);
        match reserved {
            Ok(()) => Ok(OwnedPermit { sender: Some(self) }),
            Err(TrySendError::Full(())) => Err(TrySendError::Full(self)),
            Err(TrySendError::Closed(())) => Err(TrySendError::Closed(self)),
        }
    }

    /// Completes when the receiver is closed or dropped.
    pub async fn closed(&self) {
        self.shared.closed().await;
    }

    /// Whether the receiver is closed or dropped.
    pub fn is_closed(&self) -> bool {
        self.shared.is_closed()
    }

    /// Free slots now.
    pub fn capacity(&self) -> usize {
        self.slots().available_permits()
    }

    /// The bound given to [`channel`](super::channel()).
    pub fn max_capacity(&self) -> usize {
        self.shared.bound
    }
}

impl<T> Permit<'_, T> {
    /// Sends `value` into the reserved slot. If the receiver is gone the value is dropped.
    pub fn send(self, value: T) {
        let shared = &self.sender.shared;
        std::mem::forget(self);
        // Fails only when the receiver is gone: the value drops with the error, as in tokio.
        let _ = shared.push(value);
    }

    /// Hands the slot and the in-flight count to an `OwnedPermit` (no drop).
    fn forget_into_flight(self) {
        std::mem::forget(self);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.sender.shared.drop_permit();
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(Permit {
            sender: self.sender,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}

impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        for _ in 0..self.n {
            self.sender.shared.drop_permit();
        }
    }
}

impl<T> OwnedPermit<T> {
    /// Sends `value` into the reserved slot and returns the sender.
    pub fn send(mut self, value: T) -> Sender<T> {
        let sender = self
            .sender
            .take()
            .expect("an unused permit holds its sender");
        let _ = sender.shared.push(value);
        sender
    }

    /// Gives the slot back unused and returns the sender.
    pub fn release(mut self) -> Sender<T> {
        let sender = self
            .sender
            .take()
            .expect("an unused permit holds its sender");
        sender.shared.drop_permit();
        sender
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(sender) = self.sender.take() {
            sender.shared.drop_permit();
        }
    }
}

senders_common!(Sender, WeakSender, "`Sender`s (and owned permits)");

receiver_common!(Receiver, WeakSender, "`Sender`s (and owned permits)");

impl<T> Receiver<T> {
    /// Closes the channel to new sends and permits; permits already held still send, and what
    /// is queued can still be received.
    pub fn close(&mut self) {
        self.rx.close();
    }

    /// Free slots now.
    pub fn capacity(&self) -> usize {
        self.rx
            .shared
            .slots
            .as_ref()
            .map_or(0, |s| s.available_permits())
    }

    /// The bound given to [`channel`](super::channel()).
    pub fn max_capacity(&self) -> usize {
        self.rx.shared.bound
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("max_capacity", &self.shared.bound)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("max_capacity", &self.rx.shared.bound)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermitIterator")
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedPermit").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakSender").finish_non_exhaustive()
    }
}
