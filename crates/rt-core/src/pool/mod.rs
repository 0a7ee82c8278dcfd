//! The frame pool: a size-classed slab allocator with per-thread heaps, from which task cells
//! (and anything else that asks) get their memory.
//!
//! # Shape
//!
//! Memory comes in *slabs*: [`SLAB_SIZE`] bytes (256 KiB), aligned to their size, mapped straight
//! from the OS (`mapping.rs`). A slab is carved into blocks of one *size class* (`class.rs`):
//! 8-byte steps from [`MIN_BLOCK`] (64 B) to 128 B, 16-byte steps to 256 B, then powers of two
//! to [`MAX_POOLED`] (4 KiB); a layout larger than that, in size or alignment, goes to the global
//! allocator. A block is aligned to the largest power of two dividing its size (at least 8;
//! [`block_layout`] gives a layout's block), and the slab holding a block is found by rounding
//! its address down to `SLAB_SIZE`: no per-block header, no lookup table.
//!
//! Every thread that allocates has a *heap* (`heap.rs`), a thread-local that owns slabs, and a
//! [`ThreadMode`] that decides which slabs its allocations come from:
//!
//! * **Recycling** (set by the runtime on its workers and the current-thread driver: threads
//!   that live long and free what they allocate): per class a ring of slabs to allocate from,
//!   and a small cache of idle (fully free) slabs. Freed blocks are reused; blocks freed by other
//!   threads wait in their slab until this thread collects them (when it runs dry, or on
//!   [`trim`]).
//! * **Transient** (the default: every other thread, e.g. one that spawns onto a runtime from
//!   outside it and may never allocate again): per class one *current* slab, filled once and then
//!   abandoned (rule 9), so whoever frees a full slab's last block releases it at once. Nobody
//!   has to come back to trim; what such a thread holds is at most its current slabs.
//!
//! Each slab (`slab.rs`) has a header at its base: the owner's free list, a bump offset for
//! never-used blocks, a count of used blocks, the ring links, and, on a cache line of its own,
//! the *remote word* that other threads push freed blocks onto.
//!
//! # Who touches what
//!
//! | field                          | written by                              | read by       |
//! |--------------------------------|-----------------------------------------|---------------|
//! | `Slab::owner` (heap id)        | its creator, before any block is out    | every dealloc |
//! | `Slab::local` (free list, bump, used, class, ring links) | the owner (rule 1) | the owner |
//! | `Slab::shared.remote`          | remote freers (push), the owner (swap)  | both          |
//! | `Slab::shared.abandoned_live`  | the abandoning owner, then freers       | both          |
//! | `Heap` (mode, rings, current slabs, idle stack, id) | its thread         | its thread    |
//!
//! # Paths
//!
//! * **alloc, hot**: look up the thread's heap, take the head slab of the class (Recycling) or
//!   its current slab (Transient): its free list, else its bump area. No atomic, no lock.
//! * **alloc, slow, Recycling** (the head is full): take the head's remote frees; else rotate the
//!   ring and look at the next slab, up to `SCAN_BUDGET` slabs; else take an idle slab, else map
//!   one.
//! * **alloc, slow, Transient** (the current slab is full): take its remote frees; else abandon
//!   it (rules 4, 9) and map a fresh current slab.
//! * **free, local** (the block's slab is one of this heap's recycling slabs, found by id, or its
//!   current slab of the class): push on the slab's free list. No atomic, no lock. A recycling
//!   slab that becomes fully free leaves the ring (rule 6).
//! * **free, remote** (anything else: another heap's slab, an abandoned one, or this thread's
//!   heap is gone): push on the slab's remote word with one CAS, or count down an abandoned
//!   slab's live blocks; nothing global.
//!
//! # Rules
//!
//! 1. A slab's `local` state is touched only by its *owner*: for a recycling slab the thread
//!    whose heap has the slab's id; for a transient slab the thread whose heap holds it as a
//!    current slab, until that heap abandons it. Remote threads read only the immutable `owner`
//!    and the `shared` atomics.
//! 2. `owner` is written once, when the slab is mapped, and never changes: an idle slab re-carved
//!    for another class keeps it. Heap ids are never reused, so a dead heap's id never matches a
//!    live heap. Transient and detached slabs have the id `NO_HEAP`, which no heap has.
//! 3. The remote word heads a Treiber stack: freers only push (link, then CAS with Release);
//!    the owner takes the whole stack with one `swap(0)` (Acquire) and walks it at leisure. No
//!    one pops a single block, so the ABA problem cannot arise: a pusher whose CAS succeeds has
//!    linked to the actual current head, whatever happened in between.
//! 4. Only the owner sets `ABANDONED`, once, as its last act on the slab, with a `swap` that also
//!    takes the pending remote frees; it is never cleared. After it no one pushes: a freer that
//!    sees `ABANDONED` (in its load or a failed CAS) counts down `abandoned_live` instead. A
//!    Transient heap abandons its current slab when it is full, a heap abandons all its slabs
//!    when its thread exits.
//! 5. On abandonment the owner adds `live = used - taken` to `abandoned_live`; each later freer
//!    subtracts one. The counter may dip below zero (wrapping) when freers come before the add,
//!    but it reaches zero exactly once, after all `live` blocks are back, and whoever makes it
//!    zero (the owner's add or a freer's subtract, all AcqRel) releases the slab.
//! 6. A fully free recycling slab that is not its ring's head leaves the ring at once: onto the
//!    idle stack while that holds fewer than `IDLE_CAP_SLABS` (4 = 1 MiB), else back to the OS.
//!    The head stays even when empty, so a tight alloc/free loop never touches the idle stack;
//!    so does a current slab.
//! 7. A fully free slab has an empty remote word: a block is pushed only while live, and the
//!    owner took every push when it counted the last block back.
//! 8. `alloc` and `dealloc` pick pooled or global by the layout alone (`Class::of`), so a block
//!    always returns by the road it came.
//! 9. The mode decides only where a heap allocates; a free goes by the slab (its id, or being
//!    the current slab of its class), so switching modes is safe at any time and affects slabs
//!    made afterwards. Slabs already made stay what they are: a heap's rings keep their slabs and
//!    its current slabs stay current, each used again when the mode comes back. A transient slab
//!    is always freshly mapped (an idle slab has a heap's id), is never re-carved, never idle,
//!    and leaves its heap only by abandonment (full, or thread exit) or, fully free, by [`trim`].
//!
//! # Threads that exit
//!
//! The heap's `Drop` releases its idle slabs and abandons every slab on its rings and every
//! current slab (rules 4-5): a fully free one is released there and then; one with live blocks
//! is released by whichever thread frees its last block. No global list and no lock: abandoned
//! slabs are not adopted by other heaps, so the free blocks of an abandoned slab stay unused
//! until it drains. Thread exit is rare in a runtime (workers live as long as it), so that is
//! cheap memory for a simpler protocol. Thread-local destructors may run after the heap's: a
//! `dealloc` that finds the heap gone takes the remote path (its slab is abandoned by then), and
//! an `alloc` that finds it gone gets its block from a *detached* slab, born abandoned with one
//! live block, released when that block is freed.
//!
//! # Memory held
//!
//! Per Recycling thread: the head slab of each class in use (at most 21), up to `IDLE_CAP_SLABS`
//! idle slabs, and slabs with live blocks. Blocks freed remotely into a slab wait in its remote
//! word until the owner next runs out of blocks in that class or calls [`trim`], which a worker
//! does before it parks for long; `trim` also releases empty heads (and empty current slabs) and
//! idle slabs down to one.
//!
//! Per Transient thread: its current slabs (at most one per class), whatever it freed or was
//! freed into them, until it allocates again or trims; every full slab it gave up is released
//! by the free of its last block. So a thread that spawns a million tasks onto a runtime and
//! stops keeps at most one slab per class it used once the workers have run them, and usually one.
//!
//! The price of Transient mode: a full slab's free blocks are not reused until it drains and
//! is released, and every slab is mapped afresh (one `mmap` per 256 KiB of blocks), the pages
//! faulted in anew. Blocks freed into the current slab (by anyone) are reused as in Recycling
//! mode.
//!
//! # Bypass for sanitizers
//!
//! Built with `--cfg rt_pool_bypass` (e.g. `RUSTFLAGS="--cfg rt_pool_bypass"`), [`alloc`] and
//! [`dealloc`] go straight to the global allocator for every layout, so AddressSanitizer,
//! valgrind and heap profilers see each task cell as an allocation of its own (out of a slab
//! they see only the slab). Nothing is pooled then: [`stats`] reports zeros, [`trim`] and
//! [`set_thread_mode`] have no effect, and the pool's own tests (`tests/pool_*.rs`, which
//! check slabs) are compiled out.
//!
//! # Under loom
//!
//! The same code runs with small slabs and caps (see `class.rs`), so the models in
//! `loom-tests/tests/pool.rs` reach every slow path in a few steps; slabs come from `loom::alloc`,
//! so a slab never released fails the model as a leak. Two deliberate departures: the owner's
//! relaxed "anything pushed?" load before its swap is skipped (see `Slab::collect_remote`), and
//! the process-wide counters (`counters.rs`, statistics only) are std atomics, because loom
//! cannot put its atomics in a `static` and drops its `lazy_static`s before thread-local
//! destructors run.

mod class;
mod counters;
mod heap;
mod mapping;
mod slab;

use std::alloc::Layout;
use std::marker::PhantomData;
use std::ptr::NonNull;

use self::class::Class;
pub use self::class::{block_layout, MAX_POOLED, MIN_BLOCK, SLAB_SIZE};
use self::heap::Heap;
use self::slab::{slab_of, Slab};

/// Whether every layout goes to the global allocator (`cfg(rt_pool_bypass)`, for sanitizers).
const BYPASS: bool = cfg!(rt_pool_bypass);

/// Most bytes of fully free slabs one thread keeps for reuse; beyond it they go back to the OS.
pub const IDLE_CAP_BYTES: usize = class::IDLE_CAP_SLABS * SLAB_SIZE;

/// Idle bytes [`trim`] leaves a thread.
pub const TRIM_FLOOR_BYTES: usize = class::TRIM_FLOOR_SLABS * SLAB_SIZE;

// loom's `thread_local!` takes no `const { }` initialiser (loom exception 3 in `sync.rs`).
#[cfg(not(loom))]
crate::sync::thread_local! {
    static HEAP: Heap = const { Heap::new() };
}

#[cfg(loom)]
crate::sync::thread_local! {
    static HEAP: Heap = Heap::new();
}

/// Allocates a block that fits `layout`.
///
/// Pooled when the size and the alignment are at most [`MAX_POOLED`]: the block then has the
/// size and alignment of its class ([`block_layout`]). Larger layouts come straight from the
/// global allocator. Calls [`std::alloc::handle_alloc_error`] when out of
/// memory. `layout.size()` must not be zero.
///
/// Under `cfg(rt_pool_bypass)` every layout goes to the global allocator.
#[inline]
pub fn alloc(layout: Layout) -> NonNull<u8> {
    debug_assert!(layout.size() > 0, "pool::alloc of a zero-sized layout");
    match Class::of(layout) {
        Some(class) if !BYPASS => HEAP
            .try_with(|heap| heap.alloc(class))
            .unwrap_or_else(|_| Slab::detached_block(class)),
        _ => {
            // SAFETY: the caller guarantees a non-zero size.
            let ptr = unsafe { std::alloc::alloc(layout) };
            NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
        }
    }
}

/// Returns a block to the pool (or to the global allocator, for the layouts `alloc` sent there).
///
/// May be called on any thread, including one other than the allocating thread, and after this
/// thread's heap is gone.
///
/// # Safety
///
/// `ptr` came from [`alloc`] with this same `layout` and is not used afterwards.
#[inline]
pub unsafe fn dealloc(ptr: NonNull<u8>, layout: Layout) {
    let class = match Class::of(layout) {
        Some(class) if !BYPASS => class,
        _ => {
            // SAFETY: per rule 8 (and `BYPASS`, the same in both) the block came from
            // `std::alloc::alloc(layout)`.
            unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
            return;
        }
    };
    let slab = slab_of(ptr);
    // SAFETY: the block is live, so its slab is mapped (rule 5) and its `owner` immutable.
    let owner = unsafe { slab.as_ref().owner() };
    let freed = HEAP
        // SAFETY: the block is live, of `slab`, of `class` (rule 8), and the caller gives it up.
        .try_with(|heap| unsafe { heap.try_free_local(slab, owner, class, ptr) })
        .unwrap_or(false);
    if !freed {
        // SAFETY: the caller gives the block up.
        unsafe { Slab::free_remote(slab, ptr) };
    }
}

/// Releases this thread's idle pool memory down to [`TRIM_FLOOR_BYTES`]: takes the blocks other
/// threads freed into its slabs, and returns every fully free slab beyond the floor to the OS
/// (a fully free current slab of Transient mode too: it never counts towards the floor).
///
/// Called by a worker about to park for long. Cheap when there is nothing to do.
pub fn trim() {
    let _ = HEAP.try_with(Heap::trim);
}

/// How this thread's heap treats freed blocks: which slabs its allocations come from (see the
/// module docs and rule 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadMode {
    /// Default for threads the runtime owns and that free what they allocate (workers, the
    /// current-thread driver): freed blocks are recycled through the thread's free lists.
    Recycling,
    /// Default for every other thread: blocks come from slabs the thread fills once and then
    /// abandons (when full), so whoever frees a slab's last block releases it at once; no thread
    /// has to come back to trim.
    #[default]
    Transient,
}

/// Sets this thread's [`ThreadMode`]. It affects where later allocations go and the slabs made
/// for them; slabs made before stay as they are, and their blocks may be freed anywhere as
/// ever (rule 9). A thread starts [`ThreadMode::Transient`]. No effect once the thread's heap is
/// destroyed (in a late thread-local destructor), nor under `cfg(rt_pool_bypass)`.
pub fn set_thread_mode(mode: ThreadMode) {
    let _ = HEAP.try_with(|heap| heap.set_mode(mode));
}

/// This thread's [`ThreadMode`] ([`ThreadMode::Transient`] once its heap is destroyed).
pub fn thread_mode() -> ThreadMode {
    HEAP.try_with(Heap::mode).unwrap_or_default()
}

/// Sets this thread's mode until the guard is dropped, which restores the mode it had before:
/// for a driver that runs on a thread it does not own (the current-thread `block_on`).
#[must_use = "the previous mode comes back when the guard is dropped"]
pub fn enter_thread_mode(mode: ThreadMode) -> ThreadModeGuard {
    let previous = thread_mode();
    set_thread_mode(mode);
    ThreadModeGuard {
        previous,
        _not_send: PhantomData,
    }
}

/// Restores a thread's previous [`ThreadMode`] when dropped (see [`enter_thread_mode`]).
#[derive(Debug)]
pub struct ThreadModeGuard {
    previous: ThreadMode,
    /// The mode is per thread: the guard must be dropped where it was made.
    _not_send: PhantomData<*const ()>,
}

impl Drop for ThreadModeGuard {
    fn drop(&mut self) {
        set_thread_mode(self.previous);
    }
}

/// The pool's counters, for tests and benchmarks. Per-thread fields describe the calling
/// thread's heap; the process-wide ones are read with relaxed loads and are exact only when no
/// other thread is using the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes of fully free slabs this thread keeps for reuse, at most [`IDLE_CAP_BYTES`]. Empty
    /// head slabs and current slabs (one per class at most, each) are not counted.
    pub idle_bytes: usize,
    /// Slabs this thread owns: allocated from (on a ring, or current), or idle.
    pub owned_slabs: usize,
    /// Slabs mapped process-wide and not yet released: owned, idle or abandoned.
    pub live_slabs: usize,
    /// Slabs process-wide given up by their owner while blocks in them were live (full transient
    /// slabs, slabs of exited threads, and detached ones), not yet drained.
    pub abandoned_slabs: usize,
}

/// A snapshot of the pool's counters (see [`PoolStats`]).
pub fn stats() -> PoolStats {
    let (idle_bytes, owned_slabs) = HEAP
        .try_with(|heap| (heap.idle_bytes(), heap.owned_slabs()))
        .unwrap_or((0, 0));
    PoolStats {
        idle_bytes,
        owned_slabs,
        live_slabs: counters::live_slabs(),
        abandoned_slabs: counters::abandoned_slabs(),
    }
}
