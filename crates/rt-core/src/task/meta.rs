//! Where a task was spawned, and its name: one word in the task header.
//!
//! An unnamed task's header points straight at the caller's `&'static Location` (from
//! `#[track_caller]`, so no allocation). A named task's header, or any task's while a `tracing`
//! subscriber is interested in `rt.task` spans at spawn, points at a side record, boxed at
//! spawn, holding a copy of the name, the location and the task's span. Both pointees are at
//! least 8-byte aligned, so bit 0 of the word tells them apart. The side record also keeps the
//! task's poll count and last poll and wake times for task dumps (`dump.rs`).

use std::panic::Location;
use std::ptr::NonNull;

/// A task's name and spawn location, as handed to the scheduler at spawn (the facade builds it
/// with [`SpawnMeta::caller`] or `rt::task::Builder`).
#[derive(Clone, Copy, Debug)]
pub struct SpawnMeta<'a> {
    name: Option<&'a str>,
    location: &'static Location<'static>,
}

impl<'a> SpawnMeta<'a> {
    /// An unnamed task spawned at the caller's location (propagated through `#[track_caller]`).
    #[track_caller]
    pub fn caller() -> SpawnMeta<'static> {
        SpawnMeta {
            name: None,
            location: Location::caller(),
        }
    }

    /// A task with `name` (copied at spawn) spawned at `location`.
    pub fn new(name: Option<&'a str>, location: &'static Location<'static>) -> SpawnMeta<'a> {
        SpawnMeta { name, location }
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
}

const NAMED: usize = 1;

/// The header's word: `&'static Location` (bit 0 clear) or `Box<Named>` (bit 0 set).
pub(crate) struct MetaPtr(NonNull<u8>);

// SAFETY: both pointees are immutable after spawn (`Location` is `Sync`; the `Named` box is
// only read until the cell is dropped, which happens once, by the last reference's holder).
unsafe impl Send for MetaPtr {}
// SAFETY: as above.
unsafe impl Sync for MetaPtr {}

impl MetaPtr {
    pub(crate) fn new(meta: SpawnMeta<'_>, id: super::Id) -> MetaPtr {
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
                debug_assert_eq!(p.as_ptr() as usize & NAMED, 0);
                MetaPtr(p)
            }
            name => {
                let b = Box::new(Named {
                    name: name.map(Into::into),
                    location: meta.location,
                    span,
                    stats: super::dump::Stats::new(),
                });
                let p = Box::into_raw(b).cast::<u8>();
                // SAFETY: `p` is non-null and 8-aligned, so setting bit 0 leaves it non-null.
                MetaPtr(unsafe { NonNull::new_unchecked(p.wrapping_add(NAMED)) })
            }
        }
    }

    fn named(&self) -> Option<&Named> {
        let a = self.0.as_ptr() as usize;
        if a & NAMED == 0 {
            return None;
        }
        // SAFETY: bit 0 set means `self.0 - 1` came from `Box::into_raw` of a `Named` that
        // lives until `self` drops.
        Some(unsafe { &*self.0.as_ptr().wrapping_sub(NAMED).cast::<Named>() })
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
            // SAFETY: bit 0 clear: the word is a `&'static Location<'static>`.
            None => unsafe { &*self.0.as_ptr().cast::<Location<'static>>() },
        }
    }
}

impl Drop for MetaPtr {
    fn drop(&mut self) {
        if self.named().is_some() {
            // SAFETY: bit 0 set: `self.0 - 1` is the `Box<Named>` made in `new`, freed once here.
            drop(unsafe { Box::from_raw(self.0.as_ptr().wrapping_sub(NAMED).cast::<Named>()) });
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
}
