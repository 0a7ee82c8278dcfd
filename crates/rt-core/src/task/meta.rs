//! Where a task was spawned, its name and its priority: one word in the task header.
//!
//! An unnamed task's header points straight at the caller's `&'static Location` (from
//! `#[track_caller]`, so no allocation). A named task's header, or any task's while a `tracing`
//! subscriber is interested in `rt.task` spans at spawn, points at a side record, boxed at
//! spawn, holding a copy of the name, the location and the task's span. Both pointees are at
//! least 4-byte aligned (a `Location` holds a pointer; `Named` is `align(8)`), which leaves the
//! word's two low bits for tags. The side record also keeps the task's poll count and last poll
//! and wake times for task dumps (`dump.rs`).
//!
//! This file owns the word's layout; nobody else masks its bits:
//!
//! ```text
//!  63                                   2   1   0
//! +---------------------------------------+---+---+
//! | pointer to the Location or the Named  | B | N |
//! +---------------------------------------+---+---+
//! ```
//!
//! - `N` ([`NAMED`]): set at spawn when the pointer is a `Box<Named>`, never changed.
//! - `B` ([`BACKGROUND`]): set at spawn for a [`Priority::Background`] task, never changed, so a
//!   scheduler reads a task's priority from a word the header already holds (one load, no
//!   extra field), and a copied [`MetaWord`] (a poll stamp) still tells the priority.

use std::panic::Location;
use std::ptr::NonNull;

use super::Priority;

/// A task's name and spawn location, as handed to the scheduler at spawn (the facade builds it
/// with [`SpawnMeta::caller`] or `rt::task::Builder`).
#[derive(Clone, Copy, Debug)]
pub struct SpawnMeta<'a> {
    name: Option<&'a str>,
    location: &'static Location<'static>,
    /// `None`: the spawning task's priority (see [`Priority`]).
    priority: Option<Priority>,
}

impl<'a> SpawnMeta<'a> {
    /// An unnamed task spawned at the caller's location (propagated through `#[track_caller]`).
    #[track_caller]
    pub fn caller() -> SpawnMeta<'static> {
        SpawnMeta {
            name: None,
            location: Location::caller(),
            priority: None,
        }
    }

    /// A task with `name` (copied at spawn) spawned at `location`.
    pub fn new(name: Option<&'a str>, location: &'static Location<'static>) -> SpawnMeta<'a> {
        SpawnMeta {
            name,
            location,
            priority: None,
        }
    }

    /// The same, with an explicit priority (else the task inherits the spawning task's).
    pub fn with_priority(self, priority: Priority) -> SpawnMeta<'a> {
        SpawnMeta {
            priority: Some(priority),
            ..self
        }
    }

    /// The explicit priority, if one was given.
    pub fn priority(&self) -> Option<Priority> {
        self.priority
    }

    /// The name, if any.
    pub fn name(&self) -> Option<&'a str> {
        self.name
    }

    /// The spawn location.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }
}

/// A named (or traced) task's side record.
#[repr(align(8))]
struct Named {
    name: Option<Box<str>>,
    location: &'static Location<'static>,
    /// The task's `rt.task` span (disabled if no subscriber was interested at spawn).
    span: tracing::Span,
    /// Poll count and last poll / wake times, for task dumps (`dump.rs`): kept only here, so
    /// an unnamed task's cell does not grow and reads no clock.
    stats: super::dump::Stats,
    /// Links of its shard's list in `registry`, touched only under that shard's lock.
    links: registry::Links,
}

/// Bit 0: the pointer is a `Box<Named>` (else a `&'static Location`).
const NAMED: usize = 1;
/// Bit 1: the task's priority is [`Priority::Background`].
const BACKGROUND: usize = 2;
/// Both tags; the rest of the word is the pointer.
const TAGS: usize = NAMED | BACKGROUND;

// The tags need two free low bits in both pointees.
const _: () = assert!(std::mem::align_of::<Location<'static>>() > TAGS);
const _: () = assert!(std::mem::align_of::<Named>() > TAGS);

/// The header's word (layout in the module docs).
pub(crate) struct MetaPtr(NonNull<u8>);

// SAFETY: both pointees are immutable after spawn (`Location` is `Sync`; the `Named` box is
// only read until the cell is dropped, which happens once, by the last reference's holder).
unsafe impl Send for MetaPtr {}
// SAFETY: as above.
unsafe impl Sync for MetaPtr {}

impl MetaPtr {
    /// The word for a task spawned with `meta`; without an explicit priority it takes the
    /// priority of the task polled on this thread now (`crate::coop::current_priority`).
    pub(crate) fn new(meta: SpawnMeta<'_>, id: super::Id) -> MetaPtr {
        let tag = match meta.priority.unwrap_or_else(crate::coop::current_priority) {
            Priority::Normal => 0,
            Priority::Background => BACKGROUND,
        };
        // One span per task, with no parent (like tokio's): it lives as long as the cell. With
        // no subscriber interested this is the callsite's cached interest check.
        let span = tracing::trace_span!(
            target: "rt::task",
            parent: None,
            "rt.task",
            task.id = id.as_u64(),
            task.name = meta.name,
            loc.file = meta.location.file(),
            loc.line = meta.location.line(),
        );
        match meta.name {
            None if span.is_disabled() => {
                let p = NonNull::from(meta.location).cast::<u8>();
                debug_assert_eq!(p.as_ptr() as usize & TAGS, 0);
                // SAFETY: `p` is non-null and its tag bits are clear (alignment, asserted
                // above), so setting some leaves it non-null.
                MetaPtr(unsafe { NonNull::new_unchecked(p.as_ptr().wrapping_add(tag)) })
            }
            name => {
                let b = Box::new(Named {
                    name: name.map(Into::into),
                    location: meta.location,
                    span,
                    stats: super::dump::Stats::new(),
                    links: registry::Links::default(),
                });
                let n = Box::into_raw(b);
                // SAFETY: `n` is a fresh, live `Named`; `Drop` unlinks it before freeing it.
                unsafe { registry::link(n) };
                let p = n.cast::<u8>();
                // SAFETY: `p` is non-null and 8-aligned, so setting the tag bits leaves it
                // non-null.
                MetaPtr(unsafe { NonNull::new_unchecked(p.wrapping_add(NAMED | tag)) })
            }
        }
    }

    /// The word's pointer, tags cleared.
    #[inline]
    fn untagged(&self) -> *mut u8 {
        let a = self.0.as_ptr() as usize;
        self.0.as_ptr().wrapping_sub(a & TAGS)
    }

    fn named(&self) -> Option<&Named> {
        let a = self.0.as_ptr() as usize;
        if a & NAMED == 0 {
            return None;
        }
        // SAFETY: bit 0 set means the untagged pointer came from `Box::into_raw` of a `Named`
        // that lives until `self` drops.
        Some(unsafe { &*self.untagged().cast::<Named>() })
    }

    /// The task's priority (bit 1).
    #[inline]
    pub(crate) fn priority(&self) -> Priority {
        if self.0.as_ptr() as usize & BACKGROUND == 0 {
            Priority::Normal
        } else {
            Priority::Background
        }
    }

    pub(crate) fn name(&self) -> Option<&str> {
        self.named().and_then(|n| n.name.as_deref())
    }

    /// The task's span, entered around each poll (`None`: no record, so no span).
    #[inline]
    pub(crate) fn span(&self) -> Option<&tracing::Span> {
        self.named().map(|n| &n.span)
    }

    /// The task's dump statistics (`None`: no side record, so none kept).
    #[inline]
    pub(crate) fn stats(&self) -> Option<&super::dump::Stats> {
        self.named().map(|n| &n.stats)
    }

    pub(crate) fn location(&self) -> &'static Location<'static> {
        match self.named() {
            Some(n) => n.location,
            // SAFETY: bit 0 clear: the untagged word is a `&'static Location<'static>`.
            None => unsafe { &*self.untagged().cast::<Location<'static>>() },
        }
    }
}

impl MetaPtr {
    /// The word itself, to copy out for [`describe`] on another thread.
    #[inline]
    pub(crate) fn word(&self) -> MetaWord {
        MetaWord(self.0.as_ptr() as usize)
    }
}

/// A copy of a task's meta word (its `&'static Location`, or its tagged side record), taken
/// where the task is known to be alive (a worker, at the start of a poll) and read later on
/// another thread by [`describe`], which never dereferences a side record that may be gone.
/// `MetaWord::NONE` stands for no task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetaWord(usize);

impl MetaWord {
    /// No task.
    pub const NONE: MetaWord = MetaWord(0);

    /// The raw word (for a stamp that keeps it in an atomic).
    pub fn into_usize(self) -> usize {
        self.0
    }

    /// A word from [`MetaWord::into_usize`].
    pub fn from_usize(word: usize) -> MetaWord {
        MetaWord(word)
    }
}

impl MetaWord {
    /// The priority the word records (its bit 1; `Normal` for [`MetaWord::NONE`]).
    pub fn priority(self) -> Priority {
        if self.0 & BACKGROUND == 0 {
            Priority::Normal
        } else {
            Priority::Background
        }
    }
}

/// A task's name, spawn location and priority, copied out of its meta word ([`describe`]).
#[derive(Clone, Debug)]
pub struct MetaInfo {
    /// The task's name, if it has one.
    pub name: Option<String>,
    /// Where it was spawned.
    pub location: &'static Location<'static>,
    /// Its priority.
    pub priority: Priority,
}

/// The name and spawn location behind `word`, from any thread, whether or not the task is
/// still alive: an unnamed task's word is its `&'static Location`; a side record is read only
/// while it is found, under its shard's lock, in [`registry`] (where every live one is linked),
/// so a record freed meanwhile is never touched. `None` for [`MetaWord::NONE`] and for a side
/// record that is gone.
pub fn describe(word: MetaWord) -> Option<MetaInfo> {
    if word.0 == 0 {
        return None;
    }
    let priority = word.priority();
    let untagged = word.0 & !TAGS;
    if word.0 & NAMED == 0 {
        // SAFETY: bit 0 clear: the untagged word is a `&'static Location<'static>` (see
        // `MetaPtr::new`).
        let location = unsafe { &*(untagged as *const Location<'static>) };
        return Some(MetaInfo {
            name: None,
            location,
            priority,
        });
    }
    registry::with_live(untagged as *const Named, |n| MetaInfo {
        name: n.name.as_deref().map(String::from),
        location: n.location,
        priority,
    })
}

/// Every live side record, in intrusive doubly linked lists (no allocation), sharded by
/// address so named spawns on different threads rarely share a lock. A record is linked at
/// spawn and unlinked before its free, both under its shard's lock; [`describe`] reads one only
/// after finding it in its shard's list under that lock. Only named (or traced) tasks pay for
/// this: a lock at spawn and one at free.
///
/// The locks are std's (a process-wide `static`, which loom's cannot be: the shim's
/// exception 8). No model drives them: they order no protocol of the runtime, only the reads of
/// [`describe`] against the frees.
mod registry {
    use super::Named;
    use std::cell::Cell;
    use std::ptr;

    const SHARDS: usize = 16;

    /// A record's links; read and written only under its shard's lock.
    pub(super) struct Links {
        prev: Cell<*const Named>,
        next: Cell<*const Named>,
    }

    impl Default for Links {
        fn default() -> Links {
            Links {
                prev: Cell::new(ptr::null()),
                next: Cell::new(ptr::null()),
            }
        }
    }

    struct Head(*const Named);
    // SAFETY: the head pointer is only used under its shard's lock.
    unsafe impl Send for Head {}

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: std::sync::Mutex<Head> = std::sync::Mutex::new(Head(ptr::null()));
    static HEADS: [std::sync::Mutex<Head>; SHARDS] = [EMPTY; SHARDS];

    fn shard(n: *const Named) -> &'static std::sync::Mutex<Head> {
        // Records are boxes of at least 64 bytes: drop the low bits that never differ.
        &HEADS[(n as usize >> 6) % SHARDS]
    }

    fn lock(n: *const Named) -> std::sync::MutexGuard<'static, Head> {
        shard(n).lock().unwrap_or_else(|e| e.into_inner())
    }

    /// # Safety
    /// `n` is a live record not yet linked; it stays alive until [`unlink`].
    pub(super) unsafe fn link(n: *const Named) {
        let mut head = lock(n);
        // SAFETY: `n` is live (caller); the head, if any, is a linked record, live until its
        // `unlink`, which needs this lock; links are touched only under it.
        unsafe {
            (*n).links.next.set(head.0);
            if let Some(h) = head.0.as_ref() {
                h.links.prev.set(n);
            }
        }
        head.0 = n;
    }

    /// # Safety
    /// `n` was linked by [`link`] and not unlinked since; it is freed only after this returns.
    pub(super) unsafe fn unlink(n: *const Named) {
        let mut head = lock(n);
        // SAFETY: `n` and its neighbours are linked records, live while linked; the lock is held.
        unsafe {
            let (prev, next) = ((*n).links.prev.get(), (*n).links.next.get());
            match prev.as_ref() {
                Some(p) => p.links.next.set(next),
                None => head.0 = next,
            }
            if let Some(x) = next.as_ref() {
                x.links.prev.set(prev);
            }
        }
    }

    /// Runs `f` on the record at `n` if it is linked (alive) now.
    pub(super) fn with_live<R>(n: *const Named, f: impl FnOnce(&Named) -> R) -> Option<R> {
        let head = lock(n);
        let mut cur = head.0;
        while !cur.is_null() {
            if cur == n {
                // SAFETY: found in the list under its lock: linked, so not yet freed, and
                // its `unlink` (before the free) waits for this lock.
                return Some(f(unsafe { &*cur }));
            }
            // SAFETY: as above, for every record in the list.
            cur = unsafe { (*cur).links.next.get() };
        }
        None
    }
}

impl Drop for MetaPtr {
    fn drop(&mut self) {
        if self.named().is_some() {
            let n = self.untagged().cast::<Named>();
            // SAFETY: linked in `new`, unlinked once here, before the free.
            unsafe { registry::unlink(n) };
            // SAFETY: bit 0 set: the untagged word is the `Box<Named>` made in `new`, freed
            // once here.
            drop(unsafe { Box::from_raw(n) });
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn unnamed_points_at_the_location_and_named_copies_the_name() {
        let here = Location::caller();
        let id = crate::task::next_id();
        let m = MetaPtr::new(SpawnMeta::new(None, here), id);
        assert_eq!(m.name(), None);
        assert_eq!(m.location(), here);
        let name = String::from("worker-7");
        let m = MetaPtr::new(SpawnMeta::new(Some(&name), here), id);
        drop(name);
        assert_eq!(m.name(), Some("worker-7"));
        assert_eq!(m.location(), here);
        assert_eq!(std::mem::size_of::<MetaPtr>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn priority_is_bit_one_of_the_word_named_or_not() {
        let here = Location::caller();
        let id = crate::task::next_id();
        for name in [None, Some("bg")] {
            let m = MetaPtr::new(
                SpawnMeta::new(name, here).with_priority(Priority::Background),
                id,
            );
            assert_eq!(m.priority(), Priority::Background);
            assert_eq!((m.name(), m.location()), (name, here));
            let info = describe(m.word()).unwrap();
            assert_eq!((info.priority, info.location), (Priority::Background, here));
            let m = MetaPtr::new(SpawnMeta::new(name, here), id);
            assert_eq!(m.priority(), Priority::Normal);
            assert_eq!(describe(m.word()).unwrap().priority, Priority::Normal);
        }
    }

    #[test]
    fn describe_reads_live_records_and_not_freed_ones() {
        let here = Location::caller();
        let id = crate::task::next_id();
        let unnamed = MetaPtr::new(SpawnMeta::new(None, here), id);
        let info = describe(unnamed.word()).unwrap();
        assert_eq!((info.name, info.location), (None, here));
        let named: Vec<MetaPtr> = (0..40)
            .map(|i| MetaPtr::new(SpawnMeta::new(Some(&format!("t{i}")), here), id))
            .collect();
        let words: Vec<MetaWord> = named.iter().map(|m| m.word()).collect();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(
                describe(*w).unwrap().name.as_deref(),
                Some(&*format!("t{i}"))
            );
        }
        drop(named);
        for w in words {
            assert!(describe(w).is_none(), "a freed record was found");
        }
        assert!(describe(MetaWord::NONE).is_none());
    }
}
