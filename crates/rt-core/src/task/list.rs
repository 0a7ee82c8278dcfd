//! `OwnedTasks`: every live task of a scheduler, so shutdown can find and cancel the ones that
//! sit parked on a waker and are in no queue.
//!
//! A table of slots, one `AtomicPtr` per live task, and per-thread caches of free slot indices:
//!
//! ```text
//!  chunks:  [ 256 slots ][ 512 slots ][ 1024 slots ] ...   (allocated on demand, never moved)
//!  caches:  worker 0: free indices | worker 1: ... | shared (threads that are not workers)
//!  global:  free indices that overflowed a cache, and the next never-used index
//! ```
//!
//! * `bind` takes a free index from the caller's cache (refilled from `global` in batches),
//!   writes it into the new task's header (`Header::owned_slot`, fixed for the task's life), and
//!   stores the task pointer into the slot.
//! * `remove` swaps the slot back to null. Whoever swaps the task's pointer out — `remove` at
//!   completion, or `close_and_shutdown_all` — owns the list's reference; the other side sees
//!   null and does nothing. Only the remover returns the index, to its own cache.
//!
//! So a spawn and a completion on a worker touch no lock and no atomic but the slot (and the
//! `closed` flag): a worker's cache belongs to the thread running that worker (the contract of
//! [`OwnedTasks::bind_in`] and [`OwnedTasks::remove_in`]: one thread at a time, hand-offs
//! ordered, as `block_in_place` lends a worker to a substitute thread and takes it back by a
//! join), so it is a plain `Vec` behind an `UnsafeCell`, and its live count a relaxed load and
//! store. Other threads share one cache under a lock. (Until issue 14 each worker cache had an
//! uncontended lock: two atomic read-modify-writes per spawn and two per completion. An earlier
//! design with id-sharded locked slabs spent a third of `spawn_many_local` in those locks,
//! bouncing between the spawning worker and the one that stole and finished the tasks.)
//!
//! Closing races binding without a lock: `bind` stores its pointer and then reads `closed`;
//! `close_and_shutdown_all` sets `closed` and then swaps every slot. Between the write and the
//! read each side has one half of an asymmetric barrier pair (`crate::asym`): `bind` a compiler
//! fence, the close a `membarrier(2)` that makes every running thread execute a full barrier
//! (both are `SeqCst` fences under loom, and where the kernel lacks `membarrier`). So either the binder sees `closed` (and takes its task back with a swap, unless the
//! closer got it first) or the closer's swap finds the task. Indices are never returned after
//! the close. Modelled in `loom-tests/tests/shutdown.rs`.
//!
//! # Walking the list (task dumps)
//!
//! [`OwnedTasks::for_each_live`] visits every live task without a lock on the spawn or
//! completion path, while tasks complete and are freed concurrently. It may not read a header
//! through a slot's pointer alone (the task may be freed between the load and the read), so it
//! *borrows the list's reference*: it swaps the slot to null, reads the header while it holds
//! that reference, and swaps the pointer back. While the slot is empty:
//!
//! * a completing task's `remove` finds null, so, exactly as when a close took the task, it
//!   does not drop the list's reference nor return the index (the walker holds both);
//! * `close_and_shutdown_all` finds null and skips the slot;
//! * nothing else writes the slot: its index is not free (only the one that swaps the pointer
//!   out returns it), and `bind` writes only a slot whose index it took.
//!
//! After swapping the pointer back (`AcqRel`) the walker reads `closed` and the task's state.
//! If a remover or a closer found the slot empty, the put-back read what its swap wrote (the
//! slot's swaps form one modification order, and a read-modify-write reads the latest value),
//! so it synchronises with that swap and sees `COMPLETE` (set before the remove) or `closed`
//! (set before the close's swaps). Then the walker swaps the pointer out again and, if it gets
//! it, owns the list's reference: it shuts the task down (closed) or drops the reference and
//! returns the index (complete). If it gets null, the remover or closer came after the
//! put-back and did it. Either way exactly one side drops the list's reference. Walks are
//! serialised by a lock of their own (so two dumps each see every task); spawns and completions
//! never take it. Modelled in `loom-tests/tests/dump_walk.rs`.

use std::future::Future;
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use super::core::Header;
use super::id::Id;
use super::meta::SpawnMeta;
use super::raw::RawTask;
use super::{JoinHandle, Notified, Schedule, Task};
use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicPtr, AtomicUsize, Mutex, Ordering, UnsafeCell};

/// `Header::owned_slot` of a task that is in no list.
pub(crate) const UNOWNED: u32 = u32::MAX;

/// Slots in chunk 0; chunk `k` has `BASE << k`.
#[cfg(not(loom))]
const BASE_SHIFT: u32 = 8;
#[cfg(loom)]
const BASE_SHIFT: u32 = 1;
const BASE: u64 = 1 << BASE_SHIFT;
/// Enough chunks for every index below `UNOWNED`.
const CHUNKS: usize = (33 - BASE_SHIFT) as usize;

use crate::tuning::OWNED_BATCH as BATCH;
/// A cache holding more free indices than this gives `BATCH` back to `global`.
const CACHE_MAX: usize = 2 * BATCH;

type Slot = AtomicPtr<Header>;

/// Chunk and offset of slot `index`.
fn locate(index: u32) -> (usize, usize) {
    let j = index as u64 + BASE;
    let k = (63 - j.leading_zeros()) - BASE_SHIFT;
    (k as usize, (j - (BASE << k)) as usize)
}

/// Slots per 4 KiB page (8-byte slots).
const PAGE_SLOTS: usize = 512;

/// Where offset `off` of chunk `k` sits: within each page of slots, consecutive offsets are
/// spread one cache line apart (64 lines of 8 slots: offset `i` of a page goes to line `i % 64`,
/// place `i / 64`), so no two of 64 consecutive indices share a line. The spawning worker binds
/// indices in order while a worker that stole the earlier tasks removes them just behind it; on
/// one line the two would bounce it back and forth for every task. Pages still fill one after
/// the other, so the slots of `n` live tasks touch about `n / 512` pages of a chunk: a chunk is
/// allocated zeroed (`new_chunk`), and its untouched pages stay out of the RSS. (An earlier
/// spread put consecutive offsets 1/32 of the whole chunk apart, which touched every page of a
/// chunk as soon as it was in use: 0.4 B per task of RSS at 1,000,000 tasks.) A bijection on
/// `0..chunk_len(k)`.
fn spread(k: usize, off: usize) -> usize {
    let len = chunk_len(k);
    if len < 64 {
        return off;
    }
    let group = len.min(PAGE_SLOTS);
    let lines = group / 8;
    let (base, i) = (off - off % group, off % group);
    base + (i % lines) * 8 + i / lines
}

/// A chunk of `len` null slots. Zeroed memory from the allocator (a null `AtomicPtr` is all
/// zero bits): for a large chunk, fresh pages that are not faulted in until a slot on them is
/// used. Under loom, built slot by slot (loom's atomics are not plain memory).
fn new_chunk(len: usize) -> *mut Slot {
    #[cfg(not(loom))]
    {
        let layout = std::alloc::Layout::array::<Slot>(len).expect("chunk layout");
        // SAFETY: `len > 0`, so the layout is not zero-sized.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // `Drop` frees it as the `Box<[Slot]>` of this length, which has this same layout.
        p.cast::<Slot>()
    }
    #[cfg(loom)]
    {
        let chunk: Box<[Slot]> = (0..len).map(|_| AtomicPtr::new(ptr::null_mut())).collect();
        Box::into_raw(chunk).cast::<Slot>()
    }
}

fn chunk_len(k: usize) -> usize {
    (BASE as usize) << k
}

/// Free slot indices for one worker (touched only by the thread running it), or for every
/// other thread (touched only under `OwnedTasks::shared_lock`).
struct Cache {
    free: UnsafeCell<Vec<u32>>,
    /// Tasks bound through this cache minus tasks removed through it, as a wrapping `isize`
    /// (may be negative): written by the cache's user with a relaxed load and store (no
    /// read-modify-write: it has one writer at a time), read by `len`. The sum over all caches
    /// and `global` is the number of live tasks.
    live: AtomicUsize,
}

impl Cache {
    fn new() -> Cache {
        Cache {
            free: UnsafeCell::new(Vec::new()),
            live: AtomicUsize::new(0),
        }
    }

    fn add_live(&self, n: isize) {
        let v = self.live.load(Ordering::Relaxed);
        self.live
            .store(v.wrapping_add(n as usize), Ordering::Relaxed);
    }
}

#[derive(Default)]
struct Global {
    free: Vec<u32>,
    /// The next index never handed out.
    next: u64,
    live: isize,
}

/// The set of live tasks owned by one scheduler.
pub struct OwnedTasks<S: 'static> {
    /// One per worker (`bind_in`/`remove_in` with its index) plus, last, the shared one.
    /// Padded: each worker's cache line stays on its core.
    caches: Box<[CachePadded<Cache>]>,
    /// Held while the shared cache (the last) is touched.
    shared_lock: Mutex<()>,
    global: Mutex<Global>,
    /// Chunk `k` points at `chunk_len(k)` slots, or is null until an index in it is handed out.
    /// Written under the `global` lock, before any index in the chunk leaves it.
    chunks: Box<[AtomicPtr<Slot>]>,
    closed: AtomicBool,
    /// Held by [`OwnedTasks::for_each_live`] only: one walk at a time.
    walking: Mutex<()>,
    _p: PhantomData<S>,
}

impl<S: 'static> std::fmt::Debug for OwnedTasks<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedTasks")
            .field("caches", &self.caches.len())
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> crate::sync::MutexGuard<'_, T> {
    // Nothing panics while holding these locks, but a poisoned one is still consistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<S: Schedule> OwnedTasks<S> {
    /// A list with `caches` per-thread caches of free slots (one per worker: pass the worker's
    /// index to [`bind_in`](Self::bind_in) and [`remove_in`](Self::remove_in)) plus one shared
    /// cache for every other thread.
    pub fn new(caches: usize) -> OwnedTasks<S> {
        // The bind/close handshake's barrier pair (module docs).
        crate::asym::init();
        OwnedTasks {
            caches: (0..caches + 1)
                .map(|_| CachePadded::new(Cache::new()))
                .collect(),
            shared_lock: Mutex::new(()),
            global: Mutex::new(Global::default()),
            chunks: (0..CHUNKS)
                .map(|_| AtomicPtr::new(ptr::null_mut()))
                .collect(),
            closed: AtomicBool::new(false),
            walking: Mutex::new(()),
            _p: PhantomData,
        }
    }

    /// Runs `f` on the cache for `hint`: a worker's own, or the shared one (under its lock) for
    /// anything out of range.
    ///
    /// # Safety
    /// `hint` is out of range, or the calling thread is the one running worker `hint` (see
    /// [`bind_in`](Self::bind_in)).
    unsafe fn with_cache<R>(&self, hint: usize, f: impl FnOnce(&mut Vec<u32>, &Cache) -> R) -> R {
        let shared = self.caches.len() - 1;
        let i = hint.min(shared);
        let _guard = (i == shared).then(|| lock(&self.shared_lock));
        let cache = &self.caches[i];
        // SAFETY: the shared cache is ours under its lock; a worker's is ours alone per the
        // caller (one thread at a time, each hand-off ordered before the next use).
        cache.free.with_mut(|free| f(unsafe { &mut *free }, cache))
    }

    fn slot(&self, index: u32) -> &Slot {
        let (k, off) = locate(index);
        // Acquire: pairs with the Release in `allocate_chunks`, which ran before `index` left
        // the `global` lock (so this is never null for a handed-out index).
        let chunk = self.chunks[k].load(Ordering::Acquire);
        debug_assert!(!chunk.is_null(), "slot {index} handed out before its chunk");
        // SAFETY: `index` was handed out by `take_index`, which allocated its chunk first; chunks
        // live as long as the list, and `spread(k, off) < chunk_len(k)` as `off` is.
        unsafe { &*chunk.add(spread(k, off)) }
    }

    /// A free slot index, counted as live in the cache for `hint`.
    ///
    /// # Safety
    /// As [`with_cache`](Self::with_cache).
    unsafe fn take_index(&self, hint: usize) -> u32 {
        let take = |free: &mut Vec<u32>, cache: &Cache| {
            cache.add_live(1);
            if let Some(i) = free.pop() {
                return i;
            }
            let mut global = lock(&self.global);
            let n = global.free.len();
            if n > 0 {
                let take = n.min(BATCH);
                free.extend(global.free.drain(n - take..));
            } else {
                let start = global.next;
                let end = start + BATCH as u64;
                assert!(end <= UNOWNED as u64, "too many live tasks");
                self.allocate_chunks(start, end);
                global.next = end;
                free.extend((start..end).rev().map(|i| i as u32));
            }
            drop(global);
            free.pop().expect("a refilled cache is not empty")
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.with_cache(hint, take) }
    }

    /// Allocates the chunks holding indices `start..end`. Called with the `global` lock held.
    fn allocate_chunks(&self, start: u64, end: u64) {
        let (first, _) = locate(start as u32);
        let (last, _) = locate((end - 1) as u32);
        for k in first..=last {
            if self.chunks[k].load(Ordering::Relaxed).is_null() {
                self.chunks[k].store(new_chunk(chunk_len(k)), Ordering::Release);
            }
        }
    }

    /// Returns a slot index freed by a remove on the thread of `hint`.
    ///
    /// # Safety
    /// As [`with_cache`](Self::with_cache).
    unsafe fn give_index(&self, hint: usize, index: u32) {
        let give = |free: &mut Vec<u32>, cache: &Cache| {
            cache.add_live(-1);
            free.push(index);
            if free.len() > CACHE_MAX {
                let n = free.len();
                lock(&self.global).free.extend(free.drain(n - BATCH..));
            }
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.with_cache(hint, give) }
    }

    /// Creates a task owned by this list, from any thread (the shared cache). See
    /// [`bind_in`](Self::bind_in).
    pub fn bind<F>(
        &self,
        future: F,
        scheduler: S,
        id: Id,
        meta: SpawnMeta<'_>,
        pooled: bool,
    ) -> (JoinHandle<F::Output>, Option<Notified<S>>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // SAFETY: an out-of-range hint: the shared cache.
        unsafe { self.bind_in(usize::MAX, future, scheduler, id, meta, pooled) }
    }

    /// Creates a task owned by this list, taking its slot from the cache of worker `hint` (any
    /// out-of-range `hint` means the shared cache). Returns its `JoinHandle` and the `Notified`
    /// to schedule, or `None` when the list is closed: then the future has already been dropped
    /// and the handle resolves to a cancellation error.
    ///
    /// # Safety
    /// `hint` is out of range, or the calling thread is the one running worker `hint` of the
    /// scheduler: a worker's cache is used by one thread at a time, without a lock, so no two
    /// threads may pass the same in-range `hint` at once, and a worker that moves to another
    /// thread (a substitute of `block_in_place`) must do so ordered before the next use (a
    /// thread spawn or join). The same contract holds for [`remove_in`](Self::remove_in).
    pub unsafe fn bind_in<F>(
        &self,
        hint: usize,
        future: F,
        scheduler: S,
        id: Id,
        meta: SpawnMeta<'_>,
        pooled: bool,
    ) -> (JoinHandle<F::Output>, Option<Notified<S>>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // SAFETY: `F` and its output are `Send`: any thread may poll or drop them; the caller
        // keeps `hint`'s contract.
        unsafe { self.bind_local_in(hint, future, scheduler, id, meta, pooled) }
    }

    /// [`bind_in`](Self::bind_in) without the `Send` bounds, for a scheduler that keeps its
    /// tasks on one thread (`rt-sched`'s `LocalSet`).
    ///
    /// # Safety
    /// The scheduler `S` polls the task (runs its `Notified`s) and shuts it down (this list's
    /// `close_and_shutdown_all`) only on one thread, the thread calling this, so the future
    /// is created, polled and dropped there; and when `F::Output` is not `Send` the returned
    /// `JoinHandle` (then `!Send` itself) is the only way to the output. Wakes and
    /// `AbortHandle::abort` from other threads only touch the state word and hand a `Notified`
    /// to `S::schedule`, which must send it to that thread. And `hint` follows
    /// [`bind_in`](Self::bind_in)'s contract.
    pub unsafe fn bind_local_in<F>(
        &self,
        hint: usize,
        future: F,
        scheduler: S,
        id: Id,
        meta: SpawnMeta<'_>,
        pooled: bool,
    ) -> (JoinHandle<F::Output>, Option<Notified<S>>)
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let closed_already = self.closed.load(Ordering::Acquire);
        let index = if closed_already {
            UNOWNED
        } else {
            // SAFETY: the caller keeps `hint`'s contract.
            unsafe { self.take_index(hint) }
        };
        let raw = RawTask::new(future, scheduler, id, meta, 3, pooled, index);
        let join = JoinHandle::new(raw);
        // SAFETY: the three references: list, `Notified`, `JoinHandle`.
        let (task, notified) = unsafe { (Task::<S>::from_raw(raw), Notified::<S>::from_raw(raw)) };
        if !closed_already {
            let slot = self.slot(index);
            let p = raw.header_ptr().as_ptr();
            // A plain store: nobody else writes a slot whose index we hold but a closer's
            // swap, which either comes before it (and finds null) or after (and finds `p`).
            // Under loom a swap (exception 1 of `rt_core::sync`): loom models a plain store
            // racing another thread's read-modify-write wrongly (tokio-rs/loom#254).
            #[cfg(not(loom))]
            slot.store(p, Ordering::Release);
            #[cfg(loom)]
            {
                let prev = slot.swap(p, Ordering::SeqCst);
                debug_assert!(prev.is_null(), "slot {index} was handed out while in use");
            }
            // The store, then the read of `closed`, against the close's store of `closed`, then
            // its swaps (module docs): the light half of an asymmetric barrier pair, a compiler
            // fence where the close pays a `membarrier` (`crate::asym`), so a spawn does not
            // drain the store buffer (the new cell's fresh writes) as a SeqCst swap would.
            crate::asym::light();
            // SeqCst: a plain load on x86, and what loom needs to honour the fences.
            if !self.closed.load(Ordering::SeqCst) {
                std::mem::forget(task);
                return (join, Some(notified));
            }
            // Closed meanwhile: take the task back unless the closer already has.
            if slot.swap(ptr::null_mut(), Ordering::AcqRel).is_null() {
                // The closer owns the list's reference and shuts the task down.
                std::mem::forget(task);
                drop(notified);
                return (join, None);
            }
            // SAFETY: the caller keeps `hint`'s contract.
            unsafe { self.with_cache(hint, |_, cache| cache.add_live(-1)) };
        }
        tracing::trace!(
            task.id = id.as_u64(),
            "spawn refused: runtime is shutting down"
        );
        // The list's reference performs the shutdown; the `Notified` is dropped unused.
        task.shutdown();
        drop(notified);
        (join, None)
    }

    /// Removes `task` from the list, from any thread (the shared cache). See
    /// [`remove_in`](Self::remove_in).
    pub fn remove(&self, task: &Task<S>) -> Option<Task<S>> {
        // SAFETY: an out-of-range hint: the shared cache.
        unsafe { self.remove_in(usize::MAX, task) }
    }

    /// Removes `task` from the list, returning its slot to the cache of worker `hint`. Returns
    /// the list's reference if the task was still there (not taken by a close).
    ///
    /// # Safety
    /// `hint` follows [`bind_in`](Self::bind_in)'s contract.
    pub unsafe fn remove_in(&self, hint: usize, task: &Task<S>) -> Option<Task<S>> {
        let header = task.raw.header_ptr();
        // SAFETY: `task` holds a reference, so the header is live.
        let index = unsafe { header.as_ref() }.owned_slot;
        if index == UNOWNED {
            return None;
        }
        // The swap's atomicity decides between us and a closer: one of the two gets the pointer.
        let prev = self.slot(index).swap(ptr::null_mut(), Ordering::AcqRel);
        if prev.is_null() {
            // Taken by `close_and_shutdown_all`, which owns the list's reference now.
            return None;
        }
        debug_assert_eq!(prev, header.as_ptr(), "slot {index} held another task");
        // SAFETY: the caller keeps `hint`'s contract.
        unsafe { self.give_index(hint, index) };
        // SAFETY: the list's reference, now handed to the caller.
        Some(unsafe { Task::from_raw(task.raw) })
    }

    /// Refuses new tasks from now on and cancels every task in the list (dropping each future
    /// exactly once). Futures run their `Drop` on the calling thread.
    pub fn close_and_shutdown_all(&self) {
        self.close_and_shutdown_share(0, 1);
    }

    /// [`close_and_shutdown_all`](Self::close_and_shutdown_all) as drainer `part` of `parts`
    /// running at once (a multi-thread scheduler's workers at shutdown): each starts its walk
    /// at its own `part / parts` of the slots in use and wraps around, so the drops run in
    /// parallel. Every drainer still swaps every slot, so when one returns each task of the
    /// list has been taken by some drainer (the close's rule in the module docs holds for each
    /// of them alone); a task another drainer took may still be dropping.
    pub fn close_and_shutdown_share(&self, part: usize, parts: usize) {
        self.closed.store(true, Ordering::SeqCst);
        // Pairs with the store, light barrier and load in `bind_in` (module docs).
        crate::asym::heavy();
        // The chunks in use: allocated in order, so the first null one ends them (a binder
        // that allocated one later sees `closed` and takes its task back itself).
        let mut chunks = [ptr::null_mut::<Slot>(); CHUNKS];
        let mut used = 0;
        let mut total = 0;
        for (k, chunk) in self.chunks.iter().enumerate() {
            let chunk = chunk.load(Ordering::Acquire);
            if chunk.is_null() {
                break;
            }
            chunks[k] = chunk;
            used = k + 1;
            total += chunk_len(k);
        }
        let parts = parts.max(1);
        let start = total / parts * (part % parts);
        let mut taken = 0;
        for flat in (start..total).chain(0..start) {
            let (k, off) = locate(flat as u32);
            debug_assert!(k < used);
            // SAFETY: chunk `k` is non-null (`flat < total`), has `chunk_len(k)` slots, and
            // lives as long as `self`.
            let slot = unsafe { &*chunks[k].add(off) };
            // A swap even of an empty slot: a walker's put-back synchronises with it ("Walking
            // the list"), which a plain load would not give.
            let p = slot.swap(ptr::null_mut(), Ordering::SeqCst);
            if let Some(p) = NonNull::new(p) {
                taken += 1;
                // SAFETY: the swap moved the list's reference to us; the task is live.
                let task = unsafe { Task::<S>::from_raw(RawTask::from_raw(p)) };
                // No lock is held: dropping a future may spawn (refused now) or complete
                // other tasks.
                task.shutdown();
            }
        }
        lock(&self.global).live -= taken;
    }

    /// Calls `f` with the header of every live task, for a task dump (module docs, "Walking
    /// the list"). Never blocks on a task: a task being polled is read like any other. `f`
    /// must not block either (the task's completion may wait in no way on it, but its slot is
    /// empty meanwhile). Tasks bound or removed during the walk may or may not be visited; a
    /// task live for the whole walk is visited once. `f` may drop the last reference to
    /// nothing: the list's reference stays held while it runs.
    pub fn for_each_live(&self, mut f: impl FnMut(&Header)) {
        let _walk = lock(&self.walking);
        for (k, chunk) in self.chunks.iter().enumerate() {
            let chunk = chunk.load(Ordering::Acquire);
            if chunk.is_null() {
                // Chunks are allocated in order: none after this one either.
                break;
            }
            for off in 0..chunk_len(k) {
                // SAFETY: a non-null chunk has `chunk_len(k)` slots and lives as long as `self`.
                let slot = unsafe { &*chunk.add(off) };
                // Empty slots (most of a table past its peak) cost a load, not a swap.
                if slot.load(Ordering::Relaxed).is_null() {
                    continue;
                }
                let Some(p) = NonNull::new(slot.swap(ptr::null_mut(), Ordering::AcqRel)) else {
                    continue;
                };
                // SAFETY: the swap moved the list's reference to us; the task is live.
                let task = unsafe { Task::<S>::from_raw(RawTask::from_raw(p)) };
                // Put back even if `f` panics: dropping the list's reference instead would
                // leave the list short of one it still counts on (`remove` finding null).
                let borrowed = Borrowed {
                    list: self,
                    slot,
                    task: Some(task),
                };
                f(borrowed.task.as_ref().expect("held until dropped").header());
            }
        }
    }

    /// Puts a walked task's pointer back into its slot, then settles a completion or a close
    /// that found the slot empty meanwhile (module docs, "Walking the list").
    fn put_back(&self, slot: &Slot, task: Task<S>) {
        let p = task.raw.header_ptr().as_ptr();
        let prev = slot.swap(p, Ordering::AcqRel);
        debug_assert!(prev.is_null(), "a walked slot was written");
        let closed = self.closed.load(Ordering::Acquire);
        if !closed && !task.header().state.load().is_complete() {
            std::mem::forget(task);
            return;
        }
        if slot.swap(ptr::null_mut(), Ordering::AcqRel).is_null() {
            // The remover or closer came after the put-back and owns the list's reference.
            std::mem::forget(task);
            return;
        }
        if closed {
            // Indices are not returned after the close (it may be reading this very slot).
            lock(&self.global).live -= 1;
            task.shutdown();
        } else {
            // SAFETY: `task` holds a reference, so the header is live.
            let index = unsafe { task.raw.header_ptr().as_ref() }.owned_slot;
            // SAFETY: an out-of-range hint: the shared cache, under its lock, from any thread.
            unsafe { self.give_index(usize::MAX, index) };
            drop(task);
        }
    }

    /// Whether `close_and_shutdown_all` has run.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Live tasks in the list (exact when nothing is spawned or completed meanwhile).
    pub fn len(&self) -> usize {
        let caches: isize = self
            .caches
            .iter()
            .map(|c| c.live.load(Ordering::Relaxed) as isize)
            .sum();
        (caches + lock(&self.global).live).max(0) as usize
    }

    /// Whether no task is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A task whose list reference a walk holds; puts it back when dropped.
struct Borrowed<'a, S: Schedule> {
    list: &'a OwnedTasks<S>,
    slot: &'a Slot,
    task: Option<Task<S>>,
}

impl<S: Schedule> Drop for Borrowed<'_, S> {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            self.list.put_back(self.slot, task);
        }
    }
}

impl<S: 'static> Drop for OwnedTasks<S> {
    fn drop(&mut self) {
        for (k, chunk) in self.chunks.iter().enumerate() {
            let p = chunk.load(Ordering::Relaxed);
            if !p.is_null() {
                // SAFETY: made by `new_chunk(chunk_len(k))`, with the layout of a `chunk_len(k)`
                // boxed slice of slots, all initialised; `&mut self` means no one else holds it.
                drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(p, chunk_len(k))) });
            }
        }
    }
}

// SAFETY: the list holds task pointers in atomics and hands each out exactly once (to whoever
// swaps it out of its slot); tasks are `Send` by construction. The caches' `UnsafeCell`s are
// touched by one thread at a time: the shared one under its lock, a worker's by the thread
// running that worker (the unsafe contract of `bind_in` and `remove_in`).
unsafe impl<S: Schedule> Send for OwnedTasks<S> {}
// SAFETY: as above.
unsafe impl<S: Schedule> Sync for OwnedTasks<S> {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn locate_covers_every_index_once() {
        let mut expect = (0usize, 0usize);
        for i in 0..100_000u32 {
            let (k, off) = locate(i);
            assert_eq!((k, off), expect, "index {i}");
            expect.1 += 1;
            if expect.1 == chunk_len(expect.0) {
                expect = (expect.0 + 1, 0);
            }
        }
        let (k, off) = locate(UNOWNED - 1);
        assert!(k < CHUNKS && off < chunk_len(k));
    }

    #[test]
    fn spread_is_a_bijection() {
        for k in 0..6 {
            let len = chunk_len(k);
            let mut seen = vec![false; len];
            for off in 0..len {
                let p = spread(k, off);
                assert!(p < len && !seen[p], "chunk {k} offset {off}");
                seen[p] = true;
            }
        }
    }

    /// 64 consecutive offsets sit on 64 different cache lines (8 slots each), and the first `n`
    /// offsets of a chunk stay within its first `ceil(n / 512)` pages.
    #[test]
    fn spread_separates_lines_and_fills_pages_in_order() {
        let k = 5;
        let len = chunk_len(k);
        for start in (0..len - 64).step_by(37) {
            let mut lines: Vec<usize> = (start..start + 64).map(|o| spread(k, o) / 8).collect();
            lines.sort_unstable();
            lines.dedup();
            assert_eq!(lines.len(), 64, "offsets {start}..+64 share a line");
        }
        for n in [1, 100, 512, 513, 2000, len] {
            let pages = (0..n).map(|o| spread(k, o) / PAGE_SLOTS).max().unwrap() + 1;
            assert_eq!(pages, n.div_ceil(PAGE_SLOTS), "{n} offsets");
        }
    }
}
