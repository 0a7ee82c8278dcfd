//! `JoinError` is `Send + Sync` like tokio's, so `?` turns it into
//! `Box<dyn Error + Send + Sync>` (the bound `anyhow::Error: From<E>` asks for too), and the
//! panic message survives the conversion.

mod support;

use std::error::Error;

use support::{quiet_expected_panics, runtimes, EXPECTED};

type BoxError = Box<dyn Error + Send + Sync + 'static>;

async fn join_with_question_mark(h: rt::task::JoinHandle<u32>) -> Result<u32, BoxError> {
    let v = h.await?;
    Ok(v)
}

#[test]
fn question_mark_converts_a_panic_into_a_send_sync_box() {
    quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(async { panic!("{EXPECTED} boom") });
        let err = rt.block_on(join_with_question_mark(h)).unwrap_err();
        assert!(err.to_string().contains("boom"), "{flavor}: {err}");
        // The box can cross threads, which needs `Send + Sync` of what is inside.
        let text = std::thread::spawn(move || err.to_string()).join().unwrap();
        assert!(text.contains("panicked"), "{flavor}: {text}");

        let ok = rt.block_on(join_with_question_mark(rt.spawn(async { 7 })));
        assert_eq!(ok.unwrap(), 7, "{flavor}");
    }
}

#[test]
fn a_cancellation_converts_too_and_keeps_its_kind() {
    for (flavor, rt) in runtimes() {
        let h = rt.spawn(std::future::pending::<u32>());
        h.abort();
        let err = rt.block_on(join_with_question_mark(h)).unwrap_err();
        let join = err
            .downcast_ref::<rt::task::JoinError>()
            .unwrap_or_else(|| panic!("{flavor}: not a JoinError: {err}"));
        assert!(join.is_cancelled(), "{flavor}");
    }
}

#[test]
fn the_payload_comes_back_out() {
    quiet_expected_panics();
    let rt = support::current_thread();
    let err = rt
        .block_on(rt.spawn(async { std::panic::panic_any(42_u64) }))
        .unwrap_err();
    let shared: &(dyn Error + Send + Sync) = &err;
    assert!(shared.to_string().contains("panicked"));
    let payload = err.into_panic();
    assert_eq!(*payload.downcast::<u64>().unwrap(), 42);
}
