//! A coroutine's life: dead after it returns, a panic caught and returned once, `reset` giving
//! a dead coroutine a new body (smaller or larger than the old one), `reset` on a live one
//! panicking with a message.

use std::panic::{catch_unwind, AssertUnwindSafe};

use rt::coro::{Co, Coroutine, Resumed, Status};

#[test]
fn dead_after_return() {
    let mut co: Coroutine<u32, (), u32> = Coroutine::new(|co: Co<u32>, ()| async move {
        co.yield_(1).await;
        2
    });
    assert_eq!(co.status(), Status::Suspended);
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(1))));
    assert_eq!(co.status(), Status::Suspended);
    assert!(matches!(co.resume(()), Ok(Resumed::Return(2))));
    assert_eq!(co.status(), Status::Dead);
    let err = co.resume(()).unwrap_err();
    assert!(err.is_dead());
    assert!(!err.is_panic());
    assert_eq!(
        err.to_string(),
        "cannot resume a dead coroutine (it returned or panicked)"
    );
    assert!(err.try_into_panic().unwrap_err().is_dead());
}

#[test]
fn a_panic_is_returned_once_and_kills_the_coroutine() {
    let mut co: Coroutine<u32, u32, ()> =
        Coroutine::new(|co: Co<u32, u32>, first: u32| async move {
            let got = co.yield_(first).await;
            if got == 13 {
                panic!("unlucky {got}");
            }
        });
    assert!(matches!(co.resume(5), Ok(Resumed::Yield(5))));
    let err = co.resume(13).unwrap_err();
    assert!(err.is_panic());
    assert!(!err.is_dead());
    assert_eq!(err.to_string(), "coroutine panicked: unlucky 13");
    assert_eq!(
        err.into_panic()
            .downcast_ref::<String>()
            .map(String::as_str),
        Some("unlucky 13")
    );
    assert!(!co.is_alive());
    assert!(co.resume(1).unwrap_err().is_dead());
}

#[test]
fn a_panic_before_the_first_await_is_caught_too() {
    let mut co: Coroutine<(), (), ()> =
        Coroutine::new(|_co: Co<()>, ()| -> std::future::Ready<()> {
            panic!("in the body's call")
        });
    assert!(co.resume(()).unwrap_err().is_panic());
    assert_eq!(co.status(), Status::Dead);
}

#[test]
fn reset_gives_a_dead_coroutine_a_new_body() {
    let mut co: Coroutine<u64, (), u64> = Coroutine::new(|co: Co<u64>, ()| async move {
        co.yield_(1).await;
        10
    });
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(1))));
    assert!(matches!(co.resume(()), Ok(Resumed::Return(10))));

    // A body that fits the old frame.
    co.reset(|co: Co<u64>, ()| async move {
        co.yield_(2).await;
        20
    });
    assert_eq!(co.status(), Status::Suspended);
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(2))));
    assert!(matches!(co.resume(()), Ok(Resumed::Return(20))));

    // A body far larger than the old frame (beyond the pool's largest class, too).
    let big = [7u64; 1024];
    co.reset(move |co: Co<u64>, ()| async move {
        co.yield_(big.iter().sum()).await;
        big[0]
    });
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(7168))));
    assert!(matches!(co.resume(()), Ok(Resumed::Return(7))));

    // After a panic too.
    co.reset(|_co: Co<u64>, ()| async move { panic!("boom") });
    assert!(co.resume(()).unwrap_err().is_panic());
    co.reset(|_co: Co<u64>, ()| async move { 30 });
    assert!(matches!(co.resume(()), Ok(Resumed::Return(30))));
}

#[test]
fn reset_of_a_live_coroutine_panics_with_a_message() {
    let mut co: Coroutine<u32> = Coroutine::new(|co: Co<u32>, ()| async move {
        co.yield_(1).await;
    });
    let err = catch_unwind(AssertUnwindSafe(|| co.reset(|_co: Co<u32>, ()| async {}))).unwrap_err();
    let msg = err.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(msg.contains("reset called on a live coroutine"), "{msg}");
    // Untouched: it still runs its first body.
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(1))));
}

#[test]
fn dropping_a_suspended_coroutine_drops_its_body() {
    use std::sync::Arc;
    let held = Arc::new(());
    let inside = held.clone();
    let mut co: Coroutine<u32> = Coroutine::new(move |co: Co<u32>, ()| async move {
        let _keep = inside;
        co.yield_(1).await;
    });
    assert!(matches!(co.resume(()), Ok(Resumed::Yield(1))));
    assert_eq!(Arc::strong_count(&held), 2);
    drop(co);
    assert_eq!(Arc::strong_count(&held), 1);

    // And one never started.
    let inside = held.clone();
    let co: Coroutine<u32> = Coroutine::new(move |_co: Co<u32>, ()| async move { drop(inside) });
    assert_eq!(Arc::strong_count(&held), 2);
    drop(co);
    assert_eq!(Arc::strong_count(&held), 1);
}

#[test]
fn resume_error_is_a_send_sync_error() {
    fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
    assert_error::<rt::coro::ResumeError>();
    // `?` into a boxed error works.
    fn dead() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let mut co: Coroutine<(), (), ()> = Coroutine::new(|_co: Co<()>, ()| async {});
        co.resume(())?;
        co.resume(())?;
        Ok(())
    }
    assert!(dead().unwrap_err().to_string().contains("dead coroutine"));
}
