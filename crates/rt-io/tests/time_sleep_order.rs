//! Sleeps complete in deadline order, whatever order they were created and first polled in.

mod time_support;

use rt::time::Instant;
use std::time::Duration;

use rt::time::sleep_until;

/// Deadlines 200 µs apart (many wheel ticks), created in a scrambled order.
#[test]
fn sleeps_complete_in_deadline_order() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let base = Instant::now() + Duration::from_millis(1);
        let order: Vec<u64> = (0..40).map(|i| (i * 17) % 40).collect();
        let sleeps = order
            .iter()
            .map(|&k| sleep_until(base + Duration::from_micros(200 * k)))
            .collect();
        let rounds = time_support::completion_rounds(sleeps).await;
        for (a, &ka) in order.iter().enumerate() {
            for (b, &kb) in order.iter().enumerate() {
                if ka < kb {
                    assert!(
                        rounds[a] <= rounds[b],
                        "deadline #{kb} was seen complete before the earlier #{ka}"
                    );
                }
            }
        }
    });
}

/// Across levels of the wheel: a long sleep created first does not complete before short ones.
#[test]
fn short_sleeps_created_after_a_long_one_complete_first() {
    let rt = time_support::runtime();
    rt.block_on(async {
        let now = Instant::now();
        let ms = [40u64, 20, 5, 1];
        let sleeps = ms
            .iter()
            .map(|&m| sleep_until(now + Duration::from_millis(m)))
            .collect();
        let rounds = time_support::completion_rounds(sleeps).await;
        for w in rounds.windows(2) {
            assert!(w[1] <= w[0], "rounds {rounds:?}: shorter sleeps first");
        }
    });
}
