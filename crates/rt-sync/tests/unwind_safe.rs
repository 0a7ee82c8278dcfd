//! The primitives tokio marks `UnwindSafe + RefUnwindSafe` are so here too, whatever the value
//! type (this file does not compile otherwise).

use std::cell::Cell;
use std::panic::{RefUnwindSafe, UnwindSafe};

use rt_sync::mpsc;

fn assert_unwind_safe<T: UnwindSafe + RefUnwindSafe>() {}

/// A value type that is itself neither.
type NotUnwindSafe = Cell<u8>;

#[test]
fn notify_and_mpsc_handles() {
    assert_unwind_safe::<rt_sync::Notify>();
    assert_unwind_safe::<mpsc::Sender<NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::Receiver<NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::Permit<'static, NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::PermitIterator<'static, NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::OwnedPermit<NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::WeakSender<NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::UnboundedSender<NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::UnboundedReceiver<NotUnwindSafe>>();
    assert_unwind_safe::<mpsc::WeakUnboundedSender<NotUnwindSafe>>();
}
