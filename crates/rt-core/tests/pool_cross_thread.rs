#![cfg(not(rt_pool_bypass))]
//! Cross-thread frees in Recycling mode: blocks allocated on one thread and freed on others go
//! back to the owner's slabs, and the owner allocates them again instead of mapping new slabs.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::{mpsc, Arc, Barrier};
use std::thread;

use rt_core::pool::{self, ThreadMode, SLAB_SIZE};

const LAYOUT: Layout = match Layout::from_size_align(128, 8) {
    Ok(layout) => layout,
    Err(_) => panic!(),
};

/// A block's address, to cross threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Addr(usize);

impl Addr {
    fn ptr(self) -> NonNull<u8> {
        NonNull::new(self.0 as *mut u8).unwrap()
    }
}

fn alloc_marked(seed: usize) -> Addr {
    let ptr = pool::alloc(LAYOUT);
    // SAFETY: the block holds 128 bytes, 8-aligned.
    unsafe { ptr.as_ptr().cast::<[usize; 16]>().write([seed; 16]) };
    Addr(ptr.as_ptr() as usize)
}

fn check_and_free(addr: Addr, seed: usize) {
    // SAFETY: the block is live and holds the 16 words written by `alloc_marked`.
    let words = unsafe { addr.ptr().as_ptr().cast::<[usize; 16]>().read() };
    assert_eq!(words, [seed; 16], "block overwritten while live");
    // SAFETY: the block came from `alloc(LAYOUT)` and is freed once.
    unsafe { pool::dealloc(addr.ptr(), LAYOUT) };
}

#[test]
fn owner_reuses_blocks_freed_by_other_threads() {
    const FREERS: usize = 4;
    const BLOCKS: usize = 3 * SLAB_SIZE / 128;
    thread::spawn(|| {
        pool::set_thread_mode(ThreadMode::Recycling);
        let blocks: Vec<Addr> = (0..BLOCKS).map(alloc_marked).collect();
        let owned = pool::stats().owned_slabs;
        assert!(owned >= 3, "{owned} slabs for {BLOCKS} blocks");
        let slabs = |addrs: &[Addr]| {
            let mut s: Vec<usize> = addrs.iter().map(|a| a.0 & !(SLAB_SIZE - 1)).collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let before = slabs(&blocks);

        let chunks: Vec<Vec<(usize, Addr)>> = (0..FREERS)
            .map(|f| {
                blocks
                    .iter()
                    .copied()
                    .enumerate()
                    .skip(f)
                    .step_by(FREERS)
                    .collect()
            })
            .collect();
        let freers: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                thread::spawn(move || {
                    for (seed, addr) in chunk {
                        check_and_free(addr, seed);
                    }
                    assert_eq!(pool::stats().owned_slabs, 0, "a freer maps nothing");
                })
            })
            .collect();
        for freer in freers {
            freer.join().unwrap();
        }

        let again: Vec<Addr> = (0..BLOCKS).map(alloc_marked).collect();
        assert_eq!(
            pool::stats().owned_slabs,
            owned,
            "no new slab: remote frees were reused"
        );
        let after = slabs(&again);
        assert!(
            after.iter().all(|s| before.contains(s)),
            "blocks from the same slabs"
        );
        let mut sorted = again.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), BLOCKS, "no block handed out twice");
        for (seed, addr) in again.into_iter().enumerate() {
            check_and_free(addr, seed);
        }
    })
    .join()
    .unwrap();
}

#[test]
fn blocks_circulate_between_many_threads() {
    // Each of four threads allocates blocks, marks them, and sends them to the next thread in the
    // ring, which checks and frees them, while allocating its own.
    const THREADS: usize = 4;
    const ROUNDS: usize = 200;
    const PER_ROUND: usize = 64;
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..THREADS)
        .map(|_| mpsc::channel::<Vec<(usize, Addr)>>())
        .unzip();
    let all_freed = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = receivers
        .into_iter()
        .enumerate()
        .map(|(me, rx)| {
            let next = senders[(me + 1) % THREADS].clone();
            let all_freed = all_freed.clone();
            thread::spawn(move || {
                pool::set_thread_mode(ThreadMode::Recycling);
                for round in 0..ROUNDS {
                    let batch = (0..PER_ROUND)
                        .map(|i| {
                            let seed = (me << 32) | (round << 8) | i;
                            (seed, alloc_marked(seed))
                        })
                        .collect();
                    next.send(batch).unwrap();
                    for (seed, addr) in rx.recv().unwrap() {
                        check_and_free(addr, seed);
                    }
                }
                drop(next);
                all_freed.wait();
                // Everything this thread allocated was freed by its neighbour: once it takes the
                // remote frees, every slab it owns is fully free (idle), and trim keeps only the
                // floor.
                pool::trim();
                let stats = pool::stats();
                assert_eq!(stats.idle_bytes, stats.owned_slabs * SLAB_SIZE, "{stats:?}");
                assert!(stats.idle_bytes <= pool::TRIM_FLOOR_BYTES, "{stats:?}");
            })
        })
        .collect();
    drop(senders);
    for worker in workers {
        worker.join().unwrap();
    }
}
