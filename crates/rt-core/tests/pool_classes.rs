//! Every size class, at and around its boundaries and at every alignment up to the largest class:
//! blocks are aligned, big enough, and never overlap while live, in both thread modes. Also run
//! under `cfg(rt_pool_bypass)`, where they come from the global allocator.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::thread;

use rt_core::pool::{self, ThreadMode, MAX_POOLED, MIN_BLOCK};

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

/// Fills `len` bytes at `ptr` with a pattern drawn from `seed`.
fn fill(ptr: NonNull<u8>, len: usize, seed: usize) {
    for i in 0..len {
        // SAFETY: the caller's block holds `len` bytes.
        unsafe { ptr.as_ptr().add(i).write((seed.wrapping_mul(31) ^ i) as u8) };
    }
}

/// Whether the pattern written by `fill` is intact.
fn intact(ptr: NonNull<u8>, len: usize, seed: usize) -> bool {
    // SAFETY: the caller's block holds `len` bytes.
    (0..len).all(|i| unsafe { ptr.as_ptr().add(i).read() } == (seed.wrapping_mul(31) ^ i) as u8)
}

/// The layouts of the test: sizes at, just under and just over each class boundary (8-byte
/// steps to 128, 16-byte steps to 256, then powers of two), each at every power-of-two alignment
/// up to `2 * MAX_POOLED`.
fn layouts() -> Vec<Layout> {
    let mut sizes = vec![1, 8, 63];
    let mut class = MIN_BLOCK;
    while class <= MAX_POOLED {
        sizes.extend([class - 1, class, class + 1]);
        class += match class {
            ..128 => 8,
            128..256 => 16,
            _ => class,
        };
    }
    let mut layouts = Vec::new();
    for size in sizes {
        let mut align = 1;
        while align <= 2 * MAX_POOLED {
            layouts.push(Layout::from_size_align(size, align).unwrap());
            align *= 2;
        }
    }
    layouts
}

/// The block the pool promises for `layout`, or `None` when it is not pooled.
fn block(layout: Layout) -> Option<Layout> {
    let need = layout.size().max(layout.align());
    (need <= MAX_POOLED && !cfg!(rt_pool_bypass)).then(|| pool::block_layout(layout))
}

#[test]
fn block_layouts_are_the_classes() {
    let l = |size, align| pool::block_layout(Layout::from_size_align(size, align).unwrap());
    if cfg!(rt_pool_bypass) {
        assert_eq!(l(72, 8), Layout::from_size_align(72, 8).unwrap());
        return;
    }
    assert_eq!(l(1, 1), Layout::from_size_align(64, 64).unwrap());
    assert_eq!(l(72, 8), Layout::from_size_align(72, 8).unwrap());
    assert_eq!(l(73, 8), Layout::from_size_align(80, 16).unwrap());
    assert_eq!(l(73, 32), Layout::from_size_align(96, 32).unwrap());
    assert_eq!(l(200, 8), Layout::from_size_align(208, 16).unwrap());
    assert_eq!(l(300, 8), Layout::from_size_align(512, 512).unwrap());
    assert_eq!(
        l(MAX_POOLED + 1, 8),
        Layout::from_size_align(MAX_POOLED + 1, 8).unwrap()
    );
}

#[test]
fn every_class_boundary_and_alignment() {
    in_each_mode(every_class_boundary_and_alignment_here);
}

fn every_class_boundary_and_alignment_here() {
    let mut live = Vec::new();
    for (seed, layout) in layouts().into_iter().enumerate() {
        for copy in 0..3 {
            let ptr = pool::alloc(layout);
            let addr = ptr.as_ptr() as usize;
            assert_eq!(addr % layout.align(), 0, "{layout:?} misaligned");
            // Under `cfg(rt_pool_bypass)` every block is the global allocator's, aligned to
            // the layout only.
            if let Some(block) = block(layout) {
                assert!(block.size() >= layout.size() && block.align() >= layout.align());
                assert_eq!(
                    addr % block.align(),
                    0,
                    "{layout:?}: a block is aligned to its class"
                );
            }
            fill(ptr, layout.size(), seed * 3 + copy);
            live.push((ptr, layout, seed * 3 + copy));
        }
    }
    for &(ptr, layout, seed) in &live {
        assert!(intact(ptr, layout.size(), seed), "{layout:?} overwritten");
    }
    for (ptr, layout, _) in live {
        // SAFETY: each block came from `alloc(layout)` and is freed once.
        unsafe { pool::dealloc(ptr, layout) };
    }
}

#[test]
fn live_blocks_never_overlap() {
    in_each_mode(live_blocks_never_overlap_here);
}

fn live_blocks_never_overlap_here() {
    // Sizes cycling through every class; half freed and reallocated midway.
    let sizes: Vec<usize> = (0..20_000).map(|i| 1 + (i * 97) % MAX_POOLED).collect();
    let mut live: Vec<Option<(NonNull<u8>, Layout, usize)>> = Vec::new();
    for (seed, &size) in sizes.iter().enumerate() {
        let layout = Layout::from_size_align(size, 8).unwrap();
        let ptr = pool::alloc(layout);
        fill(ptr, size, seed);
        live.push(Some((ptr, layout, seed)));
    }
    for slot in live.iter_mut().step_by(2) {
        let (ptr, layout, seed) = slot.take().unwrap();
        assert!(intact(ptr, layout.size(), seed));
        // SAFETY: each block came from `alloc(layout)` and is freed once.
        unsafe { pool::dealloc(ptr, layout) };
    }
    for (seed, &size) in sizes.iter().enumerate().step_by(2) {
        let layout = Layout::from_size_align(size, 16).unwrap();
        let ptr = pool::alloc(layout);
        fill(ptr, size, seed + 1_000_000);
        live[seed] = Some((ptr, layout, seed + 1_000_000));
    }
    let mut spans: Vec<(usize, usize)> = live
        .iter()
        .map(|slot| {
            let (ptr, layout, seed) = slot.unwrap();
            assert!(intact(ptr, layout.size(), seed), "block {seed} overwritten");
            (ptr.as_ptr() as usize, layout.size())
        })
        .collect();
    spans.sort_unstable();
    for pair in spans.windows(2) {
        assert!(pair[0].0 + pair[0].1 <= pair[1].0, "overlap: {pair:?}");
    }
    for (ptr, layout, _) in live.into_iter().flatten() {
        // SAFETY: as above.
        unsafe { pool::dealloc(ptr, layout) };
    }
}
