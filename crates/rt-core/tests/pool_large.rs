//! Layouts beyond the largest class (in size or in alignment) bypass the pool: they take no slab,
//! keep their alignment, and free from any thread.

use std::alloc::Layout;
use std::thread;

use rt_core::pool::{self, MAX_POOLED};

#[test]
fn large_layouts_take_no_slab() {
    thread::spawn(|| {
        let layouts = [
            Layout::from_size_align(MAX_POOLED + 1, 8).unwrap(),
            Layout::from_size_align(1 << 20, 64).unwrap(),
            Layout::from_size_align(64, 2 * MAX_POOLED).unwrap(),
            Layout::from_size_align(3 * MAX_POOLED, 4 * MAX_POOLED).unwrap(),
        ];
        let mut live = Vec::new();
        for (seed, layout) in layouts.into_iter().enumerate() {
            let ptr = pool::alloc(layout);
            assert_eq!(ptr.as_ptr() as usize % layout.align(), 0, "{layout:?}");
            // SAFETY: the block holds `layout.size()` bytes.
            unsafe { ptr.as_ptr().write_bytes(seed as u8 + 1, layout.size()) };
            live.push((ptr.as_ptr() as usize, layout, seed as u8 + 1));
        }
        assert_eq!(pool::stats().owned_slabs, 0, "no slab for large layouts");
        for &(addr, layout, byte) in &live {
            // SAFETY: each block holds `layout.size()` bytes and is live.
            let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, layout.size()) };
            assert!(bytes.iter().all(|&b| b == byte), "{layout:?} overwritten");
        }
        // Free them on another thread: the global allocator does not mind.
        thread::spawn(move || {
            for (addr, layout, _) in live {
                let ptr = std::ptr::NonNull::new(addr as *mut u8).unwrap();
                // SAFETY: each block came from `alloc(layout)` and is freed once.
                unsafe { pool::dealloc(ptr, layout) };
            }
            assert_eq!(pool::stats().owned_slabs, 0);
        })
        .join()
        .unwrap();
    })
    .join()
    .unwrap();
}
