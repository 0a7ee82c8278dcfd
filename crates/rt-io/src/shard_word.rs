//! A registration's shard word: which reactor shard's `poll` the source is registered with, and
//! the MOVING bit that lets one thread at a time move it to another shard. This file owns the
//! word's layout; nobody else masks its bits.
//!
//! ```text
//!   63       62                                                 0
//! +--------+----------------------------------------------------+
//! | MOVING |                    shard index                     |
//! +--------+----------------------------------------------------+
//! ```
//!
//! - shard index: written at registration (`Registration::new`, before the word is shared),
//!   and afterwards only by the thread that holds MOVING, in the `Release` store that clears it.
//!   It names the shard the source is registered with whenever MOVING is clear.
//! - MOVING: set by [`ShardWord::move_to`]'s compare-exchange, on the thread whose task keeps
//!   waiting on the source away from its shard (through [`ShardWord::follow_task`]); cleared by
//!   the same thread once the source is registered with its new shard (or back with the old one,
//!   if the new one refused it). While it is set no other thread starts a move: a second
//!   `follow_task` (the other half of a split stream, polled on a third worker) returns at once.
//!
//! The move itself is `EPOLL_CTL_DEL` on the old shard, then `EPOLL_CTL_ADD` on the new one
//! (through [`ShardOps`]). An edge-triggered `EPOLL_CTL_ADD` reports whatever readiness the
//! source has at that moment, so an event that arrives while the source is on neither shard is
//! not lost: the add reports it on the new shard (at worst a readiness is reported twice, which
//! waiters tolerate). Modelled, with a mock of that epoll behaviour, in
//! `loom-tests/tests/registration_move.rs`.
//!
//! Dropping a registration takes `&mut`, so it never overlaps a move of the same source; it reads
//! the index with [`ShardWord::current`] to uncount the source from its shard.

use std::fmt;
use std::io;

use rt_core::sync::{AtomicU32, AtomicUsize, Ordering};

/// Set in the word while the source moves between shards.
const MOVING: usize = 1 << (usize::BITS - 1);

pub use crate::tuning::MOVE_AFTER;

/// What a move does to the reactor: the real one is mio's registries and the shards' source
/// counts (`registration.rs`); the loom model's is a mock of epoll.
pub trait ShardOps {
    /// Removes the source from `shard`'s `poll` (`EPOLL_CTL_DEL`).
    fn deregister(&self, shard: usize) -> io::Result<()>;
    /// Adds the source to `shard`'s `poll` (`EPOLL_CTL_ADD`, edge-triggered: it reports the
    /// readiness the source has now).
    fn register(&self, shard: usize) -> io::Result<()>;
    /// The source now counts on `to` instead of `from` (`Shard::sources`).
    fn recount(&self, from: usize, to: usize);
}

/// The shard word, and the count of consecutive waits away from the shard.
pub struct ShardWord {
    word: AtomicUsize,
    /// Consecutive waits that started on a worker other than the shard's owner. A heuristic:
    /// `Relaxed`, and a lost update only delays a move.
    away: AtomicU32,
}

impl ShardWord {
    /// A source registered with `shard`.
    pub fn new(shard: usize) -> ShardWord {
        debug_assert_eq!(shard & MOVING, 0);
        ShardWord {
            word: AtomicUsize::new(shard),
            away: AtomicU32::new(0),
        }
    }

    /// The shard the source is registered with (the one it is leaving, during a move).
    pub fn current(&self) -> usize {
        self.word.load(Ordering::Acquire) & !MOVING
    }

    /// Whether a thread is moving the source right now.
    pub fn is_moving(&self) -> bool {
        self.word.load(Ordering::Acquire) & MOVING != 0
    }

    /// A wait on the source starts on a worker whose own shard is `home` (the task is about to
    /// return `Pending`). After [`MOVE_AFTER`] such waits in a row away from the source's shard,
    /// moves the source to `home`, unless another thread is moving it.
    pub fn follow_task(&self, home: usize, ops: &impl ShardOps) {
        let cur = self.word.load(Ordering::Relaxed);
        if cur & MOVING != 0 {
            return;
        }
        if cur == home {
            if self.away.load(Ordering::Relaxed) != 0 {
                self.away.store(0, Ordering::Relaxed);
            }
            return;
        }
        if self.away.fetch_add(1, Ordering::Relaxed) + 1 >= MOVE_AFTER {
            self.move_to(cur, home, ops);
        }
    }

    /// Moves the source from shard `from` to shard `to`, unless another thread is moving it
    /// (or already moved it away from `from`).
    ///
    /// # Panics
    ///
    /// When the source could be registered with neither shard after leaving `from` (the old
    /// shard accepted it a moment ago; only a broken epoll refuses it now).
    pub fn move_to(&self, from: usize, to: usize, ops: &impl ShardOps) {
        self.away.store(0, Ordering::Relaxed);
        if self
            .word
            .compare_exchange(from, from | MOVING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let now = match ops.deregister(from) {
            Ok(()) => match ops.register(to) {
                Ok(()) => to,
                // Put it back where it was (it was there a moment ago).
                Err(_) => match ops.register(from) {
                    Ok(()) => from,
                    Err(e) => panic!("rt-io: could not re-register a source: {e}"),
                },
            },
            Err(_) => from,
        };
        if now != from {
            ops.recount(from, now);
        }
        self.word.store(now, Ordering::Release);
    }
}

impl fmt::Debug for ShardWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardWord")
            .field("shard", &self.current())
            .field("moving", &self.is_moving())
            .field("away", &self.away.load(Ordering::Relaxed))
            .finish()
    }
}
