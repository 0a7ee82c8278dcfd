#![cfg(not(rt_pool_bypass))]
//! Same-thread reuse, in both modes: a block freed on the thread that allocated it is the next
//! one handed out, and a tight alloc/free loop stays within one slab (a ring head in Recycling
//! mode, the current slab in Transient mode).

use std::alloc::Layout;
use std::thread;

use rt_core::pool::{self, ThreadMode};

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, 8).unwrap()
}

/// Runs `check` on a fresh thread in each mode.
fn in_each_mode(check: fn()) {
    for mode in [ThreadMode::Recycling, ThreadMode::Transient] {
        thread::spawn(move || {
            pool::set_thread_mode(mode);
            check();
        })
        .join()
        .unwrap_or_else(|_| panic!("failed in {mode:?} mode"));
    }
}

#[test]
fn freed_block_is_handed_out_again() {
    in_each_mode(|| {
        let l = layout(100);
        let a = pool::alloc(l);
        // SAFETY: `a` came from `alloc(l)` and is not used again.
        unsafe { pool::dealloc(a, l) };
        let b = pool::alloc(l);
        assert_eq!(a, b, "the freed block is reused first");
        // SAFETY: as above.
        unsafe { pool::dealloc(b, l) };
    });
}

#[test]
fn free_list_is_last_in_first_out() {
    in_each_mode(|| {
        let l = layout(200);
        let blocks: Vec<_> = (0..3).map(|_| pool::alloc(l)).collect();
        for &b in &blocks {
            // SAFETY: each block came from `alloc(l)` and is freed once.
            unsafe { pool::dealloc(b, l) };
        }
        let again: Vec<_> = (0..3).map(|_| pool::alloc(l)).collect();
        let expected: Vec<_> = blocks.iter().rev().copied().collect();
        assert_eq!(again, expected);
        for b in again {
            // SAFETY: as above.
            unsafe { pool::dealloc(b, l) };
        }
    });
}

#[test]
fn alloc_free_loop_stays_in_one_slab() {
    in_each_mode(|| {
        let l = layout(64);
        assert_eq!(pool::stats().owned_slabs, 0, "a fresh thread owns nothing");
        let first = pool::alloc(l);
        // SAFETY: `first` came from `alloc(l)` and is not used again.
        unsafe { pool::dealloc(first, l) };
        for _ in 0..100_000 {
            let b = pool::alloc(l);
            assert_eq!(b, first);
            // SAFETY: as above.
            unsafe { pool::dealloc(b, l) };
        }
        let stats = pool::stats();
        assert_eq!(stats.owned_slabs, 1, "{stats:?}");
        assert_eq!(
            stats.idle_bytes, 0,
            "the empty head slab is not idle: {stats:?}"
        );
    });
}

#[test]
fn sizes_of_one_class_share_blocks() {
    in_each_mode(|| {
        // 121..=128 bytes are all the 128-byte class: a freed 121-byte block serves a 128-byte
        // one.
        let small = layout(121);
        let a = pool::alloc(small);
        // SAFETY: `a` came from `alloc(small)` and is not used again.
        unsafe { pool::dealloc(a, small) };
        let big = layout(128);
        let b = pool::alloc(big);
        assert_eq!(a, b);
        // SAFETY: `b` came from `alloc(big)`.
        unsafe { pool::dealloc(b, big) };
    });
}
