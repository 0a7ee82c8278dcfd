//! The task cell: one allocation holding the header, the scheduler handle, the future or its
//! output (the stage), and the trailer (join waker, owned-list links).
//!
//! ```text
//!  +----------------------+  <- *const Header (what wakers, RawTask and queues point at)
//!  | Header               |  state word, vtable, id, pooled flag
//!  +----------------------+
//!  | scheduler: S         |
//!  +----------------------+
//!  | stage: Stage<F>      |  Running(F) | Finished(Result<F::Output, JoinError>) | Consumed
//!  +----------------------+
//!  | Trailer              |  join waker slot, owned-list links
//!  +----------------------+
//! ```
//! `#[repr(C)]` keeps the header first, so a `*const Header` is also a `*const Cell<F, S>`; the
//! vtable carries the functions monomorphised for `F` and `S`.

use std::future::Future;
use std::ptr::NonNull;
use std::task::Waker;

use super::error::JoinError;
use super::id::Id;
use super::list::Links;
use super::raw::Vtable;
use super::state::State;
use crate::sync::UnsafeCell;

/// The first field of every task cell.
#[repr(C)]
pub struct Header {
    pub(crate) state: State,
    pub(crate) vtable: &'static Vtable,
    pub(crate) id: Id,
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
    /// Guarded by the owned-list shard lock.
    pub(crate) links: UnsafeCell<Links>,
}

#[repr(C)]
pub(crate) struct Cell<F: Future, S> {
    pub(crate) header: Header,
    pub(crate) scheduler: S,
    /// Rule: touched only by the holder of RUNNING, or, once COMPLETE is set, by whoever owns the
    /// output (the `JoinHandle` while JOIN_INTEREST is set, else the completing thread).
    pub(crate) stage: UnsafeCell<Stage<F>>,
    pub(crate) trailer: Trailer,
}

impl<F: Future, S> Cell<F, S> {
    pub(crate) fn new(
        future: F,
        scheduler: S,
        id: Id,
        refs: usize,
        pooled: bool,
        vtable: &'static Vtable,
    ) -> Cell<F, S> {
        Cell {
            header: Header {
                state: State::new(refs),
                vtable,
                id,
                pooled,
            },
            scheduler,
            stage: UnsafeCell::new(Stage::Running(future)),
            trailer: Trailer {
                waker: UnsafeCell::new(None),
                links: UnsafeCell::new(Links::default()),
            },
        }
    }
}

impl Header {
    /// The trailer of the cell this header starts.
    ///
    /// # Safety
    /// `this` points at a live task header.
    pub(crate) unsafe fn trailer(this: NonNull<Header>) -> NonNull<Trailer> {
        // SAFETY: the caller guarantees a live header; the vtable stores the trailer's offset
        // within the cell, computed for this very cell type.
        unsafe {
            let offset = this.as_ref().vtable.trailer_offset;
            NonNull::new_unchecked(this.as_ptr().cast::<u8>().add(offset).cast::<Trailer>())
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.id
    }
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Header")
            .field("id", &self.id)
            .field("state", &self.state)
            .field("pooled", &self.pooled)
            .finish()
    }
}
