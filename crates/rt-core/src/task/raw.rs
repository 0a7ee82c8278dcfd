//! `RawTask`: a type-erased pointer to a task cell, and the vtable that gives it back its types.

use std::alloc::Layout;
use std::future::Future;
use std::ptr::NonNull;
use std::task::Waker;

use super::core::{Header, TaskCell};
use super::harness::Harness;
use super::id::Id;
use super::meta::SpawnMeta;
use super::state::TransitionToNotified;
use super::Schedule;

/// Functions monomorphised for one `TaskCell<F, S>`, plus its layout, so a debugger (or a trace
/// exporter) can decode a raw task without knowing `F`.
pub struct Vtable {
    /// Polls the task (consumes a `Notified` reference).
    pub(crate) poll: unsafe fn(NonNull<Header>),
    /// Submits the task to its scheduler (consumes a `Notified` reference).
    pub(crate) schedule: unsafe fn(NonNull<Header>),
    /// Frees the cell (the last reference is gone).
    pub(crate) dealloc: unsafe fn(NonNull<Header>),
    /// Reads the output into `*mut Poll<Result<T, JoinError>>` if complete, else stores the waker.
    pub(crate) try_read_output: unsafe fn(NonNull<Header>, *mut (), &Waker),
    /// The `JoinHandle` is dropped (consumes its reference unless the `bool`, `keep_ref`, is
    /// set: then the reference passes to an `AbortHandle`).
    pub(crate) drop_join_handle: unsafe fn(NonNull<Header>, bool),
    /// Cancels the task at shutdown (consumes a reference).
    pub(crate) shutdown: unsafe fn(NonNull<Header>),
    /// The cell's layout.
    pub layout: Layout,
}

impl std::fmt::Debug for Vtable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vtable")
            .field("layout", &self.layout)
            .finish()
    }
}

fn vtable<F: Future, S: Schedule>() -> &'static Vtable {
    struct Of<F, S>(F, S);
    impl<F: Future, S: Schedule> Of<F, S> {
        const VTABLE: Vtable = Vtable {
            poll: poll::<F, S>,
            schedule: schedule::<F, S>,
            dealloc: dealloc::<F, S>,
            try_read_output: try_read_output::<F, S>,
            drop_join_handle: drop_join_handle::<F, S>,
            shutdown: shutdown::<F, S>,
            layout: Layout::new::<TaskCell<F, S>>(),
        };
    }
    &Of::<F, S>::VTABLE
}

/// A pointer to a task cell; `Copy`, and owns nothing by itself: the reference types built on it
/// (`Task`, `Notified`, `JoinHandle`, wakers) each own one count of the state word.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawTask {
    ptr: NonNull<Header>,
}

impl RawTask {
    /// Allocates a new cell with `refs` references.
    pub(crate) fn new<F, S>(
        future: F,
        scheduler: S,
        id: Id,
        meta: SpawnMeta<'_>,
        refs: usize,
        pooled: bool,
        owned_slot: u32,
    ) -> RawTask
    where
        F: Future,
        S: Schedule,
    {
        let vtable = vtable::<F, S>();
        let cell = TaskCell::new(
            future, scheduler, id, meta, refs, pooled, owned_slot, vtable,
        );
        let layout = vtable.layout;
        let ptr = if pooled {
            crate::pool::alloc(layout)
        } else {
            // SAFETY: `TaskCell` starts with a non-empty `Header`, so the layout is not zero-sized.
            let p = unsafe { std::alloc::alloc(layout) };
            NonNull::new(p).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
        };
        let ptr = ptr.cast::<TaskCell<F, S>>();
        // SAFETY: `ptr` is a fresh allocation of `TaskCell<F, S>`'s layout.
        unsafe { ptr.as_ptr().write(cell) };
        RawTask { ptr: ptr.cast() }
    }

    /// # Safety
    /// `ptr` points at a live task header.
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> RawTask {
        RawTask { ptr }
    }

    pub(crate) fn header_ptr(self) -> NonNull<Header> {
        self.ptr
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: a `RawTask` is only held alongside a reference count, so the cell is alive.
        unsafe { self.ptr.as_ref() }
    }

    fn vtable(&self) -> &'static Vtable {
        self.header().vtable
    }

    /// Consumes a `Notified` reference.
    pub(crate) fn poll(self) {
        // SAFETY: the vtable matches the cell; the caller gives up a `Notified` reference.
        unsafe { (self.vtable().poll)(self.ptr) }
    }

    /// Consumes a `Notified` reference.
    pub(crate) fn schedule(self) {
        // SAFETY: as above.
        unsafe { (self.vtable().schedule)(self.ptr) }
    }

    pub(crate) fn dealloc(self) {
        // SAFETY: the caller dropped the last reference.
        unsafe { (self.vtable().dealloc)(self.ptr) }
    }

    /// # Safety
    /// `dst` points at a `Poll<Result<T, JoinError>>` where `T` is the task's output type.
    pub(crate) unsafe fn try_read_output(self, dst: *mut (), waker: &Waker) {
        // SAFETY: forwarded to the caller.
        unsafe { (self.vtable().try_read_output)(self.ptr, dst, waker) }
    }

    /// Drops the `JoinHandle`'s join interest and, unless `keep_ref`, its reference.
    pub(crate) fn drop_join_handle(self, keep_ref: bool) {
        // SAFETY: the vtable matches the cell.
        unsafe { (self.vtable().drop_join_handle)(self.ptr, keep_ref) }
    }

    /// Consumes one reference.
    pub(crate) fn shutdown(self) {
        // SAFETY: the vtable matches the cell.
        unsafe { (self.vtable().shutdown)(self.ptr) }
    }

    /// Drops one reference, freeing the cell if it was the last.
    pub(crate) fn drop_reference(self) {
        if self.header().state.ref_dec() == super::state::RefDec::Last {
            self.dealloc();
        }
    }

    pub(crate) fn ref_inc(self) {
        self.header().state.ref_inc();
    }

    /// `abort()` from any thread.
    pub(crate) fn remote_abort(self) {
        tracing::trace!(task.id = self.header().id.as_u64(), "abort");
        match self.header().state.transition_to_notified_and_cancel() {
            TransitionToNotified::Submit => self.schedule(),
            TransitionToNotified::DoNothing => {}
            TransitionToNotified::Dealloc => unreachable!("abort never drops a reference"),
        }
    }
}

// SAFETY: every access to the cell is governed by the state word's protocol (see task/mod.rs).
unsafe impl Send for RawTask {}
// SAFETY: as above.
unsafe impl Sync for RawTask {}

unsafe fn poll<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for `TaskCell<F, S>`.
    unsafe { Harness::<F, S>::from_raw(ptr) }.poll();
}

unsafe fn schedule<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for `TaskCell<F, S>`; the caller hands over a `Notified` reference.
    unsafe { Harness::<F, S>::from_raw(ptr) }.schedule();
}

unsafe fn dealloc<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for `TaskCell<F, S>`; the last reference is gone.
    unsafe { Harness::<F, S>::from_raw(ptr) }.dealloc();
}

unsafe fn try_read_output<F: Future, S: Schedule>(ptr: NonNull<Header>, dst: *mut (), w: &Waker) {
    // SAFETY: the vtable was built for `TaskCell<F, S>`; the caller guarantees `dst`'s type.
    unsafe {
        let dst = &mut *dst.cast::<std::task::Poll<Result<F::Output, super::JoinError>>>();
        Harness::<F, S>::from_raw(ptr).try_read_output(dst, w);
    }
}

unsafe fn drop_join_handle<F: Future, S: Schedule>(ptr: NonNull<Header>, keep_ref: bool) {
    // SAFETY: the vtable was built for `TaskCell<F, S>`.
    unsafe { Harness::<F, S>::from_raw(ptr) }.drop_join_handle(keep_ref);
}

unsafe fn shutdown<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable was built for `TaskCell<F, S>`.
    unsafe { Harness::<F, S>::from_raw(ptr) }.shutdown();
}
