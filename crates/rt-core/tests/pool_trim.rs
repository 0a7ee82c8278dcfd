#![cfg(not(rt_pool_bypass))]
//! In Recycling mode, `trim` takes the blocks other threads freed into this thread's slabs and releases idle slabs
//! down to `TRIM_FLOOR_BYTES`; after a burst freed remotely, the resident set returns near where
//! it started. One test, so the process-wide numbers are this test's alone.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::thread;

use rt_core::pool::{self, ThreadMode, IDLE_CAP_BYTES, SLAB_SIZE, TRIM_FLOOR_BYTES};

fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    pages * page
}

const SLACK: usize = 64 << 20;

struct Addrs(Vec<usize>);

fn free_all(addrs: Addrs, layout: Layout) {
    for addr in addrs.0 {
        // SAFETY: each block came from `alloc(layout)` and is freed once.
        unsafe { pool::dealloc(NonNull::new(addr as *mut u8).unwrap(), layout) };
    }
}

#[test]
fn trim_releases_idle_and_remotely_freed_slabs() {
    let start = rss();
    thread::spawn(move || {
        pool::set_thread_mode(ThreadMode::Recycling);
        // 1. Local frees leave up to the cap idle; trim cuts that to the floor.
        let layout = Layout::from_size_align(1024, 8).unwrap();
        let per_slab = SLAB_SIZE / 1024;
        let blocks: Vec<_> = (0..8 * per_slab).map(|_| pool::alloc(layout)).collect();
        for ptr in blocks {
            // SAFETY: each block came from `alloc(layout)` and is freed once.
            unsafe { pool::dealloc(ptr, layout) };
        }
        let before = pool::stats();
        assert_eq!(before.idle_bytes, IDLE_CAP_BYTES, "{before:?}");
        pool::trim();
        let after = pool::stats();
        assert_eq!(after.idle_bytes, TRIM_FLOOR_BYTES, "{after:?}");
        // The empty head slab went idle too, and then out: only the floor is left.
        assert_eq!(after.owned_slabs * SLAB_SIZE, TRIM_FLOOR_BYTES, "{after:?}");
        assert_eq!(
            before.live_slabs - after.live_slabs,
            before.owned_slabs - after.owned_slabs
        );

        // 2. A burst freed on another thread stays in this thread's remote lists until trim.
        let layout = Layout::from_size_align(256, 8).unwrap();
        const BLOCKS: usize = 400_000; // 100 MB
        let addrs: Vec<usize> = (0..BLOCKS)
            .map(|i| {
                let ptr = pool::alloc(layout);
                // SAFETY: the block holds 256 bytes, 8-aligned.
                unsafe { ptr.as_ptr().cast::<usize>().write(i) };
                ptr.as_ptr() as usize
            })
            .collect();
        let peak = pool::stats();
        let addrs = Addrs(addrs);
        thread::spawn(move || free_all(addrs, layout))
            .join()
            .unwrap();
        assert_eq!(
            pool::stats().owned_slabs,
            peak.owned_slabs,
            "nothing collected yet"
        );
        pool::trim();
        let trimmed = pool::stats();
        assert!(
            trimmed.owned_slabs * SLAB_SIZE <= TRIM_FLOOR_BYTES,
            "{trimmed:?}"
        );
        assert!(trimmed.idle_bytes <= TRIM_FLOOR_BYTES, "{trimmed:?}");
        let now = rss();
        assert!(
            now < start + SLACK,
            "rss {now} after trim, {start} before the burst"
        );

        // 3. Trimming again with nothing to do changes nothing.
        pool::trim();
        assert_eq!(pool::stats(), trimmed);
    })
    .join()
    .unwrap();
}
