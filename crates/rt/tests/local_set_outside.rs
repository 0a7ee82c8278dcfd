//! `rt::task::spawn_local` outside a `LocalSet` panics with a message that names `LocalSet`,
//! also inside a runtime (a task or `block_on`); inside a set's `run_until` it works.

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use support::{current_thread, panic_text, quiet_expected_panics};

fn spawn_local_message() -> String {
    let err = catch_unwind(AssertUnwindSafe(|| {
        drop(rt::task::spawn_local(async {}));
    }))
    .unwrap_err();
    panic_text(&*err).to_string()
}

#[test]
fn outside_any_runtime() {
    quiet_expected_panics();
    let msg = spawn_local_message();
    assert!(
        msg.contains("`spawn_local` called from outside of a `task::LocalSet`"),
        "{msg}"
    );
    assert!(msg.contains("LocalSet::run_until"), "{msg}");
}

#[test]
fn inside_block_on_but_outside_a_set() {
    let rt = current_thread();
    let msg = rt.block_on(async { spawn_local_message() });
    assert!(msg.contains("outside of a `task::LocalSet`"), "{msg}");
    // After a set ran here, its context is gone again.
    let local = rt::task::LocalSet::new();
    local.block_on(&rt, async {
        rt::task::spawn_local(async {}).await.unwrap()
    });
    let msg = rt.block_on(async { spawn_local_message() });
    assert!(msg.contains("outside of a `task::LocalSet`"), "{msg}");
}
