//! A sender's side of the protocol, the same in both flavours (`chan.rs`'s rules 1–3; in
//! `ring_chan.rs` the same rules over the slot ring): offer the value; with no room, queue it
//! in `blocked` with a ticket and wait until a receiver takes it (its ticket falls below
//! `served`, or its entry is gone), or the channel closes and the value comes back. Only how a
//! value is offered and how the state is locked differ between the flavours; they implement
//! [`SendSide`] and get `try_send`, `poll_send` and `cancel_send` from here.

use std::task::{Context, Poll};

use rt_core::coop;
use rt_core::sync::{AtomicU64, Ordering};
use rt_core::wait_queue::{Key, WaitQueue};

use super::chan::SendState;
use super::error::{SendError, TrySendError};
use super::state::{Blocked, Offered};
use crate::waiters::set_waker;

pub(super) trait SendSide<T> {
    /// Offers `value`: into the buffer if there is room; else, with `cx`, queued in `blocked`
    /// (`Ok(Some((key, ticket)))`); else back (`Err((value, closed))`). Wakes whom the offer
    /// must, outside the lock.
    fn offer_waking(&self, value: T, cx: Option<&Context<'_>>) -> Offered<T>;

    /// One past the highest ticket a receiver has taken (release under the lock).
    fn served(&self) -> &AtomicU64;

    /// Runs `f` on the blocked senders and the closed flag under the state lock, then
    /// publishes the queue lengths as the flavour does after every change.
    fn with_blocked<R>(&self, f: impl FnOnce(&mut WaitQueue<Blocked<T>>, bool) -> R) -> R;

    /// Whether a receiver has taken the blocked entry with this ticket (no lock needed).
    fn is_served(&self, ticket: u64) -> bool {
        self.served().load(Ordering::Acquire) > ticket
    }

    fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        match self.offer_waking(value, None) {
            Ok(_) => Ok(()),
            Err((value, true)) => Err(TrySendError::Closed(value)),
            Err((value, false)) => Err(TrySendError::Full(value)),
        }
    }

    /// Rules 1 and 2.
    fn poll_send(
        &self,
        cx: &mut Context<'_>,
        st: &mut SendState<T>,
    ) -> Poll<Result<(), SendError<T>>> {
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let out = match std::mem::replace(st, SendState::Done) {
            SendState::Done => panic!("send future polled after completion"),
            // A receiver took the value (rule 3); no need for the lock.
            SendState::Blocked(_, ticket) if self.is_served(ticket) => Poll::Ready(Ok(())),
            SendState::Blocked(key, ticket) => self.with_blocked(|blocked, closed| {
                match blocked.get_mut(key) {
                    // A receiver took the value (rule 3).
                    None => Poll::Ready(Ok(())),
                    Some(b) if !closed => {
                        set_waker(&mut b.waker, cx.waker());
                        *st = SendState::Blocked(key, ticket);
                        Poll::Pending
                    }
                    Some(_) => {
                        let b = blocked.remove(key).expect("entry just seen");
                        Poll::Ready(Err(SendError(b.value)))
                    }
                }
            }),
            SendState::Idle(value) => match self.offer_waking(value, Some(cx)) {
                Ok(None) => Poll::Ready(Ok(())),
                Ok(Some((key, ticket))) => {
                    *st = SendState::Blocked(key, ticket);
                    Poll::Pending
                }
                Err((value, _)) => Poll::Ready(Err(SendError(value))),
            },
        };
        if out.is_ready() {
            coop.made_progress();
        }
        out
    }

    /// A send future dropped: a value still queued goes back with it (rule 2).
    fn cancel_send(&self, key: Key, ticket: u64) -> Option<T> {
        if self.is_served(ticket) {
            return None;
        }
        self.with_blocked(|blocked, _| blocked.remove(key).map(|b| b.value))
    }
}
