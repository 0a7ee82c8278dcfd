#![cfg(not(rt_pool_bypass))]
//! Switching a thread's mode: each mode allocates from its own slabs (the ring heads, the current
//! slabs), which survive the other mode's turn; blocks allocated in one mode may be freed in the
//! other, on the same thread or another; `enter_thread_mode` restores the previous mode. One test,
//! so the process-wide counters are this test's alone.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::thread;

use rt_core::pool::{self, ThreadMode, SLAB_SIZE};

const LAYOUT: Layout = match Layout::from_size_align(256, 8) {
    Ok(layout) => layout,
    Err(_) => panic!(),
};

/// 256-byte blocks in one slab: all but the header's.
const PER_SLAB: usize = SLAB_SIZE / 256 - 1;

fn alloc() -> usize {
    let ptr = pool::alloc(LAYOUT);
    // SAFETY: the block holds 256 bytes, 8-aligned.
    unsafe { ptr.as_ptr().cast::<usize>().write(ptr.as_ptr() as usize) };
    ptr.as_ptr() as usize
}

fn free(addr: usize) {
    let ptr = NonNull::new(addr as *mut u8).unwrap();
    // SAFETY: the block is live and holds its address, written by `alloc`.
    let found = unsafe { ptr.as_ptr().cast::<usize>().read() };
    assert_eq!(found, addr, "overwritten");
    // SAFETY: the block came from `alloc(LAYOUT)` and is freed once.
    unsafe { pool::dealloc(ptr, LAYOUT) };
}

fn slab(addr: usize) -> usize {
    addr & !(SLAB_SIZE - 1)
}

#[test]
fn modes_switch_back_and_forth() {
    thread::spawn(|| {
        assert_eq!(pool::thread_mode(), ThreadMode::Transient, "the default");
        let t1 = alloc();
        pool::set_thread_mode(ThreadMode::Recycling);
        assert_eq!(pool::thread_mode(), ThreadMode::Recycling);
        let r1 = alloc();
        assert_ne!(
            slab(r1),
            slab(t1),
            "a recycling slab is not a transient one"
        );
        assert_eq!(pool::stats().owned_slabs, 2);
        // Each block goes back to its own slab whatever the mode.
        free(t1);
        free(r1);
        let r2 = alloc();
        assert_eq!(r2, r1, "Recycling allocates from the ring");
        {
            let _transient = pool::enter_thread_mode(ThreadMode::Transient);
            assert_eq!(pool::thread_mode(), ThreadMode::Transient);
            let t2 = alloc();
            assert_eq!(
                t2, t1,
                "the current slab stayed current, with t1 free in it"
            );
            free(r2);
            free(t2);
            {
                let _recycling = pool::enter_thread_mode(ThreadMode::Recycling);
                let r3 = alloc();
                assert_eq!(r3, r1);
                free(r3);
            }
            assert_eq!(pool::thread_mode(), ThreadMode::Transient, "restored");
        }
        assert_eq!(pool::thread_mode(), ThreadMode::Recycling, "restored");
        assert_eq!(pool::stats().owned_slabs, 2, "no slab came or went");
        assert_eq!(pool::stats().live_slabs, 2);

        // Three recycling slabs' worth (the first is r1's), then two transient ones' (the first
        // is t1's, given up when full); all freed on another thread.
        let mut blocks: Vec<usize> = (0..2 * PER_SLAB + 1).map(|_| alloc()).collect();
        pool::set_thread_mode(ThreadMode::Transient);
        blocks.extend((0..PER_SLAB + 1).map(|_| alloc()));
        let stats = pool::stats();
        assert_eq!(stats.live_slabs, 5, "{stats:?}");
        assert_eq!(stats.owned_slabs, 4, "3 on the ring, 1 current: {stats:?}");
        assert_eq!(stats.abandoned_slabs, 1, "{stats:?}");
        thread::spawn(move || blocks.into_iter().for_each(free))
            .join()
            .unwrap();
        let stats = pool::stats();
        assert_eq!(
            stats.abandoned_slabs, 0,
            "the full transient slab went: {stats:?}"
        );
        assert_eq!(
            stats.live_slabs, 4,
            "the rest wait for their owner: {stats:?}"
        );
        // Trim collects both kinds: the empty current slab goes, the ring's slabs go idle and
        // down to the floor.
        pool::set_thread_mode(ThreadMode::Recycling);
        pool::trim();
        let stats = pool::stats();
        assert_eq!(
            stats.owned_slabs * SLAB_SIZE,
            pool::TRIM_FLOOR_BYTES,
            "{stats:?}"
        );
        assert_eq!(stats.idle_bytes, pool::TRIM_FLOOR_BYTES, "{stats:?}");
        assert_eq!(stats.live_slabs, stats.owned_slabs, "{stats:?}");
    })
    .join()
    .unwrap();
    assert_eq!(
        pool::stats().live_slabs,
        0,
        "the thread's exit released the rest"
    );
}
