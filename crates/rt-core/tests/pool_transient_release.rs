#![cfg(not(rt_pool_bypass))]
//! Transient mode (the default for a thread the runtime does not own): once another thread frees
//! the last block of a full slab, the slab goes back to the OS at once, though its owner never
//! allocates again nor trims; the owner's own frees into a full slab release it the same way.
//! One test, so the process-wide counters are this test's alone.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::mpsc;
use std::thread;

use rt_core::pool::{self, ThreadMode, SLAB_SIZE};

const LAYOUT: Layout = match Layout::from_size_align(256, 8) {
    Ok(layout) => layout,
    Err(_) => panic!(),
};

/// Blocks of four and a half slabs.
const BLOCKS: usize = 9 * SLAB_SIZE / 2 / 256;

fn alloc_marked(seed: usize) -> usize {
    let ptr = pool::alloc(LAYOUT);
    // SAFETY: the block holds 256 bytes, 8-aligned.
    unsafe { ptr.as_ptr().cast::<[usize; 32]>().write([seed; 32]) };
    ptr.as_ptr() as usize
}

fn check_and_free(addr: usize, seed: usize) {
    let ptr = NonNull::new(addr as *mut u8).unwrap();
    // SAFETY: the block is live and holds the words written by `alloc_marked`.
    let words = unsafe { ptr.as_ptr().cast::<[usize; 32]>().read() };
    assert_eq!(words, [seed; 32], "block overwritten while live");
    // SAFETY: the block came from `alloc(LAYOUT)` and is freed once.
    unsafe { pool::dealloc(ptr, LAYOUT) };
}

fn slab(addr: usize) -> usize {
    addr & !(SLAB_SIZE - 1)
}

#[test]
fn last_free_releases_a_full_transient_slab() {
    assert_eq!(pool::stats().live_slabs, 0, "nothing pooled yet");
    let (to_owner, owner_rx) = mpsc::channel::<&'static str>();
    let (to_main, main_rx) = mpsc::channel::<Vec<(usize, usize)>>();
    let owner = thread::spawn(move || {
        assert_eq!(pool::thread_mode(), ThreadMode::Transient, "the default");
        // 1. Fill four slabs and half a fifth; hand every block to another thread.
        let blocks: Vec<(usize, usize)> = (0..BLOCKS).map(|i| (i, alloc_marked(i))).collect();
        let stats = pool::stats();
        assert_eq!(
            stats.owned_slabs, 1,
            "only the current slab is ours: {stats:?}"
        );
        assert_eq!(stats.live_slabs, 5, "{stats:?}");
        assert_eq!(stats.abandoned_slabs, 4, "the full ones: {stats:?}");
        assert_eq!(stats.idle_bytes, 0, "{stats:?}");
        to_main.send(blocks).unwrap();
        // Wait, without touching the pool, while they are freed.
        assert_eq!(owner_rx.recv().unwrap(), "freed");
        let stats = pool::stats();
        assert_eq!(stats.owned_slabs, 1, "{stats:?}");
        // The frees into the current slab wait for us; trim takes them and releases it.
        pool::trim();
        assert_eq!(pool::stats().owned_slabs, 0);
        assert_eq!(pool::stats().live_slabs, 0);

        // 2. Our own frees into slabs we gave up count them down, and release them, too.
        let blocks: Vec<(usize, usize)> = (0..BLOCKS).map(|i| (i, alloc_marked(i))).collect();
        let first = slab(blocks[0].1);
        let per_slab = blocks.iter().filter(|(_, a)| slab(*a) == first).count();
        for &(seed, addr) in &blocks[..per_slab - 1] {
            check_and_free(addr, seed);
        }
        assert_eq!(
            pool::stats().live_slabs,
            5,
            "one block of the first slab is live"
        );
        let (seed, addr) = blocks[per_slab - 1];
        check_and_free(addr, seed);
        assert_eq!(
            pool::stats().live_slabs,
            4,
            "the first slab went with its last block"
        );
        for &(seed, addr) in &blocks[per_slab..] {
            check_and_free(addr, seed);
        }
        let stats = pool::stats();
        assert_eq!(
            stats.live_slabs, 1,
            "the current slab, fully free: {stats:?}"
        );
        assert_eq!(stats.abandoned_slabs, 0, "{stats:?}");
        assert_eq!(stats.idle_bytes, 0, "a transient heap keeps no idle slab");
        // The freed blocks of the current slab are handed out again.
        let again = alloc_marked(7);
        assert_eq!(slab(again), slab(blocks[BLOCKS - 1].1));
        assert_eq!(pool::stats().live_slabs, 1);
        check_and_free(again, 7);
        // Exit with the (empty) current slab: the heap releases it.
    });

    let blocks = main_rx.recv().unwrap();
    let mut order: Vec<usize> = blocks.iter().map(|(_, a)| slab(*a)).collect();
    order.dedup();
    assert_eq!(order.len(), 5, "blocks fill one slab after another");
    // Free on another thread, slab by slab, checking after each one.
    thread::spawn(move || {
        let (full, current) = order.split_at(4);
        for (k, &s) in full.iter().enumerate() {
            for &(seed, addr) in blocks.iter().filter(|(_, a)| slab(*a) == s) {
                check_and_free(addr, seed);
            }
            let stats = pool::stats();
            assert_eq!(
                stats.live_slabs,
                4 - k,
                "released with its last block: {stats:?}"
            );
            assert_eq!(stats.abandoned_slabs, 3 - k, "{stats:?}");
            assert_eq!(stats.owned_slabs, 0, "a freer maps nothing");
        }
        // The current slab's blocks: pushed for its owner, which is alive and keeps it.
        for &(seed, addr) in blocks.iter().filter(|(_, a)| slab(*a) == current[0]) {
            check_and_free(addr, seed);
        }
        assert_eq!(pool::stats().live_slabs, 1);
    })
    .join()
    .unwrap();
    to_owner.send("freed").unwrap();
    owner.join().unwrap();
    let stats = pool::stats();
    assert_eq!(stats.live_slabs, 0, "{stats:?}");
    assert_eq!(stats.abandoned_slabs, 0, "{stats:?}");
}
