//! The registration slab: every live registration's [`ScheduledIo`], found by mio token.
//!
//! A token names a slot and the generation the slot had when the token was issued:
//!
//! ```text
//!  63             48 47                  24 23                   0
//! +-----------------+----------------------+----------------------+
//! |     unused      |      generation      |        index         |
//! +-----------------+----------------------+----------------------+
//! ```
//!
//! The generation is the readiness word's (its width is `readiness::GENERATION_BITS`); releasing a
//! slot bumps it, so events still queued for the previous owner's token are recognised as stale.
//! Tokens never reach the two reserved tokens at the top of the range (`driver.rs`).
//!
//! Slots are never freed, only reused: a connection-heavy process keeps its peak number of
//! `ScheduledIo`s (about 100 bytes each) allocated.

use std::io;
use std::task::Waker;

use rt_core::sync::{Arc, Mutex, MutexGuard};

use crate::readiness::{Ready, GENERATION_BITS};
use crate::scheduled_io::ScheduledIo;

const INDEX_BITS: u32 = 24;
const INDEX_MASK: usize = (1 << INDEX_BITS) - 1;
const GENERATION_MASK: usize = (1 << GENERATION_BITS) - 1;

// The token layout needs 48 bits.
const _: () = assert!(usize::BITS >= 64, "rt-io needs a 64-bit target");

/// Packs a slot index and generation into a token value.
pub(crate) fn token(index: usize, generation: u32) -> mio::Token {
    debug_assert!(index <= INDEX_MASK);
    mio::Token((generation as usize & GENERATION_MASK) << INDEX_BITS | index)
}

/// Splits a token value into slot index and generation.
fn split(token: mio::Token) -> (usize, u32) {
    (
        token.0 & INDEX_MASK,
        ((token.0 >> INDEX_BITS) & GENERATION_MASK) as u32,
    )
}

/// Every registration slot, behind one lock. (Not to be confused with the frame pool's slabs in
/// `rt-core/src/pool/slab.rs`, which are memory.)
///
/// Lock order: the slab lock, then a slot's waiter lock (`ScheduledIo` never takes the slab lock).
#[derive(Debug)]
pub(crate) struct RegistrationSlab {
    inner: Mutex<Slots>,
}

/// The slab's contents, under its lock.
#[derive(Debug, Default)]
struct Slots {
    slots: Vec<Arc<ScheduledIo>>,
    free: Vec<usize>,
    /// Set once the reactor stopped: no slot is handed out after it.
    closed: bool,
    live: usize,
}

/// A slot handed out by [`RegistrationSlab::alloc`].
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) index: usize,
    pub(crate) token: mio::Token,
    pub(crate) io: Arc<ScheduledIo>,
}

impl RegistrationSlab {
    pub(crate) fn new() -> RegistrationSlab {
        RegistrationSlab {
            inner: Mutex::new(Slots::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        // Every change under this lock is completed before anything can panic.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands out a free slot, or `None` once the slab is closed.
    pub(crate) fn alloc(&self) -> Option<io::Result<Slot>> {
        let mut inner = self.lock();
        if inner.closed {
            return None;
        }
        let index = match inner.free.pop() {
            Some(i) => i,
            None => {
                if inner.slots.len() > INDEX_MASK {
                    return Some(Err(io::Error::other("rt-io: too many registrations (16M)")));
                }
                inner.slots.push(Arc::new(ScheduledIo::new()));
                inner.slots.len() - 1
            }
        };
        inner.live += 1;
        let io = inner.slots[index].clone();
        let token = token(index, io.generation());
        Some(Ok(Slot { index, token, io }))
    }

    /// Returns a slot: bumps its generation (taking its wakers) and makes it reusable.
    pub(crate) fn release(&self, index: usize) {
        let mut dropped = Vec::new();
        {
            let mut inner = self.lock();
            inner.slots[index].reset(&mut dropped);
            if inner.closed {
                // Keep the shutdown visible: a reused slot must not look like a running one.
                inner.slots[index].shutdown(&mut dropped);
            }
            inner.free.push(index);
            inner.live -= 1;
        }
        // Outside the lock: dropping a waker may drop a task and, with it, another registration.
        drop(dropped);
    }

    /// Delivers one poll's events, pushing the wakers to run onto `wakers`.
    pub(crate) fn dispatch(
        &self,
        events: impl Iterator<Item = (mio::Token, Ready)>,
        wakers: &mut Vec<Waker>,
    ) {
        let inner = self.lock();
        for (token, ready) in events {
            let (index, generation) = split(token);
            if let Some(io) = inner.slots.get(index) {
                io.dispatch(generation, ready, wakers);
            }
        }
    }

    /// Closes the slab at reactor stop: every slot is marked shut down and every waker collected.
    pub(crate) fn close(&self, wakers: &mut Vec<Waker>) {
        let mut inner = self.lock();
        inner.closed = true;
        for io in &inner.slots {
            io.shutdown(wakers);
        }
    }

    /// Registrations currently alive.
    pub(crate) fn live(&self) -> usize {
        self.lock().live
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn token_round_trips() {
        let t = token(INDEX_MASK, (1 << GENERATION_BITS) - 1);
        assert_eq!(split(t), (INDEX_MASK, (1 << GENERATION_BITS) - 1));
        assert!(t.0 < usize::MAX - 1);
    }

    #[test]
    fn released_slot_is_reused_with_next_generation() {
        let slab = RegistrationSlab::new();
        let a = slab.alloc().unwrap().unwrap();
        let first = a.token;
        slab.release(a.index);
        let b = slab.alloc().unwrap().unwrap();
        assert_eq!(b.index, a.index);
        assert_ne!(b.token, first);
        assert_eq!(split(b.token).1, split(first).1 + 1);
        assert_eq!(slab.live(), 1);
    }
}
