//! Same-thread reuse: a block freed on the thread that allocated it is the next one handed out,
//! and a tight alloc/free loop stays within one slab.

use std::alloc::Layout;
use std::thread;

use rt_core::pool;

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, 8).unwrap()
}

#[test]
fn freed_block_is_handed_out_again() {
    thread::spawn(|| {
        let l = layout(100);
        let a = pool::alloc(l);
        // SAFETY: `a` came from `alloc(l)` and is not used again.
        unsafe { pool::dealloc(a, l) };
        let b = pool::alloc(l);
        assert_eq!(a, b, "the freed block is reused first");
        // SAFETY: as above.
        unsafe { pool::dealloc(b, l) };
    })
    .join()
    .unwrap();
}

#[test]
fn free_list_is_last_in_first_out() {
    thread::spawn(|| {
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
    })
    .join()
    .unwrap();
}

#[test]
fn alloc_free_loop_stays_in_one_slab() {
    thread::spawn(|| {
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
    })
    .join()
    .unwrap();
}

#[test]
fn sizes_of_one_class_share_blocks() {
    thread::spawn(|| {
        // 65..=128 bytes are all the 128-byte class: a freed 65-byte block serves a 128-byte one.
        let small = layout(65);
        let a = pool::alloc(small);
        // SAFETY: `a` came from `alloc(small)` and is not used again.
        unsafe { pool::dealloc(a, small) };
        let big = layout(128);
        let b = pool::alloc(big);
        assert_eq!(a, b);
        // SAFETY: `b` came from `alloc(big)`.
        unsafe { pool::dealloc(b, big) };
    })
    .join()
    .unwrap();
}
