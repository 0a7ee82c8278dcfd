//! Size classes and slab geometry: which layouts the pool serves, in which class, and how a slab
//! of each class is carved.
//!
//! The classes, as mimalloc's bins: 8-byte steps from [`MIN_BLOCK`] (64) to 128, 16-byte steps
//! to 256, then powers of two to [`MAX_POOLED`] (4 KiB):
//!
//! ```text
//!  64 72 80 88 96 104 112 120 128 | 144 160 176 192 208 224 240 256 | 512 1024 2048 4096
//! ```
//!
//! so a 72-byte task cell takes 72 bytes, not 128. A block of a class is aligned to the largest
//! power of two dividing its size (8 for 72, 16 for 80, 64 for 64, 256 for 256, ...): blocks sit
//! at `first_offset + k * size` from a slab base aligned to [`SLAB_SIZE`], and `first_offset` is
//! a multiple of that alignment. A layout's class is the smallest one at least as large as its
//! size whose alignment is at least its alignment ([`Class::of`]); [`block_layout`] tells a
//! caller the size and alignment of the block it really gets. Anything larger than `MAX_POOLED`
//! (in size or alignment) goes straight to the global allocator.
//!
//! Under `cfg(loom)` the geometry shrinks (classes up to 256 B, 1 KiB slabs, an idle cap of one
//! slab) so that a model reaches the slow paths in a handful of allocations.

use std::alloc::Layout;

#[cfg(not(loom))]
mod geometry {
    /// log2 of the largest pooled block.
    pub(crate) const MAX_SHIFT: u32 = 12;
    /// log2 of a slab's size and alignment. 256 KiB: above glibc's mmap threshold, and the pool
    /// maps slabs itself on unix anyway, so a released slab goes back to the OS.
    pub(crate) const SLAB_SHIFT: u32 = 18;
}

#[cfg(loom)]
mod geometry {
    pub(crate) const MAX_SHIFT: u32 = 8;
    pub(crate) const SLAB_SHIFT: u32 = 10;
}

pub(crate) use crate::tuning::{
    POOL_IDLE_CAP_SLABS as IDLE_CAP_SLABS, POOL_SCAN_BUDGET as SCAN_BUDGET,
    POOL_TRIM_FLOOR_SLABS as TRIM_FLOOR_SLABS,
};
use geometry::{MAX_SHIFT, SLAB_SHIFT};

/// The smallest block the pool hands out, in bytes.
pub const MIN_BLOCK: usize = 64;

/// The largest pooled block, in bytes: a layout whose size or alignment exceeds it is served by
/// the global allocator.
pub const MAX_POOLED: usize = 1 << MAX_SHIFT;

/// Size of a slab in bytes; slabs are aligned to it, which is how a block finds its slab.
pub const SLAB_SIZE: usize = 1 << SLAB_SHIFT;

/// Classes of the 8-byte steps (64..=128) and of the 16-byte steps (144..=256).
const STEP8: usize = 9;
const STEP16: usize = 8;

/// Number of size classes: the steps, then one per power of two above 256.
pub(crate) const NUM_CLASSES: usize = STEP8 + STEP16 + (MAX_SHIFT - 8) as usize;

const _: () = assert!(MAX_SHIFT >= 8, "the stepped classes reach 256 bytes");

/// Block size of each class.
const SIZES: [usize; NUM_CLASSES] = {
    let mut sizes = [0; NUM_CLASSES];
    let mut i = 0;
    while i < NUM_CLASSES {
        sizes[i] = if i < STEP8 {
            MIN_BLOCK + 8 * i
        } else if i < STEP8 + STEP16 {
            128 + 16 * (i + 1 - STEP8)
        } else {
            256 << (i + 1 - STEP8 - STEP16)
        };
        i += 1;
    }
    sizes
};

/// A size class: an index into `0..NUM_CLASSES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Class(u8);

impl Class {
    /// The class serving `layout`, or `None` when it goes to the global allocator.
    ///
    /// `alloc` and `dealloc` both call this, so a block always returns by the road it came.
    #[inline]
    pub(crate) fn of(layout: Layout) -> Option<Class> {
        let size = layout.size();
        if size > MAX_POOLED || layout.align() > MAX_POOLED {
            return None;
        }
        let mut index = if size <= MIN_BLOCK {
            0
        } else if size <= 128 {
            (size - MIN_BLOCK).div_ceil(8)
        } else if size <= 256 {
            STEP8 - 1 + (size - 128).div_ceil(16)
        } else {
            // ceil(log2(size)) - 8, for size > 256.
            let shift = usize::BITS - (size - 1).leading_zeros();
            STEP8 + STEP16 - 1 + (shift - 8) as usize
        };
        // Every class is at least 8-aligned. Over-aligned layouts (rare) move up to a class
        // aligned enough; the last class is aligned to `MAX_POOLED`, so this ends.
        if layout.align() > 8 {
            while Class(index as u8).align() < layout.align() {
                index += 1;
            }
        }
        Some(Class(index as u8))
    }

    /// The class of index `index`.
    pub(crate) fn from_index(index: usize) -> Class {
        debug_assert!(index < NUM_CLASSES);
        Class(index as u8)
    }

    /// Index into per-class tables.
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }

    /// Size of this class's blocks.
    #[inline]
    pub(crate) fn block_size(self) -> usize {
        SIZES[self.index()]
    }

    /// Alignment of this class's blocks: the largest power of two dividing the block size.
    #[inline]
    pub(crate) fn align(self) -> usize {
        let size = self.block_size();
        size & size.wrapping_neg()
    }

    /// Offset of the first block in a slab whose header takes `header` bytes: the header rounded
    /// up to the block alignment, so every block (at `first_offset + k * block_size`) is aligned.
    pub(crate) fn first_offset(self, header: usize) -> usize {
        header.next_multiple_of(self.align())
    }
}

/// The layout of the block [`alloc`](super::alloc) really hands out for `layout`: its class's
/// size and alignment when pooled, else `layout` itself (the global allocator's). Allocating
/// with this layout gets the same block (and it must then be freed with this layout too); it
/// tells a caller how much room the block has.
pub fn block_layout(layout: Layout) -> Layout {
    match Class::of(layout) {
        Some(class) if !super::BYPASS => Layout::from_size_align(class.block_size(), class.align())
            .expect("a pool size class is a valid layout"),
        _ => layout,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(size: usize, align: usize) -> Option<Class> {
        Class::of(Layout::from_size_align(size, align).unwrap())
    }

    #[test]
    fn classes_step_by_8_then_16_then_double() {
        let sizes: Vec<usize> = (0..NUM_CLASSES)
            .map(|i| Class::from_index(i).block_size())
            .collect();
        #[cfg(not(loom))]
        assert_eq!(
            sizes,
            [
                64, 72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176, 192, 208, 224, 240, 256,
                512, 1024, 2048, 4096
            ]
        );
        assert_eq!(*sizes.last().unwrap(), MAX_POOLED);
        assert_eq!(class(1, 1).map(Class::block_size), Some(MIN_BLOCK));
        assert_eq!(class(MIN_BLOCK, 8).map(Class::block_size), Some(MIN_BLOCK));
        assert_eq!(class(65, 8).map(Class::block_size), Some(72));
        assert_eq!(class(72, 8).map(Class::block_size), Some(72));
        assert_eq!(class(73, 8).map(Class::block_size), Some(80));
        assert_eq!(class(129, 8).map(Class::block_size), Some(144));
        assert_eq!(class(257, 8).map(Class::block_size), Some(512));
        assert_eq!(
            class(MAX_POOLED, 8).map(Class::index),
            Some(NUM_CLASSES - 1)
        );
        assert_eq!(class(MAX_POOLED + 1, 8), None);
        assert_eq!(class(8, 2 * MAX_POOLED), None);
    }

    #[test]
    fn every_size_and_alignment_gets_a_class_that_holds_it() {
        for size in 1..=MAX_POOLED {
            let mut align = 1;
            while align <= MAX_POOLED {
                let c = class(size, align).unwrap();
                assert!(
                    c.block_size() >= size && c.align() >= align,
                    "{size} {align}"
                );
                if c.index() > 0 {
                    // The smallest such class.
                    let below = Class::from_index(c.index() - 1);
                    assert!(below.block_size() < size || below.align() < align);
                }
                // The block's own layout maps to the same class (`block_layout` round trip).
                let own = Layout::from_size_align(c.block_size(), c.align()).unwrap();
                assert_eq!(Class::of(own), Some(c));
                align *= 2;
            }
        }
    }
}
