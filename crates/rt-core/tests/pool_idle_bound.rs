#![cfg(not(rt_pool_bypass))]
//! Idle memory is bounded in Recycling mode: after a burst of 1,000,000 live blocks is freed, a thread keeps at
//! most `IDLE_CAP_BYTES` of idle slabs, the rest goes back to the OS, and the process's resident
//! set returns near where it started.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::thread;

use rt_core::pool::{self, ThreadMode, IDLE_CAP_BYTES, SLAB_SIZE};

/// Resident set size of this process, in bytes (Linux: `/proc/self/statm`, field 2, in pages).
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    pages * page
}

const SLACK: usize = 64 << 20;

#[test]
fn burst_of_a_million_blocks_returns_memory() {
    const BLOCKS: usize = 1_000_000;
    // 128-byte blocks: 128 MB live at the peak.
    let layout = Layout::from_size_align(128, 8).unwrap();
    let start = rss();
    thread::spawn(move || {
        pool::set_thread_mode(ThreadMode::Recycling);
        let mut blocks: Vec<NonNull<u8>> = Vec::with_capacity(BLOCKS);
        for i in 0..BLOCKS {
            let ptr = pool::alloc(layout);
            // SAFETY: the block holds 128 bytes, 8-aligned.
            unsafe { ptr.as_ptr().cast::<usize>().write(i) };
            blocks.push(ptr);
        }
        let peak = pool::stats();
        assert!(peak.owned_slabs * SLAB_SIZE >= BLOCKS * 128, "{peak:?}");
        assert!(rss() > start + BLOCKS * 128 / 2, "the burst is resident");
        for (i, ptr) in blocks.drain(..).enumerate() {
            // SAFETY: the block is live and holds the index written above.
            assert_eq!(unsafe { ptr.as_ptr().cast::<usize>().read() }, i);
            // SAFETY: the block came from `alloc(layout)` and is freed once.
            unsafe { pool::dealloc(ptr, layout) };
        }
        drop(blocks);
        let after = pool::stats();
        assert!(after.idle_bytes <= IDLE_CAP_BYTES, "{after:?}");
        // The idle cache plus the (empty) head slab of the class.
        assert!(
            after.owned_slabs * SLAB_SIZE <= IDLE_CAP_BYTES + SLAB_SIZE,
            "{after:?}"
        );
        let now = rss();
        assert!(
            now < start + SLACK,
            "rss {now} after the burst, {start} before"
        );
    })
    .join()
    .unwrap();
    assert_eq!(
        pool::stats().live_slabs,
        0,
        "the exited thread released everything"
    );
    let end = rss();
    assert!(
        end < start + SLACK,
        "rss {end} at the end, {start} at the start"
    );
}
