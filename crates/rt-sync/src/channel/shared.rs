//! What every `Sender` and `Receiver` of one channel share: the counts of each end and the
//! channel itself, in one of two flavours. A bounded channel of capacity 1 to `CHANNEL_RING_MAX` runs on
//! the lock-free slot ring (`ring_chan.rs`); a rendezvous, an unbounded channel and a larger
//! bounded one on the locked ring of `chan.rs`, whose buffer grows on demand.

use std::task::{Context, Poll};

use rt_core::sync::{AtomicUsize, Ordering};
use rt_core::wait_queue::Key;

use super::chan::{Chan, SendState};
use super::error::{SendError, TryRecvError, TrySendError};
use super::ring_chan::RingChan;
use super::send::SendSide;
use crate::tuning::CHANNEL_RING_MAX;

#[derive(Debug)]
enum Flavor<T> {
    Locked(Chan<T>),
    Ring(RingChan<T>),
}

#[derive(Debug)]
pub(super) struct Shared<T> {
    flavor: Flavor<T>,
    pub(super) senders: AtomicUsize,
    pub(super) receivers: AtomicUsize,
}

/// Calls the same method on whichever flavour the channel is.
macro_rules! forward {
    ($self:ident.$method:ident($($arg:expr),*)) => {
        match &$self.flavor {
            Flavor::Locked(c) => c.$method($($arg),*),
            Flavor::Ring(c) => c.$method($($arg),*),
        }
    };
}

impl<T> Shared<T> {
    pub(super) fn new(cap: Option<usize>) -> Shared<T> {
        let flavor = match cap {
            Some(c) if (1..=CHANNEL_RING_MAX).contains(&c) => Flavor::Ring(RingChan::new(c)),
            _ => Flavor::Locked(Chan::new(cap)),
        };
        Shared {
            flavor,
            senders: AtomicUsize::new(1),
            receivers: AtomicUsize::new(1),
        }
    }

    pub(super) fn capacity(&self) -> Option<usize> {
        forward!(self.capacity())
    }

    pub(super) fn len(&self) -> usize {
        forward!(self.len())
    }

    pub(super) fn is_closed(&self) -> bool {
        forward!(self.is_closed())
    }

    pub(super) fn close(&self) -> bool {
        forward!(self.close())
    }

    pub(super) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        forward!(self.try_send(value))
    }

    pub(super) fn poll_send(
        &self,
        cx: &mut Context<'_>,
        st: &mut SendState<T>,
    ) -> Poll<Result<(), SendError<T>>> {
        forward!(self.poll_send(cx, st))
    }

    pub(super) fn cancel_send(&self, key: Key, ticket: u64) -> Option<T> {
        forward!(self.cancel_send(key, ticket))
    }

    pub(super) fn try_recv(&self) -> Result<T, TryRecvError> {
        forward!(self.try_recv())
    }

    pub(super) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        waiting: &mut Option<Key>,
    ) -> Poll<Option<T>> {
        forward!(self.poll_recv(cx, waiting))
    }

    pub(super) fn cancel_recv(&self, key: Key) {
        forward!(self.cancel_recv(key))
    }

    /// Drops a `Sender`; the last one closes the channel.
    pub(super) fn release_sender(&self) {
        if self.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.close();
        }
    }

    /// Drops a `Receiver`; the last one closes the channel and drops what is buffered, since no
    /// receiver can ever come back for it.
    pub(super) fn release_receiver(&self) {
        if self.receivers.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.close();
            forward!(self.drop_buffered());
        }
    }
}
