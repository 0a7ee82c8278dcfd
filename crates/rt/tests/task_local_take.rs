//! `LocalKey::try_get` and `TaskLocalFuture::take_value`, as tokio's.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};

rt::task_local! {
    static NAME: String;
}

#[test]
fn try_get_clones_inside_a_scope_and_fails_outside() {
    assert!(NAME.try_get().is_err());
    NAME.sync_scope("a".to_string(), || {
        assert_eq!(NAME.try_get().unwrap(), "a");
        assert_eq!(NAME.get(), "a", "get takes Clone values too");
    });
}

#[test]
fn take_value_before_and_after_completion() {
    let mut cx = Context::from_waker(Waker::noop());
    let mut fut = pin!(NAME.scope("b".to_string(), async {
        rt::task::yield_now().await;
        NAME.try_get().ok()
    }));
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    // Taken mid-way: the remaining polls see the key unset.
    assert_eq!(fut.as_mut().take_value().as_deref(), Some("b"));
    assert_eq!(fut.as_mut().take_value(), None);
    assert_eq!(fut.as_mut().poll(&mut cx), std::task::Poll::Ready(None));
}
