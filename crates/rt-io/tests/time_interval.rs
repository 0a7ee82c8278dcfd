//! `Interval` with tokio's semantics: the first tick at the start, then one per period, and each
//! `MissedTickBehavior` after the task stalls (a blocking `std::thread::sleep` inside the task)
//! through several ticks.
//!
//! Only schedule facts are asserted: the instants `tick` returns are computed from the start, the
//! period and, for `Delay` and `Skip`, the moment the late tick was taken, which the test brackets
//! with `Instant::now()` before and after the call.

mod time_support;

use rt::time::Instant;
use std::time::Duration;

use rt::time::{interval, interval_at, MissedTickBehavior};

const P: Duration = Duration::from_millis(40);

/// Stall long enough to miss ticks 2 and 3 by far more than the 5 ms tolerance.
const STALL: Duration = Duration::from_millis(140);

/// Ticks 0 and 1 on time, a stall, then the late tick; returns the interval's start, the instants
/// of ticks 0.. as returned, and the moments bracketing the late tick's call.
fn run(behavior: MissedTickBehavior, extra: usize) -> (Instant, Vec<Instant>, Instant, Instant) {
    let rt = time_support::runtime();
    rt.block_on(async {
        let start = Instant::now() + Duration::from_millis(5);
        let mut iv = interval_at(start, P);
        iv.set_missed_tick_behavior(behavior);
        assert_eq!(iv.missed_tick_behavior(), behavior);
        let mut ticks = vec![iv.tick().await, iv.tick().await];
        std::thread::sleep(STALL);
        let before = Instant::now();
        ticks.push(iv.tick().await);
        let after = Instant::now();
        for _ in 0..extra {
            ticks.push(iv.tick().await);
        }
        for t in &ticks {
            assert!(Instant::now() >= *t);
        }
        (start, ticks, before, after)
    })
}

#[test]
fn default_is_burst_and_first_tick_is_immediate() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let before = Instant::now();
        let mut iv = interval(Duration::from_millis(2));
        assert_eq!(iv.missed_tick_behavior(), MissedTickBehavior::Burst);
        assert_eq!(iv.period(), Duration::from_millis(2));
        let first = iv.tick().await;
        assert!(first >= before && first <= Instant::now());
        let second = iv.tick().await;
        assert_eq!(second, first + Duration::from_millis(2));
        assert!(Instant::now() >= second);
    });
}

#[test]
fn burst_catches_up_on_the_original_schedule() {
    let (start, ticks, _, _) = run(MissedTickBehavior::Burst, 3);
    let expected: Vec<Instant> = (0..ticks.len() as u32).map(|k| start + P * k).collect();
    assert_eq!(
        ticks, expected,
        "every tick on the original schedule, none skipped"
    );
}

#[test]
fn delay_restarts_the_schedule_from_the_late_tick() {
    let (start, ticks, before, after) = run(MissedTickBehavior::Delay, 2);
    assert_eq!(ticks[0], start);
    // Tick 2 is late whatever tick 1 was: its deadline is a period after tick 1 was taken, and
    // the stall is longer than that plus the 5 ms tolerance.
    let restart = ticks[3] - P;
    assert!(
        restart >= before && restart <= after,
        "the next tick is a period after the late one was taken"
    );
    for w in ticks.windows(2) {
        assert!(w[1] >= w[0] + P, "ticks at least a period apart");
    }
}

#[test]
fn skip_drops_missed_ticks_and_keeps_the_phase() {
    let (start, ticks, before, after) = run(MissedTickBehavior::Skip, 2);
    for t in &ticks {
        let off = (*t - start).as_nanos();
        assert_eq!(off % P.as_nanos(), 0, "every tick on the original grid");
    }
    // Tick 2 was taken after the stall, past start + 180 ms: the grid points up to start + 160 ms
    // (ticks 3 and 4) are skipped.
    assert!(
        ticks[3] > before,
        "the next tick is in the future of the late one"
    );
    assert!(ticks[3] <= after + P, "and at most a period later");
    assert!(ticks[3] >= start + P * 5, "missed ticks were skipped");
    assert!(ticks[4] > ticks[3]);
}

#[test]
fn reset_restarts_one_period_from_now() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let mut iv = interval(Duration::from_millis(3));
        iv.tick().await;
        let before = Instant::now();
        iv.reset();
        let next = iv.tick().await;
        assert!(next >= before + Duration::from_millis(3));
        assert!(Instant::now() >= next);
        iv.reset_immediately();
        let now = iv.tick().await;
        assert!(now >= next);
        let at = Instant::now() + Duration::from_millis(1);
        iv.reset_at(at);
        assert_eq!(iv.tick().await, at);
        assert_eq!(iv.tick().await, at + Duration::from_millis(3));
        let before = Instant::now();
        iv.reset_after(Duration::from_millis(5));
        let next = iv.tick().await;
        assert!(next >= before + Duration::from_millis(5));
        assert_eq!(iv.tick().await, next + Duration::from_millis(3));
    });
}

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn zero_period_panics() {
    let rt = time_support::runtime();
    let _g = rt.enter();
    let _ = interval(Duration::ZERO);
}
