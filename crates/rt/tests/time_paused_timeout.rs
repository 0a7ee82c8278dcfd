//! Paused time: a one-hour `timeout` of a future that never completes fires at once, on both
//! flavours, by auto-advance (every worker idle, so the clock jumps to the timer), and the
//! paused clock reads an hour later. No real hour passes: the wall-time check only says "it
//! did not actually sleep" (a minute is far above any scheduling hiccup).

use std::future::pending;
use std::time::Duration;

use rt::time::{timeout, Instant};

const HOUR: Duration = Duration::from_secs(3600);

fn one_hour_timeout(rt: rt::Runtime) {
    let wall = std::time::Instant::now();
    rt.block_on(async {
        let start = Instant::now();
        let r = timeout(HOUR, pending::<()>()).await;
        assert!(r.is_err(), "the timeout fired");
        let moved = Instant::now() - start;
        assert!(moved >= HOUR, "the paused clock moved an hour: {moved:?}");
        assert!(
            moved < HOUR + Duration::from_secs(1),
            "and no more: {moved:?}"
        );
    });
    assert!(
        wall.elapsed() < Duration::from_secs(60),
        "did not actually sleep"
    );
}

#[test]
fn one_hour_timeout_current_thread() {
    let rt = rt::Builder::new_current_thread()
        .start_paused(true)
        .build()
        .unwrap();
    one_hour_timeout(rt);
}

#[test]
fn one_hour_timeout_multi_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(4)
        .start_paused(true)
        .build()
        .unwrap();
    one_hour_timeout(rt);
}

#[test]
fn one_hour_timeout_in_a_spawned_task_multi_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .start_paused(true)
        .build()
        .unwrap();
    let wall = std::time::Instant::now();
    let moved = rt
        .block_on(rt.spawn(async {
            let start = Instant::now();
            assert!(timeout(HOUR, pending::<()>()).await.is_err());
            Instant::now() - start
        }))
        .unwrap();
    assert!(moved >= HOUR, "{moved:?}");
    assert!(
        wall.elapsed() < Duration::from_secs(60),
        "did not actually sleep"
    );
}

#[test]
fn pause_inside_a_running_runtime_then_resume() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        rt::time::pause();
        let start = Instant::now();
        rt::time::sleep(HOUR).await;
        assert!(Instant::now() - start >= HOUR);
        rt::time::resume();
        // Running again, from where it stood: never backwards.
        let after = Instant::now();
        assert!(after - start >= HOUR);
        rt::time::sleep(Duration::from_millis(1)).await;
        assert!(Instant::now() > after);
    });
}
