//! A slab: one [`SLAB_SIZE`]-aligned region carved into blocks of one size class, with its header
//! at the base. This file owns the layout of the slab's packed `remote` word (below); nobody else
//! masks its bits.
//!
//! ```text
//!  base (aligned to SLAB_SIZE)                                            base + SLAB_SIZE
//!  +--------------------+--------------+---------+---------+-----+---------+-- - - - -+
//!  | Shared (own cache  | owner, Local | padding | block 0 | ... | block k | untouched |
//!  | line: remote word, | (owner-only) | to the  |         |     |         | (bump     |
//!  | abandoned_live)    |              | class   |         |     |         |  area)    |
//!  +--------------------+--------------+---------+---------+-----+---------+-- - - - -+
//!                                      ^ first_offset: header rounded up to the block alignment
//! ```
//!
//! The remote word, written by every thread that frees a block of this slab it does not own:
//!
//! ```text
//!   63                                              3 2         1   0
//!  +-------------------------------------------------+-----------+---+
//!  | address bits 3..64 of the newest remote-freed   |   zero    | A |
//!  | block                                           |           |   |
//!  +-------------------------------------------------+-----------+---+
//!    A = ABANDONED: the owner gave the slab up (a full transient slab, or its thread exited),
//!        or there never was one (a detached slab).
//!    With A clear the address bits head a Treiber stack linked through each block's first word.
//!    With A set they are zero: nobody pushes any more (rule 4 in pool/mod.rs).
//! ```
//!
//! Blocks are at least 8-aligned (every class size is a multiple of 8, `class.rs`), so bits 0..3
//! of a block address are zero and the flag fits beside the pointer.

use std::ptr::{self, NonNull};

use crossbeam_utils::CachePadded;

use super::class::{Class, SLAB_SIZE};
use super::{counters, mapping};
use crate::sync::{AtomicUsize, Ordering, UnsafeCell};

/// Bit 0 of the remote word: the slab's owner gave it up (or it never had one).
const ABANDONED: usize = 1;

/// The owner id of the slabs no heap frees into by id: transient slabs (rule 9), and detached
/// ones (made for a thread whose heap is already destroyed). No heap ever has it.
pub(super) const NO_HEAP: usize = usize::MAX;

/// The header at the base of every slab.
#[repr(C)]
pub(super) struct Slab {
    /// What remote threads write, on a cache line of its own so remote frees do not slow the
    /// owner's hot path.
    shared: CachePadded<Shared>,
    /// Id of the owning heap (or [`NO_HEAP`]). Written once when the slab is mapped, before any
    /// block is handed out; read by every `dealloc` to tell a local free from a remote one.
    owner: usize,
    /// Owner-only state (rule 1).
    local: UnsafeCell<Local>,
}

struct Shared {
    /// The packed remote word (diagram above).
    remote: AtomicUsize,
    /// Live blocks once the slab is abandoned, counted as described in rule 5; zero before.
    abandoned_live: AtomicUsize,
}

/// The owner's view of a slab.
#[derive(Debug)]
pub(super) struct Local {
    /// The class this slab is carved for; changes only while the slab is fully free.
    pub(super) class: Class,
    /// Head of the local free list, linked through each free block's first word.
    free: *mut u8,
    /// Offset of the first never-used block.
    bump: usize,
    /// Blocks handed out and not yet back on the local free list.
    pub(super) used: usize,
    /// Links in the heap's per-class list (or, for `next`, its idle stack).
    pub(super) prev: *mut Slab,
    pub(super) next: *mut Slab,
}

/// The slab holding `block`: the block's address rounded down to `SLAB_SIZE`.
#[inline]
pub(super) fn slab_of(block: NonNull<u8>) -> NonNull<Slab> {
    let base = block.as_ptr().map_addr(|addr| addr & !(SLAB_SIZE - 1));
    // SAFETY: a pooled block lies inside its slab, after the header, so the base is not null.
    unsafe { NonNull::new_unchecked(base.cast()) }
}

impl Slab {
    /// Maps a slab owned by heap `owner`, carved for `class`, with no block handed out.
    pub(super) fn create(owner: usize, class: Class) -> NonNull<Slab> {
        let slab = mapping::map().cast::<Slab>();
        counters::slab_mapped();
        let header = Slab {
            shared: CachePadded::new(Shared {
                remote: AtomicUsize::new(0),
                abandoned_live: AtomicUsize::new(0),
            }),
            owner,
            local: UnsafeCell::new(Local {
                class,
                free: ptr::null_mut(),
                bump: class.first_offset(size_of::<Slab>()),
                used: 0,
                prev: ptr::null_mut(),
                next: ptr::null_mut(),
            }),
        };
        // SAFETY: the mapping is fresh, SLAB_SIZE-aligned and larger than the header.
        unsafe { slab.as_ptr().write(header) };
        slab
    }

    /// Hands out one block of `class` from a slab that belongs to nobody: for a thread whose heap
    /// is already destroyed. The slab is born abandoned with one live block, so freeing that block
    /// (on any thread) releases it (rule 5).
    pub(super) fn detached_block(class: Class) -> NonNull<u8> {
        let slab = Slab::create(NO_HEAP, class);
        counters::slab_abandoned();
        // SAFETY: the slab was just made and is shared with nobody yet.
        let block = unsafe { slab.as_ref().pop() }.expect("a fresh slab has a free block");
        // SAFETY: as above; the slab is ours alone until `block` is returned.
        let shared = unsafe { &slab.as_ref().shared };
        shared.remote.store(ABANDONED, Ordering::Relaxed);
        shared.abandoned_live.store(1, Ordering::Relaxed);
        block
    }

    /// Returns the slab's memory.
    ///
    /// # Safety
    ///
    /// No block of the slab is live and nobody touches the slab afterwards.
    pub(super) unsafe fn release(slab: NonNull<Slab>) {
        // SAFETY: per the caller the header is ours alone; it was written by `create`.
        unsafe { ptr::drop_in_place(slab.as_ptr()) };
        // SAFETY: `slab` is the base of a mapping made by `create`, unused from here on.
        unsafe { mapping::unmap(slab.cast()) };
        counters::slab_released();
    }

    /// Id of the owning heap, or [`NO_HEAP`].
    #[inline]
    pub(super) fn owner(&self) -> usize {
        self.owner
    }

    /// Runs `f` on the owner-only state.
    ///
    /// # Safety
    ///
    /// The caller is the slab's owner (rule 1) and `f` does not call back into this slab.
    #[inline]
    pub(super) unsafe fn local<R>(&self, f: impl FnOnce(&mut Local) -> R) -> R {
        // SAFETY: per the caller nobody else touches `local` now, so the `&mut` is unique.
        self.local.with_mut(|local| f(unsafe { &mut *local }))
    }

    /// Takes a block off the local free list, or carves a fresh one; `None` when the slab is full.
    ///
    /// # Safety
    ///
    /// The caller is the slab's owner.
    #[inline]
    pub(super) unsafe fn pop(&self) -> Option<NonNull<u8>> {
        let base = ptr::from_ref(self).cast::<u8>().cast_mut();
        let pop = |local: &mut Local| {
            let block = if let Some(block) = NonNull::new(local.free) {
                // SAFETY: a block on the free list holds the next link in its first word.
                local.free = unsafe { block.as_ptr().cast::<*mut u8>().read() };
                block
            } else {
                let size = local.class.block_size();
                if local.bump + size > SLAB_SIZE {
                    return None;
                }
                // SAFETY: `bump + size <= SLAB_SIZE`: the block lies inside the slab.
                let block = unsafe { NonNull::new_unchecked(base.add(local.bump)) };
                local.bump += size;
                block
            };
            local.used += 1;
            Some(block)
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.local(pop) }
    }

    /// Puts a block back on the local free list; returns the slab's class when that left it
    /// fully free.
    ///
    /// # Safety
    ///
    /// The caller is the slab's owner; `block` is a live block of this slab that nobody uses
    /// afterwards.
    #[inline]
    pub(super) unsafe fn push(&self, block: NonNull<u8>) -> Option<Class> {
        let push = |local: &mut Local| {
            // SAFETY: the block is ours, and a block is at least a pointer wide and aligned.
            unsafe { block.as_ptr().cast::<*mut u8>().write(local.free) };
            local.free = block.as_ptr();
            local.used -= 1;
            (local.used == 0).then_some(local.class)
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.local(push) }
    }

    /// Re-carves a fully free slab for `class`.
    ///
    /// # Safety
    ///
    /// The caller is the slab's owner and no block of the slab is live.
    pub(super) unsafe fn format(&self, class: Class) {
        debug_assert_eq!(self.shared.remote.load(Ordering::Relaxed), 0, "rule 7");
        // SAFETY: forwarded from the caller.
        unsafe {
            self.local(|local| {
                debug_assert_eq!(local.used, 0);
                local.class = class;
                local.free = ptr::null_mut();
                local.bump = class.first_offset(size_of::<Slab>());
            })
        }
    }

    /// Moves the blocks other threads freed onto the local free list (rule 3) and returns how
    /// many there were.
    ///
    /// # Safety
    ///
    /// The caller is the slab's owner.
    pub(super) unsafe fn collect_remote(&self) -> usize {
        let remote = &self.shared.remote;
        // A plain load first: no read-modify-write on the common empty list. Not under loom:
        // loom's DPOR remembers only an object's last access, so a remote freer's load-then-CAS
        // after this load would hide the race and the model would never push first.
        if cfg!(not(loom)) && remote.load(Ordering::Relaxed) == 0 {
            return 0;
        }
        // Acquire: pairs with each pusher's Release, so the links written before a push are
        // visible while we walk them.
        let head = remote.swap(0, Ordering::Acquire) as *mut u8;
        debug_assert_eq!(
            head as usize & ABANDONED,
            0,
            "only the owner sets ABANDONED"
        );
        // SAFETY: the list is ours since the swap: pushers only ever push (rule 3).
        let (tail, count) = unsafe { walk(head) };
        let splice = |local: &mut Local| {
            if let Some(tail) = NonNull::new(tail) {
                // SAFETY: `tail` is a free block of ours.
                unsafe { tail.as_ptr().cast::<*mut u8>().write(local.free) };
                local.free = head;
            }
            local.used -= count;
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.local(splice) };
        count
    }

    /// The owner's last act: marks the slab abandoned, takes the remote frees that came before,
    /// and hands the count of still-live blocks to whoever frees them (rules 4 and 5). Releases
    /// the slab at once when nothing is live.
    ///
    /// # Safety
    ///
    /// The caller is the slab's owner (rule 1), and never touches the slab again.
    pub(super) unsafe fn abandon(slab: NonNull<Slab>) {
        counters::slab_abandoned();
        // SAFETY: the slab is mapped until its last block is freed, which cannot happen before
        // the `fetch_add` below.
        let this = unsafe { slab.as_ref() };
        // Acquire: for the pushed links, as in `collect_remote`. What a releasing freer must see
        // of us is published by the `fetch_add` below.
        let head = this.shared.remote.swap(ABANDONED, Ordering::Acquire) as *mut u8;
        // SAFETY: the list is ours since the swap.
        let (_, pushed) = unsafe { walk(head) };
        // SAFETY: we are still the owner.
        let live = unsafe { this.local(|local| local.used) } - pushed;
        // Rule 5: the count may have gone below zero already (freers that came after the swap);
        // whoever moves it to zero releases the slab.
        let before = this.shared.abandoned_live.fetch_add(live, Ordering::AcqRel);
        if before.wrapping_add(live) == 0 {
            counters::abandoned_slab_drained();
            // SAFETY: no block is live and no freer will come: every one has counted down.
            unsafe { Slab::release(slab) };
        }
    }

    /// Frees `block` from a thread that does not own the slab (or whose heap is gone).
    ///
    /// # Safety
    ///
    /// `block` is a live block of `slab` that nobody uses afterwards.
    pub(super) unsafe fn free_remote(slab: NonNull<Slab>, block: NonNull<u8>) {
        // SAFETY: the slab stays mapped while `block` is live, which it is until the push (or the
        // count-down) below.
        let shared = unsafe { &slab.as_ref().shared };
        let mut word = shared.remote.load(Ordering::Relaxed);
        loop {
            if word & ABANDONED != 0 {
                // Rule 5. AcqRel: Release publishes our use of the block to whoever releases the
                // slab; Acquire, if that is us, makes everyone else's visible.
                if shared.abandoned_live.fetch_sub(1, Ordering::AcqRel) == 1 {
                    counters::abandoned_slab_drained();
                    // SAFETY: we freed the last live block; nobody else will touch the slab.
                    unsafe { Slab::release(slab) };
                }
                return;
            }
            // SAFETY: the block is ours until the push succeeds.
            unsafe { block.as_ptr().cast::<*mut u8>().write(word as *mut u8) };
            // Release: the link above (and our use of the block) happen before the owner's swap.
            match shared.remote.compare_exchange_weak(
                word,
                block.as_ptr() as usize,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(actual) => word = actual,
            }
        }
    }
}

/// Walks a free list: its last block (null for an empty list) and its length.
///
/// # Safety
///
/// Every block on the list is free and owned by the caller.
unsafe fn walk(head: *mut u8) -> (*mut u8, usize) {
    let (mut tail, mut count) = (ptr::null_mut(), 0);
    let mut cursor = head;
    while !cursor.is_null() {
        tail = cursor;
        count += 1;
        // SAFETY: per the caller, `cursor` is a free block holding the next link.
        cursor = unsafe { cursor.cast::<*mut u8>().read() };
    }
    (tail, count)
}
