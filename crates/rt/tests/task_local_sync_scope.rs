//! Task-locals outside futures: `sync_scope` sets a value for a closure and restores the
//! previous one (also when the closure panics), `try_with` outside any scope is an
//! `AccessError`, `with` outside one panics with a message, and a scope's inner future is
//! dropped with the value still set.

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use rt::task::AccessError;
use support::panic_text;

rt::task_local! {
    static NUM: u32;
    static TEXT: &'static str;
}

#[test]
fn sync_scope_sets_and_restores() {
    let _: Result<u32, AccessError> = NUM.try_with(|v| *v);
    assert!(NUM.try_with(|v| *v).is_err());
    let r = NUM.sync_scope(1, || {
        assert_eq!(NUM.get(), 1);
        let inner = NUM.sync_scope(2, || NUM.get());
        assert_eq!(
            NUM.get(),
            1,
            "the outer value is back after the inner scope"
        );
        inner * 10
    });
    assert_eq!(r, 20);
    assert!(NUM.try_with(|_| ()).is_err());
}

#[test]
fn sync_scope_restores_after_a_panic() {
    let res = catch_unwind(|| NUM.sync_scope(5, || panic!("inside the scope")));
    assert!(res.is_err());
    assert!(
        NUM.try_with(|_| ()).is_err(),
        "the value is gone after the unwind"
    );
}

#[test]
fn try_with_outside_a_scope_is_an_access_error() {
    let err = TEXT.try_with(|t| t.len()).unwrap_err();
    assert_eq!(err.to_string(), "task-local value not set");
    let _: &dyn std::error::Error = &err;
}

#[test]
fn with_outside_a_scope_panics_with_a_message() {
    let err = catch_unwind(AssertUnwindSafe(|| TEXT.with(|t| t.len()))).unwrap_err();
    assert!(
        panic_text(&*err).contains("without setting it first"),
        "{}",
        panic_text(&*err)
    );
}

struct ReadOnDrop(std::sync::mpsc::Sender<Option<u32>>);
impl Drop for ReadOnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(NUM.try_with(|v| *v).ok());
    }
}

#[test]
fn the_inner_future_is_dropped_inside_the_scope() {
    let (tx, rx) = std::sync::mpsc::channel();
    let guard = ReadOnDrop(tx);
    let fut = NUM.scope(9, async move {
        let _g = guard;
        std::future::pending::<()>().await;
    });
    drop(fut);
    assert_eq!(rx.recv().unwrap(), Some(9));
}
