#![cfg(not(rt_pool_bypass))]
//! Many Transient threads allocate at once and several other threads free their blocks, the
//! blocks of one slab spread over all the freers: no block is overwritten while live (so none is
//! handed out twice), and once every block is back each allocating thread holds at most its current slab,
//! though none of them trims. One test, so the process-wide counters are this test's alone.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::{mpsc, Arc, Barrier};
use std::thread;

use rt_core::pool;

const LAYOUT: Layout = match Layout::from_size_align(128, 8) {
    Ok(layout) => layout,
    Err(_) => panic!(),
};

const ALLOCATORS: usize = 6;
const FREERS: usize = 3;
const ROUNDS: usize = 60;
const PER_ROUND: usize = 500;

/// A marked block: its address and the seed its words hold.
type Marked = (usize, usize);

fn alloc_marked(seed: usize) -> Marked {
    let ptr = pool::alloc(LAYOUT);
    // SAFETY: the block holds 128 bytes, 8-aligned.
    unsafe { ptr.as_ptr().cast::<[usize; 16]>().write([seed; 16]) };
    (ptr.as_ptr() as usize, seed)
}

fn check_and_free((addr, seed): Marked) {
    let ptr = NonNull::new(addr as *mut u8).unwrap();
    // SAFETY: the block is live and holds the words written by `alloc_marked`.
    let words = unsafe { ptr.as_ptr().cast::<[usize; 16]>().read() };
    assert_eq!(words, [seed; 16], "block overwritten while live");
    // SAFETY: the block came from `alloc(LAYOUT)` and is freed once.
    unsafe { pool::dealloc(ptr, LAYOUT) };
}

#[test]
fn many_transient_threads_release_without_trimming() {
    assert_eq!(pool::stats().live_slabs, 0, "nothing pooled yet");
    let (senders, receivers): (Vec<_>, Vec<_>) =
        (0..FREERS).map(|_| mpsc::channel::<Vec<Marked>>()).unzip();
    let freers: Vec<_> = receivers
        .into_iter()
        .map(|rx| {
            thread::spawn(move || {
                for batch in rx {
                    batch.into_iter().for_each(check_and_free);
                }
                assert_eq!(pool::stats().owned_slabs, 0, "a freer maps nothing");
            })
        })
        .collect();
    let all_freed = Arc::new(Barrier::new(ALLOCATORS + 1));
    let allocators: Vec<_> = (0..ALLOCATORS)
        .map(|me| {
            let senders = senders.clone();
            let all_freed = all_freed.clone();
            thread::spawn(move || {
                for round in 0..ROUNDS {
                    let batch: Vec<Marked> = (0..PER_ROUND)
                        .map(|i| alloc_marked((me << 40) | (round << 20) | i))
                        .collect();
                    // Deal the batch out to every freer, so each slab's blocks come back on
                    // several threads at once.
                    let mut hands: Vec<Vec<Marked>> = vec![Vec::new(); FREERS];
                    for (i, block) in batch.into_iter().enumerate() {
                        hands[i % FREERS].push(block);
                    }
                    for (hand, tx) in hands.into_iter().zip(&senders) {
                        tx.send(hand).unwrap();
                    }
                }
                drop(senders);
                // Stay alive, allocating nothing, until every block is back.
                all_freed.wait();
                let stats = pool::stats();
                assert!(
                    stats.owned_slabs <= 1,
                    "one class, one current slab: {stats:?}"
                );
                all_freed.wait();
            })
        })
        .collect();
    drop(senders);
    for freer in freers {
        freer.join().unwrap();
    }
    all_freed.wait();
    let stats = pool::stats();
    assert_eq!(
        stats.abandoned_slabs, 0,
        "every full slab drained and released: {stats:?}"
    );
    assert!(
        stats.live_slabs <= ALLOCATORS,
        "only the current slabs: {stats:?}"
    );
    all_freed.wait();
    for allocator in allocators {
        allocator.join().unwrap();
    }
    let stats = pool::stats();
    assert_eq!(stats.live_slabs, 0, "{stats:?}");
    assert_eq!(stats.abandoned_slabs, 0, "{stats:?}");
}
