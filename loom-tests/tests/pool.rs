#![cfg(loom)]
//! loom models of the frame pool's cross-thread protocols (rules 3-5 in rt-core's pool/mod.rs):
//!
//! * `remote_free_races_owner_reclaim`: a remote thread pushes a freed block while the owner,
//!   out of blocks, takes its slab's remote list; the owner gets the block back or maps a new
//!   slab, and both outcomes occur.
//! * `two_remote_frees_race_one_swap`: two remote pushes contend on one remote word while the
//!   owner swaps it; no block is lost or handed out twice.
//! * `abandonment_races_remote_free`: the owner exits (its heap abandons the slab) while a remote
//!   thread frees a block of it; the last free, wherever it happens, releases the slab.
//! * `transient_abandon_races_remote_frees`: in Transient mode the owner, its current slab full,
//!   takes the slab's remote frees or abandons it, while a remote thread frees every block of
//!   it; the slab is released once, by the owner's count or the last free.
//! * `transient_abandon_races_last_free`: as above, but the remote thread frees all blocks but
//!   one, and the owner frees that one itself after its allocation: through its free list if the
//!   slab is still current, else by the count (rule 5), racing the remote thread for the release.
//!
//! The first three run their owner in Recycling mode. Every execution ends with every slab
//! released: checked by the owner after `trim`, and by loom's leak check (slabs come from
//! `loom::alloc` under loom).
//! Under loom a slab is 1 KiB, so the 256-byte class holds only a few blocks.

use std::alloc::Layout;
use std::ptr::NonNull;
// Outcomes seen across executions: outside the model, so std's.
use std::sync::atomic::{AtomicBool as SeenFlag, Ordering::Relaxed as SeenOrder};

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;
use rt_core::pool::{self, ThreadMode, SLAB_SIZE};

const LAYOUT: Layout = match Layout::from_size_align(256, 8) {
    Ok(layout) => layout,
    Err(_) => panic!(),
};

/// A block's address, to cross threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block(usize);

impl Block {
    fn alloc(mark: u64) -> Block {
        let ptr = pool::alloc(LAYOUT);
        // SAFETY: the block holds 256 bytes, 8-aligned.
        unsafe { ptr.as_ptr().cast::<u64>().write(mark) };
        Block(ptr.as_ptr() as usize)
    }

    fn slab(self) -> usize {
        self.0 & !(SLAB_SIZE - 1)
    }

    /// Whether this is the last block of its slab (blocks are carved in address order).
    fn is_last_in_slab(self) -> bool {
        self.0 - self.slab() == SLAB_SIZE - LAYOUT.size()
    }

    fn free(self, mark: u64) {
        let ptr = NonNull::new(self.0 as *mut u8).unwrap();
        // SAFETY: the block is live and holds the mark written by `alloc`.
        let found = unsafe { ptr.as_ptr().cast::<u64>().read() };
        assert_eq!(found, mark, "block overwritten");
        // SAFETY: the block came from `alloc(LAYOUT)` and is freed once.
        unsafe { pool::dealloc(ptr, LAYOUT) };
    }
}

/// Recycling mode: allocates blocks until this thread's only slab of the class is full: returns them, all in
/// that slab.
fn fill_one_slab() -> Vec<Block> {
    let mut blocks = vec![Block::alloc(0)];
    loop {
        let next = Block::alloc(blocks.len() as u64);
        if next.slab() != blocks[0].slab() {
            // The first block of a second slab: give it back, and trim the (now empty) second
            // slab away, so the full one is the only slab left.
            next.free(blocks.len() as u64);
            pool::trim();
            return blocks;
        }
        blocks.push(next);
    }
}

/// Once the thread has freed all its blocks (and the remote freers are joined): trim must release
/// every slab it owned (under loom the trim floor is zero).
fn assert_owner_released_all() {
    pool::trim();
    let stats = pool::stats();
    assert_eq!(stats.owned_slabs, 0, "{stats:?}");
}

#[test]
fn remote_free_races_owner_reclaim() {
    static REUSED: SeenFlag = SeenFlag::new(false);
    static FRESH: SeenFlag = SeenFlag::new(false);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        thread::spawn(|| {
            pool::set_thread_mode(ThreadMode::Recycling);
            let blocks = fill_one_slab();
            let victim = blocks[0];
            let remote = thread::spawn(move || victim.free(0));
            // The head slab is full: this takes the slow path, which swaps the remote list.
            let next = Block::alloc(99);
            if next == victim {
                REUSED.store(true, SeenOrder);
            } else {
                assert_ne!(next.slab(), victim.slab(), "a live block handed out twice");
                FRESH.store(true, SeenOrder);
            }
            remote.join().unwrap();
            next.free(99);
            for (mark, block) in blocks.into_iter().enumerate().skip(1) {
                block.free(mark as u64);
            }
            assert_owner_released_all();
        })
        .join()
        .unwrap();
    });
    assert!(
        REUSED.load(SeenOrder),
        "the owner never took the remote free"
    );
    assert!(
        FRESH.load(SeenOrder),
        "the owner always saw the remote free"
    );
}

#[test]
fn two_remote_frees_race_one_swap() {
    static BOTH: SeenFlag = SeenFlag::new(false);
    static ONE: SeenFlag = SeenFlag::new(false);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        thread::spawn(|| {
            pool::set_thread_mode(ThreadMode::Recycling);
            let blocks = fill_one_slab();
            let (a, b) = (blocks[0], blocks[1]);
            let freers =
                [(a, 0), (b, 1)].map(|(block, mark)| thread::spawn(move || block.free(mark)));
            // Two allocations: each is one of the remotely freed blocks, or from a new slab.
            let first = Block::alloc(98);
            let second = Block::alloc(97);
            assert_ne!(first, second);
            let reused = [first, second]
                .iter()
                .filter(|x| **x == a || **x == b)
                .count();
            match reused {
                2 => BOTH.store(true, SeenOrder),
                1 => ONE.store(true, SeenOrder),
                _ => {}
            }
            for freer in freers {
                freer.join().unwrap();
            }
            first.free(98);
            second.free(97);
            for (mark, block) in blocks.into_iter().enumerate().skip(2) {
                block.free(mark as u64);
            }
            assert_owner_released_all();
        })
        .join()
        .unwrap();
    });
    assert!(BOTH.load(SeenOrder), "one swap never took both pushes");
    assert!(ONE.load(SeenOrder), "one swap never split the pushes");
}

#[test]
fn abandonment_races_remote_free() {
    static FREED_BEFORE_EXIT: SeenFlag = SeenFlag::new(false);
    static FREED_AROUND_EXIT: SeenFlag = SeenFlag::new(false);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        let owner = thread::spawn(|| {
            pool::set_thread_mode(ThreadMode::Recycling);
            let kept = Block::alloc(1);
            let sent = Block::alloc(2);
            let done = Arc::new(AtomicBool::new(false));
            let remote = {
                let done = done.clone();
                thread::spawn(move || {
                    sent.free(2);
                    done.store(true, Ordering::Release);
                })
            };
            // The owner exits right after this, abandoning the slab with `kept` live and
            // `sent` live or freed.
            if done.load(Ordering::Acquire) {
                FREED_BEFORE_EXIT.store(true, SeenOrder);
            } else {
                FREED_AROUND_EXIT.store(true, SeenOrder);
            }
            (kept, remote)
        });
        let (kept, remote) = owner.join().unwrap();
        // The owner is gone: this free counts down the abandoned slab, racing the remote one.
        kept.free(1);
        remote.join().unwrap();
        // No assertion can run after the owner's thread-local destructor here (loom's `join`
        // returns before it): slabs come from `loom::alloc` under loom, so one never released
        // fails the execution as a leak.
    });
    assert!(FREED_BEFORE_EXIT.load(SeenOrder));
    assert!(FREED_AROUND_EXIT.load(SeenOrder));
}

/// Transient mode: allocates blocks until the current slab of the class is full, without the
/// allocation that would give it up; returns them, all in that slab.
fn fill_current_slab() -> Vec<Block> {
    assert_eq!(pool::thread_mode(), ThreadMode::Transient, "the default");
    let mut blocks = vec![Block::alloc(0)];
    while !blocks.last().unwrap().is_last_in_slab() {
        blocks.push(Block::alloc(blocks.len() as u64));
        assert_eq!(blocks.last().unwrap().slab(), blocks[0].slab());
    }
    blocks
}

/// The owner's next allocation, its current slab full, races `frees` of that slab's blocks on
/// a remote thread: it takes the remote frees, or abandons the slab. Returns the remote thread,
/// the block allocated and whether that reused the full slab.
fn alloc_racing_remote_frees(
    frees: Vec<(u64, Block)>,
    full_slab: usize,
) -> (thread::JoinHandle<()>, Block, bool) {
    let remote = thread::spawn(move || {
        for (mark, block) in frees {
            block.free(mark);
        }
    });
    let next = Block::alloc(99);
    (remote, next, next.slab() == full_slab)
}

#[test]
fn transient_abandon_races_remote_frees() {
    static REUSED: SeenFlag = SeenFlag::new(false);
    static ABANDONED: SeenFlag = SeenFlag::new(false);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        thread::spawn(|| {
            let blocks = fill_current_slab();
            let slab = blocks[0].slab();
            let frees = (0..).zip(blocks).collect();
            let (remote, next, reused) = alloc_racing_remote_frees(frees, slab);
            // Abandoned with every block live, pushed, or counted down: the owner's add or the
            // last count-down releases it (loom's leak check fails a slab never released).
            let seen = if reused { &REUSED } else { &ABANDONED };
            seen.store(true, SeenOrder);
            remote.join().unwrap();
            next.free(99);
            assert_owner_released_all();
        })
        .join()
        .unwrap();
    });
    assert!(REUSED.load(SeenOrder), "the owner never took a remote free");
    assert!(
        ABANDONED.load(SeenOrder),
        "the owner never abandoned the slab"
    );
}

#[test]
fn transient_abandon_races_last_free() {
    static REUSED: SeenFlag = SeenFlag::new(false);
    static ABANDONED: SeenFlag = SeenFlag::new(false);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        thread::spawn(|| {
            let mut blocks = fill_current_slab();
            let slab = blocks[0].slab();
            let kept = blocks.pop().unwrap();
            let kept_mark = blocks.len() as u64;
            let frees = (0..).zip(blocks).collect();
            let (remote, next, reused) = alloc_racing_remote_frees(frees, slab);
            let seen = if reused { &REUSED } else { &ABANDONED };
            seen.store(true, SeenOrder);
            // Our own block of the slab: onto its free list while it is current; else counted
            // down like any remote free, racing the remote thread's last one for the release.
            kept.free(kept_mark);
            remote.join().unwrap();
            next.free(99);
            assert_owner_released_all();
        })
        .join()
        .unwrap();
    });
    assert!(REUSED.load(SeenOrder), "the owner never took a remote free");
    assert!(
        ABANDONED.load(SeenOrder),
        "the owner never abandoned the slab"
    );
}
