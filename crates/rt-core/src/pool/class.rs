//! Size classes and slab geometry: which layouts the pool serves, in which class, and how a slab
//! of each class is carved.
//!
//! A class is a power of two from [`MIN_BLOCK`] to [`MAX_POOLED`]. A layout's class is the
//! smallest one that holds `max(size, align)`, so a block of class `c` is `block_size(c)` bytes
//! and, because blocks sit at multiples of their size from a slab base aligned to [`SLAB_SIZE`],
//! aligned to `block_size(c)` as well. Anything larger than `MAX_POOLED` (in size or alignment)
//! goes straight to the global allocator.
//!
//! Under `cfg(loom)` the geometry shrinks (three classes, 1 KiB slabs, an idle cap of one slab) so
//! that a model reaches the slow paths in a handful of allocations.

use std::alloc::Layout;

#[cfg(not(loom))]
mod geometry {
    /// log2 of the smallest block.
    pub(crate) const MIN_SHIFT: u32 = 6;
    /// log2 of the largest pooled block.
    pub(crate) const MAX_SHIFT: u32 = 12;
    /// log2 of a slab's size and alignment. 256 KiB: above glibc's mmap threshold, and the pool
    /// maps slabs itself on unix anyway, so a released slab goes back to the OS.
    pub(crate) const SLAB_SHIFT: u32 = 18;
    /// Fully free slabs a thread keeps for reuse before it releases further ones.
    pub(crate) const IDLE_CAP_SLABS: usize = 4;
    /// Idle slabs `trim` leaves behind.
    pub(crate) const TRIM_FLOOR_SLABS: usize = 1;
    /// Slabs the allocation slow path inspects before it takes a fresh one.
    pub(crate) const SCAN_BUDGET: usize = 8;
}

#[cfg(loom)]
mod geometry {
    pub(crate) const MIN_SHIFT: u32 = 6;
    pub(crate) const MAX_SHIFT: u32 = 8;
    pub(crate) const SLAB_SHIFT: u32 = 10;
    pub(crate) const IDLE_CAP_SLABS: usize = 1;
    pub(crate) const TRIM_FLOOR_SLABS: usize = 0;
    pub(crate) const SCAN_BUDGET: usize = 2;
}

pub(crate) use geometry::{IDLE_CAP_SLABS, SCAN_BUDGET, TRIM_FLOOR_SLABS};
use geometry::{MAX_SHIFT, MIN_SHIFT, SLAB_SHIFT};

/// The smallest block the pool hands out, in bytes (also its smallest alignment).
pub const MIN_BLOCK: usize = 1 << MIN_SHIFT;

/// The largest pooled block, in bytes: a layout whose size or alignment exceeds it is served by
/// the global allocator.
pub const MAX_POOLED: usize = 1 << MAX_SHIFT;

/// Size of a slab in bytes; slabs are aligned to it, which is how a block finds its slab.
pub const SLAB_SIZE: usize = 1 << SLAB_SHIFT;

/// Number of size classes.
pub(crate) const NUM_CLASSES: usize = (MAX_SHIFT - MIN_SHIFT + 1) as usize;

/// A size class: an index into `0..NUM_CLASSES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Class(u8);

impl Class {
    /// The class serving `layout`, or `None` when it goes to the global allocator.
    ///
    /// `alloc` and `dealloc` both call this, so a block always returns by the road it came.
    #[inline]
    pub(crate) fn of(layout: Layout) -> Option<Class> {
        let need = layout.size().max(layout.align());
        if need > MAX_POOLED {
            return None;
        }
        let need = need.max(MIN_BLOCK);
        // ceil(log2(need)) for need >= 2.
        let shift = usize::BITS - (need - 1).leading_zeros();
        Some(Class((shift - MIN_SHIFT) as u8))
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

    /// Size (and alignment) of this class's blocks.
    #[inline]
    pub(crate) fn block_size(self) -> usize {
        MIN_BLOCK << self.0
    }

    /// Offset of the first block in a slab whose header takes `header` bytes: the header rounded
    /// up to the block size, so every block stays aligned to its size.
    pub(crate) fn first_offset(self, header: usize) -> usize {
        header.next_multiple_of(self.block_size())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_to_powers_of_two() {
        let class = |size, align| Class::of(Layout::from_size_align(size, align).unwrap());
        assert_eq!(class(1, 1).map(Class::block_size), Some(MIN_BLOCK));
        assert_eq!(class(MIN_BLOCK, 8).map(Class::block_size), Some(MIN_BLOCK));
        assert_eq!(
            class(MIN_BLOCK + 1, 8).map(Class::block_size),
            Some(2 * MIN_BLOCK)
        );
        assert_eq!(
            class(8, 2 * MIN_BLOCK).map(Class::block_size),
            Some(2 * MIN_BLOCK)
        );
        assert_eq!(
            class(MAX_POOLED, 8).map(Class::block_size),
            Some(MAX_POOLED)
        );
        assert_eq!(
            class(MAX_POOLED, 8).map(Class::index),
            Some(NUM_CLASSES - 1)
        );
        assert_eq!(class(MAX_POOLED + 1, 8), None);
        assert_eq!(class(8, 2 * MAX_POOLED), None);
    }
}
