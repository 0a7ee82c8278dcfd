//! Where slab memory comes from: [`SLAB_SIZE`] bytes aligned to [`SLAB_SIZE`], and back.
//!
//! On unix (outside loom) the pool maps slabs itself with `mmap` and unmaps them with `munmap`,
//! so a released slab's pages go back to the OS at once. Going through `std::alloc` would leave
//! that to glibc, whose mmap threshold rises after the first large free: later slabs would then
//! come from the brk heap and stay resident after release. Elsewhere, and under loom, slabs come
//! from the global allocator with a `SLAB_SIZE` alignment (under loom through `loom::alloc`, so
//! that a slab never released is reported as a leak at the end of an execution).
//!
//! Fresh memory is untouched: the slab's blocks are carved lazily, so pages that are never handed
//! out never become resident.

use std::ptr::NonNull;

use super::class::SLAB_SIZE;

/// Maps one slab: `SLAB_SIZE` bytes aligned to `SLAB_SIZE`, readable and writable, zeroed or not.
/// Calls `handle_alloc_error` when the system is out of memory.
pub(super) fn map() -> NonNull<u8> {
    match imp::map() {
        Some(ptr) => ptr,
        None => std::alloc::handle_alloc_error(layout()),
    }
}

/// Returns a slab's memory.
///
/// # Safety
///
/// `base` came from [`map`] and nothing uses the slab afterwards.
pub(super) unsafe fn unmap(base: NonNull<u8>) {
    // SAFETY: forwarded from the caller.
    unsafe { imp::unmap(base) }
}

fn layout() -> std::alloc::Layout {
    // SLAB_SIZE is a power of two and far below isize::MAX.
    std::alloc::Layout::from_size_align(SLAB_SIZE, SLAB_SIZE).expect("slab layout")
}

#[cfg(all(unix, not(loom)))]
mod imp {
    use std::ptr::NonNull;

    use super::SLAB_SIZE;

    pub(super) fn map() -> Option<NonNull<u8>> {
        // Map twice the size, then cut the unaligned head and the tail away.
        let span = 2 * SLAB_SIZE;
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing aliases
        // nothing.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                span,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return None;
        }
        let start = raw as usize;
        let aligned = start.next_multiple_of(SLAB_SIZE);
        let head = aligned - start;
        let tail = span - head - SLAB_SIZE;
        if head > 0 {
            // SAFETY: `[start, aligned)` is part of the mapping just made and unused.
            unsafe { libc::munmap(raw, head) };
        }
        if tail > 0 {
            // SAFETY: `[aligned + SLAB_SIZE, start + span)` is part of the mapping and unused.
            unsafe { libc::munmap((aligned + SLAB_SIZE) as *mut libc::c_void, tail) };
        }
        NonNull::new(aligned as *mut u8)
    }

    /// # Safety
    ///
    /// `base` came from `map` and is not used afterwards.
    pub(super) unsafe fn unmap(base: NonNull<u8>) {
        // SAFETY: per the caller, `[base, base + SLAB_SIZE)` is a mapping of ours nobody uses.
        let rc = unsafe { libc::munmap(base.as_ptr().cast(), SLAB_SIZE) };
        debug_assert_eq!(rc, 0, "munmap of a slab failed");
    }
}

#[cfg(all(not(unix), not(loom)))]
mod imp {
    use std::ptr::NonNull;

    pub(super) fn map() -> Option<NonNull<u8>> {
        // SAFETY: the layout has a non-zero size.
        NonNull::new(unsafe { std::alloc::alloc(super::layout()) })
    }

    /// # Safety
    ///
    /// `base` came from `map` and is not used afterwards.
    pub(super) unsafe fn unmap(base: NonNull<u8>) {
        // SAFETY: per the caller, `base` came from `alloc` with this very layout.
        unsafe { std::alloc::dealloc(base.as_ptr(), super::layout()) }
    }
}

/// Under loom, through loom's allocator: a slab still mapped when an execution ends is reported
/// as a leak (loom exception 4 in `rt_core::sync`).
#[cfg(loom)]
mod imp {
    use std::ptr::NonNull;

    pub(super) fn map() -> Option<NonNull<u8>> {
        // SAFETY: the layout has a non-zero size.
        NonNull::new(unsafe { loom::alloc::alloc(super::layout()) })
    }

    /// # Safety
    ///
    /// `base` came from `map` and is not used afterwards.
    pub(super) unsafe fn unmap(base: NonNull<u8>) {
        // SAFETY: per the caller, `base` came from `alloc` with this very layout.
        unsafe { loom::alloc::dealloc(base.as_ptr(), super::layout()) }
    }
}
