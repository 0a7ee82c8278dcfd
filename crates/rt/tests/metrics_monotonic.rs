//! Metrics: every counter only grows, in snapshots taken while tasks run.

use rt::metrics::WorkerMetrics;

fn counters(w: &WorkerMetrics) -> [u64; 11] {
    [
        w.polls(),
        w.local_schedules(),
        w.remote_schedules(),
        w.steals(),
        w.steal_operations(),
        w.parks(),
        w.unparks(),
        w.lifo_hits(),
        w.spawns(),
        w.busy().as_nanos() as u64,
        w.reactor_turns(),
    ]
}

#[test]
fn counters_never_go_back() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .poll_time_histogram(true)
        .build()
        .unwrap();
    let load = rt.spawn(async {
        for _ in 0..200 {
            let hs: Vec<_> = (0..20)
                .map(|_| rt::spawn(async { rt::task::yield_now().await }))
                .collect();
            for h in hs {
                h.await.unwrap();
            }
        }
    });
    let mut prev = rt.metrics().snapshot();
    let mut snapshots = 0;
    while !load.is_finished() || snapshots < 10 {
        let m = rt.metrics().snapshot();
        assert!(m.spawned_tasks_count() >= prev.spawned_tasks_count());
        assert!(m.remote_schedule_count() >= prev.remote_schedule_count());
        for (a, b) in prev.workers().iter().zip(m.workers()) {
            for (x, y) in counters(a).iter().zip(counters(b).iter()) {
                assert!(y >= x, "a counter went back: {a:?} then {b:?}");
            }
            let (ha, hb) = (
                a.poll_time_histogram().unwrap(),
                b.poll_time_histogram().unwrap(),
            );
            assert!(ha.counts().iter().zip(hb.counts()).all(|(x, y)| y >= x));
        }
        prev = m;
        snapshots += 1;
    }
    rt.block_on(load).unwrap();
    assert!(rt.metrics().spawned_tasks_count() >= 4001);
}
