//! Misuse panics with a message and never corrupts state: a `Co` moved out of its body (into
//! another coroutine, or kept past its coroutine's end), and two `yield_`s pending at once.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use rt::coro::{Co, Coroutine, Resumed};

fn message(err: Box<dyn std::any::Any + Send>) -> String {
    err.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Polls `fut` once with a no-op waker.
fn poll_once<F: Future>(fut: Pin<&mut F>) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn a_co_used_outside_any_coroutine_panics() {
    let stash: Arc<Mutex<Option<Co<u32>>>> = Arc::default();
    let s = stash.clone();
    let mut co: Coroutine<u32> = Coroutine::new(move |co: Co<u32>, ()| async move {
        co.yield_(1).await;
        *s.lock().unwrap() = Some(co); // smuggled out
    });
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(1))));
    assert!(matches!(co.resume(()), Ok(Resumed::Return(()))));
    let escaped = stash.lock().unwrap().take().unwrap();
    let mut fut = std::pin::pin!(escaped.yield_(2));
    let err = catch_unwind(AssertUnwindSafe(|| poll_once(fut.as_mut()))).unwrap_err();
    assert!(message(err).contains("Co::yield_ polled outside its coroutine's body"));
}

#[test]
fn a_co_used_inside_another_coroutine_panics_there_and_leaves_its_own_intact() {
    let stash: Arc<Mutex<Option<Co<u32>>>> = Arc::default();
    let s = stash.clone();
    let mut owner: Coroutine<u32> = Coroutine::new(move |co: Co<u32>, ()| async move {
        // Give the only Co away, then wait forever without yielding.
        *s.lock().unwrap() = Some(co);
        std::future::pending::<()>().await;
    });
    // The owner parks forever on `pending` after giving its Co away: drive it with
    // resume_async polled once, so nothing blocks.
    {
        let mut fut = std::pin::pin!(owner.resume_async(()));
        assert!(poll_once(fut.as_mut()).is_pending());
    }
    let stolen = stash.lock().unwrap().take().unwrap();
    let mut thief: Coroutine<u32> = Coroutine::new(move |co: Co<u32>, ()| async move {
        co.yield_(1).await;
        stolen.yield_(99).await; // the owner's Co, in the thief's body
    });
    assert!(matches!(thief.resume(()), Ok(Resumed::Yield(1))));
    let err = thief.resume(()).unwrap_err();
    assert!(err.is_panic());
    assert!(message(err.into_panic()).contains("Co::yield_ polled outside its coroutine's body"));
    assert!(!thief.is_alive());
    assert!(owner.is_alive(), "the owner's state was not touched");
}

#[test]
fn a_co_kept_past_reset_is_dead() {
    let stash: Arc<Mutex<Option<Co<u32>>>> = Arc::default();
    let s = stash.clone();
    let mut co: Coroutine<u32> = Coroutine::new(move |co: Co<u32>, ()| async move {
        *s.lock().unwrap() = Some(co);
    });
    assert!(matches!(co.resume(()), Ok(Resumed::Return(()))));
    let old = stash.lock().unwrap().take().unwrap();
    co.reset(move |_co: Co<u32>, ()| async move {
        old.yield_(5).await; // the previous body's Co
    });
    let err = co.resume(()).unwrap_err();
    assert!(message(err.into_panic()).contains("Co::yield_ polled outside"));
}

#[test]
fn two_yields_pending_at_once_panic() {
    let mut co: Coroutine<u32> = Coroutine::new(|co: Co<u32>, ()| async move {
        let mut a = std::pin::pin!(co.yield_(1));
        let mut b = std::pin::pin!(co.yield_(2));
        std::future::poll_fn(|cx| {
            let _ = a.as_mut().poll(cx);
            let _ = b.as_mut().poll(cx);
            Poll::<()>::Pending
        })
        .await;
    });
    let err = co.resume(()).unwrap_err();
    assert!(message(err.into_panic()).contains("two Co::yield_ futures of one coroutine"));
    assert!(!co.is_alive());
}
