//! The per-thread heap: its [`ThreadMode`], for each size class a ring of the recycling slabs
//! this thread owns and at most one *current* transient slab, an idle cache of fully free
//! recycling slabs, and the thread's heap id. Everything here is touched by its own thread only,
//! so it is all `Cell`s; the remote side of a slab lives in `slab.rs`.
//!
//! Recycling mode: per class the slabs form a circular doubly linked list through
//! `Local::{prev, next}`; its head is the slab allocation draws from. The slow path rotates the
//! ring: a full head moves to the back and the next slab gets its turn, so each full slab is
//! looked at again (for remote frees) once every lap, and a lap is bounded by `SCAN_BUDGET` slabs
//! per slow path.
//!
//! Transient mode: per class allocation draws from the current slab only. When it is full the
//! slow path takes its remote frees; if there are none it abandons the slab (rule 4) and maps a
//! fresh one, so a full transient slab belongs to nobody and is released by whoever frees its
//! last block (rule 9).

use std::cell::Cell;
use std::ptr::{self, NonNull};

use super::class::{Class, IDLE_CAP_SLABS, NUM_CLASSES, SCAN_BUDGET, SLAB_SIZE, TRIM_FLOOR_SLABS};
use super::counters;
use super::slab::{Slab, NO_HEAP};
use super::ThreadMode;

/// One thread's heap (see the module docs).
#[derive(Debug)]
pub(super) struct Heap {
    /// This heap's id, given on its first slab; 0 until then (no slab has owner 0).
    id: Cell<usize>,
    /// Per class, the head of the ring of owned slabs (null when there are none).
    rings: [Cell<*mut Slab>; NUM_CLASSES],
    /// Top of the stack of idle (fully free) slabs, linked through `Local::next`.
    idle: Cell<*mut Slab>,
    /// Length of the idle stack, at most `IDLE_CAP_SLABS` (rule 6).
    idle_len: Cell<usize>,
    /// Slabs this heap owns: on a ring, idle, or current.
    owned: Cell<usize>,
    /// Per class, the transient slab Transient mode allocates from (null when there is none).
    /// Its owner is `NO_HEAP`; this heap holds it until it abandons it (rule 9).
    current: [Cell<*mut Slab>; NUM_CLASSES],
    /// Where allocation goes: the rings or the current slabs.
    mode: Cell<ThreadMode>,
}

impl Heap {
    pub(super) const fn new() -> Heap {
        Heap {
            id: Cell::new(0),
            rings: [const { Cell::new(ptr::null_mut()) }; NUM_CLASSES],
            idle: Cell::new(ptr::null_mut()),
            idle_len: Cell::new(0),
            owned: Cell::new(0),
            current: [const { Cell::new(ptr::null_mut()) }; NUM_CLASSES],
            mode: Cell::new(ThreadMode::Transient),
        }
    }

    /// The mode allocation follows.
    pub(super) fn mode(&self) -> ThreadMode {
        self.mode.get()
    }

    /// Sends later allocations to the rings (Recycling) or the current slabs (Transient). Slabs
    /// already made stay as they are: frees go by the slab, not by the mode (rule 9).
    pub(super) fn set_mode(&self, mode: ThreadMode) {
        self.mode.set(mode);
    }

    /// Bytes held in idle slabs.
    pub(super) fn idle_bytes(&self) -> usize {
        self.idle_len.get() * SLAB_SIZE
    }

    /// Slabs owned, on a ring, idle or current.
    pub(super) fn owned_slabs(&self) -> usize {
        self.owned.get()
    }

    /// A block of `class`.
    #[inline]
    pub(super) fn alloc(&self, class: Class) -> NonNull<u8> {
        let mode = self.mode.get();
        let head = match mode {
            ThreadMode::Recycling => self.rings[class.index()].get(),
            ThreadMode::Transient => self.current[class.index()].get(),
        };
        if let Some(head) = NonNull::new(head) {
            // SAFETY: slabs on our rings, and our current slabs, are ours (rule 1).
            if let Some(block) = unsafe { head.as_ref().pop() } {
                return block;
            }
        }
        match mode {
            ThreadMode::Recycling => self.alloc_slow(class),
            ThreadMode::Transient => self.alloc_transient_slow(class),
        }
    }

    #[cold]
    fn alloc_slow(&self, class: Class) -> NonNull<u8> {
        let ring = &self.rings[class.index()];
        let first = ring.get();
        for _ in 0..SCAN_BUDGET {
            let Some(head) = NonNull::new(ring.get()) else {
                break;
            };
            // SAFETY: slabs on our rings are ours.
            let head = unsafe { head.as_ref() };
            // SAFETY: as above.
            unsafe { head.collect_remote() };
            // SAFETY: as above.
            if let Some(block) = unsafe { head.pop() } {
                return block;
            }
            // SAFETY: as above: the head is ours, and so is every slab it links to.
            let next = unsafe { head.local(|local| local.next) };
            ring.set(next);
            if next == first {
                break;
            }
        }
        // Every slab looked at is full: the head is full too, so rule 6 holds after the push.
        let slab = self.fresh_slab(class);
        // SAFETY: the slab is ours.
        unsafe { self.push_front(class, slab) };
        // SAFETY: as above.
        unsafe { slab.as_ref().pop() }.expect("a fresh slab has a free block")
    }

    /// Transient mode, the current slab of `class` is full (or there is none): take its remote
    /// frees, else abandon it and map a fresh current slab (rule 9).
    #[cold]
    fn alloc_transient_slow(&self, class: Class) -> NonNull<u8> {
        let slot = &self.current[class.index()];
        if let Some(slab) = NonNull::new(slot.get()) {
            // SAFETY: our current slab is ours (rule 1).
            unsafe {
                slab.as_ref().collect_remote();
                if let Some(block) = slab.as_ref().pop() {
                    return block;
                }
            }
            // Full, and nothing came back: give it up. From here on its blocks are counted
            // down by whoever frees them, us included (`try_free_local` no longer sees it).
            slot.set(ptr::null_mut());
            self.owned.set(self.owned.get() - 1);
            // SAFETY: the slab is ours, on no list now, and we never touch it again.
            unsafe { Slab::abandon(slab) };
        }
        self.owned.set(self.owned.get() + 1);
        let slab = Slab::create(NO_HEAP, class);
        slot.set(slab.as_ptr());
        // SAFETY: the slab is our current one.
        unsafe { slab.as_ref().pop() }.expect("a fresh slab has a free block")
    }

    /// Frees `block` of `slab` (of `class`, with owner id `owner`) here when the slab is ours:
    /// one of our recycling slabs, or our current transient slab. Returns `false`, having done
    /// nothing, when the block must take the remote path.
    ///
    /// # Safety
    ///
    /// `block` is a live block of `slab`, which is carved for `class` and has owner `owner`; the
    /// block is not used afterwards if this returns `true`.
    #[inline]
    pub(super) unsafe fn try_free_local(
        &self,
        slab: NonNull<Slab>,
        owner: usize,
        class: Class,
        block: NonNull<u8>,
    ) -> bool {
        if owner == self.id.get() {
            // SAFETY: the slab is this heap's (rule 1); forwarded from the caller.
            unsafe { self.free_local(slab, block) };
            return true;
        }
        if self.current[class.index()].get() == slab.as_ptr() {
            // A current slab stays current even when this leaves it fully free, as a ring head
            // does (rule 6): `trim` releases it.
            // SAFETY: our current slab is ours (rule 1); forwarded from the caller.
            let _ = unsafe { slab.as_ref().push(block) };
            return true;
        }
        false
    }

    /// Frees a block of one of our recycling slabs.
    ///
    /// # Safety
    ///
    /// `slab` is owned by this heap and `block` is a live block of it, not used afterwards.
    #[inline]
    unsafe fn free_local(&self, slab: NonNull<Slab>, block: NonNull<u8>) {
        // SAFETY: forwarded from the caller.
        if let Some(class) = unsafe { slab.as_ref().push(block) } {
            // Rule 6: a fully free slab that is not its ring's head leaves the ring.
            if self.rings[class.index()].get() != slab.as_ptr() {
                // SAFETY: forwarded from the caller; the slab has no live block.
                unsafe { self.take_off_ring(class, slab) };
            }
        }
    }

    /// Moves a fully free slab from its ring to the idle stack (or the OS).
    ///
    /// # Safety
    ///
    /// `slab` is owned by this heap, on `class`'s ring, with no live block.
    #[cold]
    unsafe fn take_off_ring(&self, class: Class, slab: NonNull<Slab>) {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.unlink(class, slab);
            self.retire(slab);
        }
    }

    /// Collects every slab's remote frees, retires the fully free ones, releases fully free
    /// current slabs, and releases idle slabs down to `TRIM_FLOOR_SLABS`.
    pub(super) fn trim(&self) {
        for index in 0..NUM_CLASSES {
            let class = Class::from_index(index);
            if let Some(slab) = NonNull::new(self.current[index].get()) {
                // SAFETY: our current slab is ours; a fully free one has an empty remote word
                // (rule 7) and no block for anyone to free, so it can go at once.
                unsafe {
                    slab.as_ref().collect_remote();
                    if slab.as_ref().local(|local| local.used) == 0 {
                        self.current[index].set(ptr::null_mut());
                        self.owned.set(self.owned.get() - 1);
                        Slab::release(slab);
                    }
                }
            }
            let mut cursor = self.rings[index].get();
            // SAFETY: every slab on our rings is ours.
            for _ in 0..unsafe { self.ring_len(class) } {
                let slab = NonNull::new(cursor).expect("a ring of this length");
                // SAFETY: as above; an unlinked slab still holds its old `next`, which stays on
                // the ring.
                unsafe {
                    cursor = slab.as_ref().local(|local| local.next);
                    slab.as_ref().collect_remote();
                    if slab.as_ref().local(|local| local.used) == 0 {
                        self.take_off_ring(class, slab);
                    }
                }
            }
        }
        while self.idle_len.get() > TRIM_FLOOR_SLABS {
            let slab = self.pop_idle().expect("idle_len counts the stack");
            self.owned.set(self.owned.get() - 1);
            // SAFETY: an idle slab has no live block, and it is off every list now.
            unsafe { Slab::release(slab) };
        }
    }

    /// A slab carved for `class` with no live block, not on any list: an idle one if we have one,
    /// else a fresh mapping.
    fn fresh_slab(&self, class: Class) -> NonNull<Slab> {
        if let Some(slab) = self.pop_idle() {
            // SAFETY: idle slabs are ours and fully free.
            unsafe { slab.as_ref().format(class) };
            return slab;
        }
        if self.id.get() == 0 {
            self.id.set(counters::next_heap_id());
        }
        self.owned.set(self.owned.get() + 1);
        Slab::create(self.id.get(), class)
    }

    /// Parks a fully free slab that is on no list: on the idle stack while it is under the cap,
    /// else back to the system.
    ///
    /// # Safety
    ///
    /// `slab` is ours, fully free and on no list.
    unsafe fn retire(&self, slab: NonNull<Slab>) {
        if self.idle_len.get() < IDLE_CAP_SLABS {
            // SAFETY: the slab is ours.
            unsafe { slab.as_ref().local(|local| local.next = self.idle.get()) };
            self.idle.set(slab.as_ptr());
            self.idle_len.set(self.idle_len.get() + 1);
        } else {
            self.owned.set(self.owned.get() - 1);
            // SAFETY: per the caller nothing is live in it and nothing points at it.
            unsafe { Slab::release(slab) };
        }
    }

    fn pop_idle(&self) -> Option<NonNull<Slab>> {
        let slab = NonNull::new(self.idle.get())?;
        // SAFETY: idle slabs are ours.
        let next = unsafe { slab.as_ref().local(|local| local.next) };
        self.idle.set(next);
        self.idle_len.set(self.idle_len.get() - 1);
        Some(slab)
    }

    /// Number of slabs on `class`'s ring.
    ///
    /// # Safety
    ///
    /// The ring is well formed (every slab on it is ours).
    unsafe fn ring_len(&self, class: Class) -> usize {
        let head = self.rings[class.index()].get();
        if head.is_null() {
            return 0;
        }
        let (mut len, mut cursor) = (1, head);
        loop {
            // SAFETY: per the caller.
            cursor = unsafe { (*cursor).local(|local| local.next) };
            if cursor == head {
                return len;
            }
            len += 1;
        }
    }

    /// Makes `slab` the head of `class`'s ring.
    ///
    /// # Safety
    ///
    /// `slab` is ours and on no list.
    unsafe fn push_front(&self, class: Class, slab: NonNull<Slab>) {
        let ring = &self.rings[class.index()];
        let s = slab.as_ptr();
        let head = ring.get();
        // SAFETY: `slab` and every slab on the ring are ours; each closure touches one slab.
        unsafe {
            if head.is_null() {
                (*s).local(|local| (local.prev, local.next) = (s, s));
            } else {
                let tail = (*head).local(|local| local.prev);
                (*s).local(|local| (local.prev, local.next) = (tail, head));
                (*tail).local(|local| local.next = s);
                (*head).local(|local| local.prev = s);
            }
        }
        ring.set(s);
    }

    /// Takes `slab` off `class`'s ring.
    ///
    /// # Safety
    ///
    /// `slab` is ours and on that ring.
    unsafe fn unlink(&self, class: Class, slab: NonNull<Slab>) {
        let ring = &self.rings[class.index()];
        let s = slab.as_ptr();
        // SAFETY: `slab` and its neighbours are ours; each closure touches one slab.
        unsafe {
            let (prev, next) = (*s).local(|local| (local.prev, local.next));
            if next == s {
                ring.set(ptr::null_mut());
            } else {
                (*prev).local(|local| local.next = next);
                (*next).local(|local| local.prev = prev);
                if ring.get() == s {
                    ring.set(next);
                }
            }
        }
    }
}

impl Drop for Heap {
    /// The thread is exiting: idle slabs go back to the system, and every slab on a ring, and
    /// every current slab, is abandoned (rule 4): released now if fully free, else by whoever
    /// frees its last block.
    fn drop(&mut self) {
        for index in 0..NUM_CLASSES {
            let class = Class::from_index(index);
            if let Some(slab) = NonNull::new(self.current[index].replace(ptr::null_mut())) {
                // SAFETY: our current slab is ours, and we never touch it again.
                unsafe { Slab::abandon(slab) };
            }
            // SAFETY: our rings are well formed.
            let len = unsafe { self.ring_len(class) };
            let mut cursor = self.rings[index].get();
            for _ in 0..len {
                let slab = NonNull::new(cursor).expect("a ring of this length");
                // SAFETY: the slab is ours; we read its link before giving it up, and never
                // touch it again.
                unsafe {
                    cursor = slab.as_ref().local(|local| local.next);
                    Slab::abandon(slab);
                }
            }
            self.rings[index].set(ptr::null_mut());
        }
        while let Some(slab) = self.pop_idle() {
            // SAFETY: an idle slab has no live block and is now on no list.
            unsafe { Slab::release(slab) };
        }
        self.owned.set(0);
    }
}
