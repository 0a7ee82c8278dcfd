#![cfg(not(rt_pool_bypass))]
//! A thread that exits with live blocks (in Recycling mode; `pool_transient_*.rs` cover the
//! Transient one): its slabs are abandoned, the blocks stay valid, and
//! freeing them later on other threads (or from a thread-local destructor that runs after the
//! heap's) releases every slab. One test, so the process-wide counters are exact.

use std::alloc::Layout;
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use rt_core::pool::{self, ThreadMode, SLAB_SIZE};

const LAYOUT: Layout = match Layout::from_size_align(256, 8) {
    Ok(layout) => layout,
    Err(_) => panic!(),
};

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

struct FreeOnExit(Vec<(usize, usize)>);

/// Set by `FreeOnExit::drop` when it ran after the heap's destructor (the heap, which owned the
/// stashed blocks' slab, reports no slab any more).
static RAN_AFTER_HEAP: AtomicBool = AtomicBool::new(false);

impl Drop for FreeOnExit {
    fn drop(&mut self) {
        if !self.0.is_empty() && pool::stats().owned_slabs == 0 {
            RAN_AFTER_HEAP.store(true, Ordering::Relaxed);
        }
        for (seed, addr) in self.0.drain(..) {
            check_and_free(addr, seed);
        }
        // The heap may be gone by now: alloc and free must still work.
        let addr = alloc_marked(7);
        check_and_free(addr, 7);
    }
}

thread_local! {
    static STASH: RefCell<FreeOnExit> = const { RefCell::new(FreeOnExit(Vec::new())) };
}

#[test]
fn exited_threads_slabs_drain_and_release() {
    assert_eq!(pool::stats().live_slabs, 0, "nothing pooled yet");

    // 1. Exit with live blocks (and some pending remote frees); free the rest on two threads.
    const BLOCKS: usize = 2 * SLAB_SIZE / 256;
    let blocks: Vec<(usize, usize)> = thread::spawn(|| {
        pool::set_thread_mode(ThreadMode::Recycling);
        let blocks: Vec<(usize, usize)> = (0..BLOCKS).map(|i| (i, alloc_marked(i))).collect();
        // Free a few on another thread while we are alive: they wait in the remote lists.
        let (early, rest) = blocks.split_at(10);
        let early = early.to_vec();
        thread::spawn(move || early.into_iter().for_each(|(s, a)| check_and_free(a, s)))
            .join()
            .unwrap();
        rest.to_vec()
    })
    .join()
    .unwrap();
    let stats = pool::stats();
    assert!(stats.abandoned_slabs >= 2, "{stats:?}");
    assert_eq!(stats.live_slabs, stats.abandoned_slabs, "{stats:?}");
    let (a, b) = blocks.split_at(blocks.len() / 2);
    let (a, b) = (a.to_vec(), b.to_vec());
    let freers = [a, b].map(|half| {
        thread::spawn(move || {
            half.into_iter()
                .for_each(|(s, addr)| check_and_free(addr, s))
        })
    });
    for freer in freers {
        freer.join().unwrap();
    }
    let stats = pool::stats();
    assert_eq!(stats.abandoned_slabs, 0, "{stats:?}");
    assert_eq!(
        stats.live_slabs, 0,
        "every abandoned slab released: {stats:?}"
    );

    // 2. A thread-local destructor frees and allocates after (or before: the order is the
    // platform's) the heap's own destructor.
    thread::spawn(|| {
        // Touch the stash first so that its destructor is registered before the heap's (which
        // `set_thread_mode` touches).
        STASH.with(|_| {});
        pool::set_thread_mode(ThreadMode::Recycling);
        let blocks: Vec<(usize, usize)> = (0..5).map(|i| (i, alloc_marked(i))).collect();
        STASH.with(|stash| stash.borrow_mut().0.extend(blocks));
    })
    .join()
    .unwrap();
    let stats = pool::stats();
    assert_eq!(stats.abandoned_slabs, 0, "{stats:?}");
    assert_eq!(stats.live_slabs, 0, "{stats:?}");
    // glibc runs thread-local destructors in the reverse order of their registration, so there
    // the stash was emptied with the heap gone: remote frees into abandoned slabs, and a block
    // from a detached slab.
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert!(
            RAN_AFTER_HEAP.load(Ordering::Relaxed),
            "the heap outlived the stash"
        );
    }
}
