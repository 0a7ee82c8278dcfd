//! Metrics: the poll-time and schedule-latency histograms fill only when enabled, one entry per
//! poll, in the bucket of the measured time.

use std::time::{Duration, Instant};

fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

const SPIN: Duration = Duration::from_millis(3);

fn workload(rt: &rt::Runtime) {
    rt.block_on(async {
        let hs: Vec<_> = (0..20)
            .map(|_| {
                rt::spawn(async {
                    for _ in 0..5 {
                        rt::task::yield_now().await;
                    }
                })
            })
            .collect();
        for h in hs {
            h.await.unwrap();
        }
        // One long poll.
        rt::spawn(async {
            let start = Instant::now();
            while start.elapsed() < SPIN {
                std::hint::spin_loop();
            }
        })
        .await
        .unwrap();
    });
}

fn sum(m: &rt::metrics::Metrics, f: impl Fn(usize, usize) -> u64) -> u64 {
    (0..m.num_workers())
        .flat_map(|w| (0..m.poll_time_histogram_num_buckets()).map(move |b| (w, b)))
        .map(|(w, b)| f(w, b))
        .sum()
}

#[test]
fn histograms_are_off_by_default() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    workload(&rt);
    let m = rt.metrics().snapshot();
    assert!(!m.poll_time_histogram_enabled());
    assert!(m
        .workers()
        .iter()
        .all(|w| w.poll_time_histogram().is_none()));
    assert_eq!(sum(&m, |w, b| m.poll_time_histogram_bucket_count(w, b)), 0);
    assert_eq!(
        sum(&m, |w, b| m.schedule_latency_histogram_bucket_count(w, b)),
        0
    );
}

#[test]
fn histograms_fill_when_enabled() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_metrics_poll_time_histogram()
        .build()
        .unwrap();
    workload(&rt);
    // Quiescent once every worker parked again: each poll is then in its histogram.
    eventually("the workers to settle", || {
        let m = rt.metrics().snapshot();
        m.num_alive_tasks() == 0
            && (0..2).all(|w| {
                let polls = m.worker_poll_count(w);
                let h: u64 = (0..m.poll_time_histogram_num_buckets())
                    .map(|b| m.poll_time_histogram_bucket_count(w, b))
                    .sum();
                h == polls
            })
    });
    let m = rt.metrics().snapshot();
    assert!(m.poll_time_histogram_enabled());
    assert_eq!(m.poll_time_histogram_num_buckets(), 24);
    assert_eq!(
        m.poll_time_histogram_bucket_range(0),
        Duration::ZERO..Duration::from_nanos(1024)
    );
    let polls: u64 = (0..2).map(|w| m.worker_poll_count(w)).sum();
    assert!(polls > 20 * 6);
    // The 3 ms poll lands in a bucket that reaches past 3 ms.
    let long: u64 = (0..2)
        .flat_map(|w| (0..24).map(move |b| (w, b)))
        .filter(|&(_, b)| m.poll_time_histogram_bucket_range(b).end > SPIN)
        .map(|(w, b)| m.poll_time_histogram_bucket_count(w, b))
        .sum();
    assert!(long >= 1, "no poll of 3 ms or more recorded");
    // Every poll followed a spawn or a wake, each timed once.
    let latency = sum(&m, |w, b| m.schedule_latency_histogram_bucket_count(w, b));
    assert!(latency > 20 * 6, "{latency}");
    assert!(latency <= polls, "{latency} > {polls}");
}

#[test]
fn builder_flag_turns_them_on() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .poll_time_histogram(true)
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {})).unwrap();
    assert!(rt.metrics().poll_time_histogram_enabled());
    // The poll is recorded when it returns, just after the task's output reached us.
    eventually("the poll to be recorded", || {
        rt.metrics().snapshot().workers()[0]
            .poll_time_histogram()
            .unwrap()
            .total()
            >= 1
    });
}
