//! Every worker reports busy time once the runtime is dropped, including one that ran its loop
//! without parking before the shutdown (its busy period is counted when its loop ends).

use std::time::Duration;

#[test]
fn every_worker_reports_busy_time_after_drop() {
    for _ in 0..20 {
        let rt = rt::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let m = rt.metrics();
        rt.block_on(async {
            for _ in 0..5 {
                rt::spawn(rt::task::yield_now()).await.unwrap();
            }
        });
        drop(rt);
        for w in 0..m.num_workers() {
            assert!(
                m.worker_total_busy_duration(w) > Duration::ZERO,
                "worker {w} reports no busy time"
            );
        }
    }
}
