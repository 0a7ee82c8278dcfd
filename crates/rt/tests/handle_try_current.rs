//! `Handle::try_current` has tokio's signature: `Err(TryCurrentError)` outside a runtime (with
//! `is_missing_context()` and a message that says what to do), `Ok` inside `block_on`, in a task
//! and under an `EnterGuard` — and `Err` again once the guard is gone.

use rt::runtime::TryCurrentError;
use rt::Handle;

#[test]
fn err_outside_ok_inside() {
    let err: TryCurrentError = Handle::try_current().unwrap_err();
    assert!(err.is_missing_context());
    assert!(!err.is_thread_local_destroyed());
    assert!(err.to_string().contains("block_on"), "{err}");
    let _boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);

    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    assert!(rt.block_on(async { Handle::try_current().is_ok() }));
    let in_task = rt.block_on(async { rt::spawn(async { Handle::try_current().is_ok() }).await });
    assert!(in_task.unwrap());

    {
        let _guard = rt.enter();
        let handle = Handle::try_current().expect("an EnterGuard makes the runtime current");
        assert_eq!(
            handle.runtime_flavor(),
            rt::runtime::RuntimeFlavor::MultiThread
        );
    }
    assert!(Handle::try_current().unwrap_err().is_missing_context());
}
