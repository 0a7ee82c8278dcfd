//! Once a background task's time slice has expired, a queued latency-sensitive (normal) task
//! runs before that background task's next poll: its next budget check (`consume_budget`, or
//! `yield_if_needed`, which spends nothing) returns `Pending`. The slice is zero (`Builder::background_time_slice`), so it has
//! expired at every budget check and the test reads no clock; the order is recorded in a log.
//! Without the slice the background task's budget (128 units) would carry it through all its
//! iterations before the normal task ran.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt::task::Priority;

/// The background task spends a budget unit (a poll's first check always proceeds), logs
/// `bg0`, spawns a normal task that logs `normal`, spends a budget unit, and logs `bg1`, `bg2`.
/// With `spend` false its budget checks are `yield_if_needed`, which spends nothing.
async fn scenario_with(spend: bool) -> Vec<&'static str> {
    let check = move || async move {
        if spend {
            rt::task::consume_budget().await;
        } else {
            rt::task::yield_if_needed().await;
        }
    };
    let log = Arc::new(Mutex::new(Vec::new()));
    let bg_log = log.clone();
    let bg = rt::task::Builder::new()
        .priority(Priority::Background)
        .spawn(async move {
            // A poll's first budget check always proceeds (every poll makes progress).
            check().await;
            bg_log.lock().unwrap().push("bg0");
            let normal_log = bg_log.clone();
            // Explicitly normal: a plain spawn here would inherit background.
            let normal = rt::task::Builder::new()
                .priority(Priority::Normal)
                .spawn(async move { normal_log.lock().unwrap().push("normal") })
                .unwrap();
            for i in ["bg1", "bg2"] {
                check().await;
                bg_log.lock().unwrap().push(i);
            }
            normal.await.unwrap();
        })
        .unwrap();
    bg.await.unwrap();
    let log = log.lock().unwrap().clone();
    log
}

async fn scenario() -> Vec<&'static str> {
    scenario_with(true).await
}

#[test]
fn multi_thread_one_worker() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .background_time_slice(Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(scenario()), ["bg0", "normal", "bg1", "bg2"]);
}

#[test]
fn current_thread() {
    let rt = rt::Builder::new_current_thread()
        .background_time_slice(Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(scenario()), ["bg0", "normal", "bg1", "bg2"]);
}

/// `yield_if_needed` ends the slice the same way, though it spends no budget.
#[test]
fn yield_if_needed_ends_an_expired_slice_too() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .background_time_slice(Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(
        rt.block_on(scenario_with(false)),
        ["bg0", "normal", "bg1", "bg2"]
    );
}

/// The control: with a slice longer than any test, the budget check does not end the poll,
/// so the background task runs on (this is what makes the tests above able to fail).
#[test]
fn without_an_expired_slice_the_background_poll_goes_on() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .background_time_slice(Duration::from_secs(3600))
        .build()
        .unwrap();
    assert_eq!(rt.block_on(scenario()), ["bg0", "bg1", "bg2", "normal"]);
}
