//! Wakers point at the task header: no allocation per waker. Clone and drop are reference-count
//! operations; `wake` and `wake_by_ref` schedule the task at most once however often they run.

use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

use super::core::Header;
use super::harness;
use super::raw::RawTask;

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// A waker over `raw` that owns no reference: the caller keeps it in `ManuallyDrop` and it must
/// not outlive the poll. Cloning it takes a real reference.
pub(crate) fn waker_ref(raw: RawTask) -> Waker {
    let data = raw.header_ptr().as_ptr() as *const ();
    // SAFETY: the vtable's functions uphold the `RawWaker` contract over a task header.
    unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
}

/// # Safety
/// `data` is a task header pointer put there by `waker_ref` or `clone`.
unsafe fn raw(data: *const ()) -> RawTask {
    // SAFETY: per the contract, `data` is a live header.
    unsafe { RawTask::from_raw(NonNull::new_unchecked(data as *mut Header)) }
}

unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` is a live header (the waker being cloned holds or borrows a reference).
    unsafe { raw(data) }.ref_inc();
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: an owned waker: its reference is consumed by the wake.
    harness::wake_by_val(unsafe { raw(data) });
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker holds (or borrows) a reference for the duration of the call.
    harness::wake_by_ref(unsafe { raw(data) });
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: an owned waker: its reference is dropped here.
    unsafe { raw(data) }.drop_reference();
}
