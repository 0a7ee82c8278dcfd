//! Misuse of paused time panics with a message that says what to do (tokio's behaviour):
//! pausing twice, resuming or advancing a clock that is not paused, pausing outside a runtime,
//! and paused time on a runtime whose reactor runs on its own thread.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

fn message(r: std::thread::Result<()>) -> String {
    let e = r.expect_err("panicked");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn pause_twice_panics() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        rt::time::pause();
        let m = message(catch_unwind(rt::time::pause));
        assert!(m.contains("already frozen"), "{m}");
    });
}

#[test]
fn resume_and_advance_need_a_paused_clock() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        let m = message(catch_unwind(rt::time::resume));
        assert!(m.contains("not frozen"), "{m}");
        let m = message(catch_unwind(|| {
            drop(rt::time::advance(Duration::from_secs(1)));
        }));
        assert!(m.contains("not frozen"), "{m}");
    });
}

#[test]
fn pause_outside_a_runtime_panics() {
    let m = message(catch_unwind(rt::time::pause));
    assert!(m.contains("outside of an rt runtime"), "{m}");
}

#[test]
fn paused_time_needs_the_worker_driven_reactor() {
    let m = message(catch_unwind(AssertUnwindSafe(|| {
        let _ = rt::Builder::new_multi_thread()
            .worker_threads(1)
            .reactor_thread(true)
            .start_paused(true)
            .build();
    })));
    assert!(m.contains("reactor_thread(true)"), "{m}");
}
