//! The task cell: one allocation holding the header, the scheduler handle, the future or its
//! output (the stage), and the trailer (join waker).
//!
//! ```text
//!  +----------------------+  <- *const Header (what wakers, RawTask and queues point at)
//!  | Header               |  state word, vtable, id, spawn meta, owned-list slot, pooled flag,
//!  |                      |  stage tag (in what was padding)
//!  +----------------------+
//!  | scheduler: S         |
//!  +----------------------+
//!  | stage: StageData<F>  |  a union: the future | its output | nothing
//!  +----------------------+
//!  | Trailer              |  join waker slot
//!  +----------------------+
//! ```
//! `#[repr(C)]` keeps the header first, so a `*const Header` is also a `*const TaskCell<F, S>`; the
//! vtable carries the functions monomorphised for `F` and `S`.
//!
//! # The thin stage
//!
//! The stage is a union whose tag (which field is live, [`tag`]) sits in the header's tail
//! padding, so it costs no word of its own, and it holds only the future or the output: a
//! cancellation stores nothing (the error is rebuilt from the header's id when read), and a
//! panic's `JoinError` waits in a process-wide side table ([`PANICKED`], keyed by the cell's
//! address) until the `JoinHandle` takes it or the stage is dropped. So the stage is as wide as
//! the larger of the future and its output. A trivial task (a zero-sized future with output
//! `()`, a one-word scheduler handle) takes 64 bytes: 40 of header, 8 of scheduler, none of
//! stage, 16 of trailer (96 with an enum stage holding `Result<T, JoinError>` inline). Panics are
//! rare and already cost an unwind, so the table's lock is nothing beside them. The tag, the
//! union and the cell's table entry follow one access rule (rules 1 and 5 in `task/mod.rs`):
//! only the holder of the stage touches any of them.

use std::collections::BTreeMap;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::Waker;

use super::error::JoinError;
use super::id::Id;
use super::meta::{MetaPtr, SpawnMeta};
use super::raw::Vtable;
use super::state::State;
use crate::sync::unmodelled::Mutex;
use crate::sync::UnsafeCell;

/// The first field of every task cell.
#[repr(C)]
pub struct Header {
    pub(crate) state: State,
    pub(crate) vtable: &'static Vtable,
    pub(crate) id: Id,
    /// Spawn location, or a side record with name + location for named tasks (`meta.rs`):
    /// one word.
    pub(crate) meta: MetaPtr,
    /// The task's slot in its `OwnedTasks` (`list::UNOWNED` if none). Fixed at creation.
    pub(crate) owned_slot: u32,
    /// The cell came from the frame pool (else from the global allocator).
    pub(crate) pooled: bool,
    /// Which field of the cell's `StageData` is live (a [`tag`] value).
    pub(crate) stage_tag: StageTag,
}

/// The values of the stage tag.
pub(crate) mod tag {
    /// `future` is live.
    pub(crate) const RUNNING: u8 = 0;
    /// `output` is live: the task returned.
    pub(crate) const OUTPUT: u8 = 1;
    /// Nothing is live: the task was cancelled; the error is `JoinError::cancelled(id)`.
    pub(crate) const CANCELLED: u8 = 2;
    /// Nothing is live: the task panicked (or its future's drop did); its error is the cell's
    /// entry in [`PANICKED`](super::PANICKED).
    pub(crate) const PANICKED: u8 = 3;
    /// Nothing is live: the future is gone and the output was taken or dropped.
    pub(crate) const CONSUMED: u8 = 4;
}

/// The stage tag's cell.
pub(crate) struct StageTag(UnsafeCell<u8>);

// SAFETY: the tag is read and written only by the holder of the stage (rules 1 and 5 in
// `task/mod.rs`), whose hand-overs are ordered by the state word's AcqRel transitions.
unsafe impl Sync for StageTag {}
// SAFETY: a `u8`.
unsafe impl Send for StageTag {}

/// The future, then its output: which field is live is the header's stage tag.
pub(crate) union StageData<F: Future> {
    future: ManuallyDrop<F>,
    output: ManuallyDrop<F::Output>,
}

/// The errors of panicked tasks whose stage has not been consumed yet, keyed by cell address
/// (unique while the cell lives, and an entry never outlives its cell: `drop_stage` and
/// `take_output` remove it). A std `Mutex` in both builds (`rt_core::sync::unmodelled`): it is
/// storage, handed over under the state word's protocol like the stage itself. Nothing is
/// dropped while it is held (a payload's `Drop` may do anything).
static PANICKED: Mutex<BTreeMap<usize, JoinError>> = Mutex::new(BTreeMap::new());

fn panicked() -> std::sync::MutexGuard<'static, BTreeMap<usize, JoinError>> {
    // Nothing panics while the lock is held; a poisoned map is still consistent.
    PANICKED.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) struct Trailer {
    /// Rule: readable by the completing thread only while JOIN_WAKER is set; writable by the
    /// `JoinHandle` only while JOIN_WAKER is clear (see `task/mod.rs`, join waker rules).
    pub(crate) waker: UnsafeCell<Option<Waker>>,
}

/// One task's allocation (see the module docs). `TaskCell`, not `Cell`: it is no relative of
/// `std::cell::Cell`.
#[repr(C)]
pub(crate) struct TaskCell<F: Future, S> {
    pub(crate) header: Header,
    pub(crate) scheduler: S,
    /// Rule: touched only by the holder of RUNNING, or, once COMPLETE is set, by whoever owns the
    /// output (the `JoinHandle` while JOIN_INTEREST is set, else the completing thread); so is
    /// the header's stage tag, which says what it holds.
    stage: UnsafeCell<StageData<F>>,
    pub(crate) trailer: Trailer,
}

impl<F: Future, S> TaskCell<F, S> {
    // One argument per header field, filled in one place (`RawTask::new`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        future: F,
        scheduler: S,
        id: Id,
        meta: SpawnMeta<'_>,
        refs: usize,
        pooled: bool,
        owned_slot: u32,
        vtable: &'static Vtable,
    ) -> TaskCell<F, S> {
        TaskCell {
            header: Header {
                state: State::new(refs),
                vtable,
                id,
                meta: MetaPtr::new(meta, id),
                owned_slot,
                pooled,
                stage_tag: StageTag(UnsafeCell::new(tag::RUNNING)),
            },
            scheduler,
            stage: UnsafeCell::new(StageData {
                future: ManuallyDrop::new(future),
            }),
            trailer: Trailer {
                waker: UnsafeCell::new(None),
            },
        }
    }

    /// The stage tag. Caller holds the stage.
    fn tag(&self) -> u8 {
        // SAFETY: the caller holds the stage, so nobody writes the tag meanwhile.
        self.header.stage_tag.0.with(|t| unsafe { *t })
    }

    fn set_tag(&self, t: u8) {
        // SAFETY: the caller holds the stage, so the tag is ours to write.
        self.header.stage_tag.0.with_mut(|p| unsafe { *p = t });
    }

    /// Runs `f` on the pinned future.
    ///
    /// # Safety
    /// The caller holds RUNNING (rule 1).
    ///
    /// # Panics
    /// When the future is gone.
    pub(crate) unsafe fn with_future<R>(&self, f: impl FnOnce(Pin<&mut F>) -> R) -> R {
        assert_eq!(
            self.tag(),
            tag::RUNNING,
            "polled a task whose future is gone"
        );
        self.stage.with_mut(|stage| {
            // SAFETY: the tag says `future` is live; the caller holds it (rule 1). The cell never
            // moves while the future lives, so it is pinned in place.
            f(unsafe { Pin::new_unchecked(&mut *(*stage).future) })
        })
    }

    /// Runs `poll` on the pinned future inside `catch_unwind`. A panic from `poll` drops the
    /// future while the thread is still unwinding, as tokio's harness does (its destructor sees
    /// `std::thread::panicking()`), and leaves the stage consumed; a second panic, from that
    /// drop, is contained there and costs nothing more than this task.
    ///
    /// # Safety
    /// The caller holds RUNNING (rule 1).
    pub(crate) unsafe fn poll_future<R>(
        &self,
        poll: impl FnOnce(Pin<&mut F>) -> R,
    ) -> std::thread::Result<R> {
        /// Drops the future if the poll unwinds; forgotten when it returns.
        struct DropOnUnwind<'a, F: Future, S> {
            cell: &'a TaskCell<F, S>,
            future: *mut F,
        }
        impl<F: Future, S> Drop for DropOnUnwind<'_, F, S> {
            fn drop(&mut self) {
                // Tag first: nothing is left to drop twice, whatever the drop does.
                self.cell.set_tag(tag::CONSUMED);
                let future = self.future;
                // SAFETY: the future is live (the tag said RUNNING until just now) and the
                // poll that borrowed it has unwound past its last use; it is dropped once,
                // in place, where it was pinned.
                let _ = catch_unwind(AssertUnwindSafe(|| unsafe {
                    std::ptr::drop_in_place(future)
                }));
            }
        }
        let guarded = |fut: Pin<&mut F>| {
            // SAFETY: the pointer is used only to poll the future in place (re-pinned below)
            // and to drop it in place; it never moves.
            let future: *mut F = unsafe { fut.get_unchecked_mut() };
            catch_unwind(AssertUnwindSafe(|| {
                let guard = DropOnUnwind { cell: self, future };
                // SAFETY: the cell never moves while the future lives (it stays pinned).
                let out = poll(unsafe { Pin::new_unchecked(&mut *future) });
                std::mem::forget(guard);
                out
            }))
        };
        // SAFETY: the caller holds RUNNING.
        unsafe { self.with_future(guarded) }
    }

    /// Drops whatever the stage holds and leaves it consumed. The tag is set first, so a panic
    /// from the drop (which propagates) leaves nothing to drop twice. The task's id is current
    /// while the future or output drops, so `task::id()` works in their destructors (as in
    /// tokio), on whichever thread drops them.
    ///
    /// # Safety
    /// The caller holds the stage (rule 1 or 5).
    pub(crate) unsafe fn drop_stage(&self) {
        let _id = super::id::IdGuard::enter(self.header.id);
        let t = self.tag();
        self.set_tag(tag::CONSUMED);
        self.stage.with_mut(|stage| {
            // SAFETY: the tag said which field was live; the caller holds the stage, and the
            // tag now says nothing is live, so it is dropped once.
            unsafe {
                match t {
                    tag::RUNNING => ManuallyDrop::drop(&mut (*stage).future),
                    tag::OUTPUT => ManuallyDrop::drop(&mut (*stage).output),
                    _ => {}
                }
            }
        });
        if t == tag::PANICKED {
            // Dropped after the lock is released.
            drop(self.take_panic());
        }
    }

    fn key(&self) -> usize {
        std::ptr::from_ref(self).addr()
    }

    /// This cell's entry in `PANICKED` (there is one while the tag says `PANICKED`).
    fn take_panic(&self) -> JoinError {
        let e = panicked().remove(&self.key());
        e.expect("a panicked task's error is in the table")
    }

    /// Stores the task's outcome.
    ///
    /// # Safety
    /// The caller holds RUNNING and the stage is consumed (`drop_stage` ran).
    pub(crate) unsafe fn store_output(&self, out: Result<F::Output, JoinError>) {
        debug_assert_eq!(self.tag(), tag::CONSUMED);
        let t = match out {
            Ok(v) => {
                // SAFETY: the stage is ours and holds nothing.
                self.stage
                    .with_mut(|s| unsafe { (*s).output = ManuallyDrop::new(v) });
                tag::OUTPUT
            }
            Err(e) if e.is_cancelled() => tag::CANCELLED,
            Err(e) => {
                let old = panicked().insert(self.key(), e);
                debug_assert!(old.is_none(), "a live cell had an entry already");
                tag::PANICKED
            }
        };
        self.set_tag(t);
    }

    /// Takes the outcome out, leaving the stage consumed.
    ///
    /// # Safety
    /// The caller owns the output (rule 5).
    ///
    /// # Panics
    /// When there is no outcome (it was taken already).
    pub(crate) unsafe fn take_output(&self) -> Result<F::Output, JoinError> {
        let t = self.tag();
        let out = self.stage.with_mut(|stage| {
            // SAFETY: the tag says which field is live; the caller owns it (rule 5), and the tag
            // is set to consumed below, so it is read out once.
            unsafe {
                match t {
                    tag::OUTPUT => Ok(ManuallyDrop::take(&mut (*stage).output)),
                    tag::CANCELLED => Err(JoinError::cancelled(self.header.id)),
                    tag::PANICKED => Err(self.take_panic()),
                    _ => panic!("JoinHandle polled after it returned the output"),
                }
            }
        });
        self.set_tag(tag::CONSUMED);
        out
    }
}

impl<F: Future, S> Drop for TaskCell<F, S> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: the last reference is gone, the stage is ours.
        unsafe { self.drop_stage() };
    }
}

impl Header {
    /// The task's id.
    pub fn id(&self) -> Id {
        self.id
    }

    /// The task's name, if it was spawned with one (`rt::task::Builder::name`).
    pub fn name(&self) -> Option<&str> {
        self.meta.name()
    }

    /// Where the task was spawned (the caller of the spawn function).
    pub fn spawn_location(&self) -> &'static std::panic::Location<'static> {
        self.meta.location()
    }

    /// The task's priority (fixed at spawn).
    #[inline]
    pub fn priority(&self) -> super::Priority {
        self.meta.priority()
    }
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Header")
            .field("id", &self.id)
            .field("name", &self.name())
            .field("spawned_at", &self.spawn_location())
            .field("priority", &self.priority())
            .field("state", &self.state)
            .field("pooled", &self.pooled)
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Names and spawn locations cost one word per cell (`meta.rs`): the header is 5 words (the
    /// stage tag lives in its padding). With the thin stage a task with a zero-sized future and
    /// output `()` (`std::future::Pending<()>`, a one-word scheduler handle) takes 64 bytes, and
    /// one with a one-byte future (`Ready<()>`, an `async {}` block) 72; both took 96 with an enum
    /// stage holding `Result<(), JoinError>`: `cargo test -p rt-core --lib cell_size -- --nocapture`.
    #[test]
    fn cell_size_header_five_words_trivial_cell_64_bytes() {
        let header = size_of::<Header>();
        let pending = size_of::<TaskCell<std::future::Pending<()>, usize>>();
        let ready = size_of::<TaskCell<std::future::Ready<()>, usize>>();
        println!(
            "header {header} bytes, zero-sized future {pending} bytes, Ready<()> {ready} bytes"
        );
        assert_eq!(header, 5 * size_of::<usize>());
        assert_eq!(pending, 64);
        assert_eq!(ready, 72);
    }

    struct NoopScheduler;

    impl crate::task::Schedule for NoopScheduler {
        fn release(&self, _: &crate::task::Task<Self>) -> Option<crate::task::Task<Self>> {
            None
        }
        fn schedule(&self, _: crate::task::Notified<Self>) {
            unreachable!("never woken");
        }
    }

    fn has_entry(join: &crate::task::JoinHandle<()>) -> bool {
        let key = join.raw_header_addr();
        panicked().contains_key(&key)
    }

    /// A panicked task's error waits in the side table until its `JoinHandle` takes it out, or
    /// until the output is dropped (the handle dropped before or after completion): no entry
    /// outlives its cell.
    #[test]
    fn panic_error_lives_in_the_side_table_until_taken_or_dropped() {
        let spawn = || {
            crate::task::unowned(
                async { panic!("boom") },
                NoopScheduler,
                crate::task::next_id(),
                SpawnMeta::caller(),
                false,
            )
        };
        // Taken by the handle.
        let (notified, join) = spawn();
        notified.run();
        assert!(has_entry(&join));
        let key = join.raw_header_addr();
        let err = crate::test_support::block_on(join).unwrap_err();
        assert!(err.is_panic());
        assert!(!panicked().contains_key(&key));
        // Dropped with the handle, after completion.
        let (notified, join) = spawn();
        notified.run();
        let key = join.raw_header_addr();
        assert!(has_entry(&join));
        drop(join);
        assert!(!panicked().contains_key(&key));
        // Handle dropped first: the completing thread drops the error at once.
        let (notified, join) = spawn();
        let key = join.raw_header_addr();
        drop(join);
        notified.run();
        assert!(!panicked().contains_key(&key));
    }
}
