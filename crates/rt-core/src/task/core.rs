//! The task cell: one allocation holding the header, the scheduler handle, the future or its
//! output (the stage), and the trailer (join waker).
//!
//! ```text
//!  +----------------------+  <- *const Header (what wakers, RawTask and queues point at)
//!  | Header               |  state word, vtable, id, spawn meta, owned-list slot, pooled flag
//!  +----------------------+
//!  | scheduler: S         |
//!  +----------------------+
//!  | stage: Stage<F>      |  Running(F) | Finished(Result<F::Output, JoinError>) | Consumed
//!  +----------------------+
//!  | Trailer              |  join waker slot
//!  +----------------------+
//! ```
//! `#[repr(C)]` keeps the header first, so a `*const Header` is also a `*const TaskCell<F, S>`; the
//! vtable carries the functions monomorphised for `F` and `S`.

use std::future::Future;
use std::task::Waker;

use super::error::JoinError;
use super::id::Id;
use super::meta::{MetaPtr, SpawnMeta};
use super::raw::Vtable;
use super::state::State;
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
}

/// The future, then its output.
pub(crate) enum Stage<F: Future> {
    Running(F),
    Finished(Result<F::Output, JoinError>),
    Consumed,
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
    /// output (the `JoinHandle` while JOIN_INTEREST is set, else the completing thread).
    pub(crate) stage: UnsafeCell<Stage<F>>,
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
            },
            scheduler,
            stage: UnsafeCell::new(Stage::Running(future)),
            trailer: Trailer {
                waker: UnsafeCell::new(None),
            },
        }
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
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Header")
            .field("id", &self.id)
            .field("name", &self.name())
            .field("spawned_at", &self.spawn_location())
            .field("state", &self.state)
            .field("pooled", &self.pooled)
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// Names and spawn locations cost one word per cell (`meta.rs`): the header went from 4
    /// words to 5. A trivial task (`std::future::Ready<()>`, a one-word scheduler handle)
    /// went from 88 to 96 bytes (`cargo test -p rt-core --lib cell_size -- --nocapture`).
    #[test]
    fn cell_size_grows_by_one_word_for_names_and_locations() {
        let header = size_of::<Header>();
        let cell = size_of::<TaskCell<std::future::Ready<()>, usize>>();
        println!("header {header} bytes, trivial cell {cell} bytes");
        assert_eq!(header, 5 * size_of::<usize>());
    }
}
