//! Shared helpers for the rt-vs-tokio benchmarks.

use std::time::{Duration, Instant};

/// Runs `rt` and `tokio` alternately for `rounds` rounds (who goes first swaps every round) and
/// prints the median time of each side and the median of the per-round rt/tokio ratios.
///
/// Criterion measures one side and then the other, seconds apart; on a machine whose speed
/// drifts (this one has phases in which everything runs up to 1.7x slower), that ratio depends
/// on which phase each side landed in. Adjacent runs share their phase, so the median of the
/// per-round ratios is the steadier estimate; the benchmarks print both.
pub fn paired(name: &str, rounds: usize, mut rt: impl FnMut(), mut tokio: impl FnMut()) {
    fn time(f: &mut dyn FnMut()) -> Duration {
        let start = Instant::now();
        f();
        start.elapsed()
    }
    let (mut rts, mut tokios, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (r, t) = if round % 2 == 0 {
            let r = time(&mut rt);
            (r, time(&mut tokio))
        } else {
            let t = time(&mut tokio);
            (time(&mut rt), t)
        };
        rts.push(r);
        tokios.push(t);
        ratios.push(r.as_secs_f64() / t.as_secs_f64());
    }
    rts.sort();
    tokios.sort();
    ratios.sort_by(f64::total_cmp);
    let mid = rounds / 2;
    println!(
        "{name} paired ({rounds} alternating rounds): rt median {:.3?}, tokio median {:.3?}, \
         median of per-round rt/tokio = {:.2} (range {:.2}-{:.2})",
        rts[mid],
        tokios[mid],
        ratios[mid],
        ratios[0],
        ratios[rounds - 1]
    );
}
