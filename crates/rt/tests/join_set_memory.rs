//! A `JoinSet` that has run 1,000,000 short tasks without being drained holds only their
//! outputs: every task has ended (no live task cell) while all the outputs wait in the set.

use rt::task::JoinSet;

#[test]
fn a_million_finished_tasks_leave_only_outputs() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let mut set = JoinSet::new();
        let mut last = None;
        for i in 0..1_000_000u32 {
            last = Some(set.spawn(async move { i }));
        }
        // Wait (without sleeping) until the last task has ended.
        let last = last.unwrap();
        while !last.is_finished() {
            rt::task::yield_now().await;
        }
        drop(last);
        // Tasks end out of spawn order: wait (without sleeping) for the others too.
        while rt::Handle::current().metrics().num_alive_tasks() > 0 {
            rt::task::yield_now().await;
        }
        // No task of the set is alive, and the set holds no handle that would keep a cell.
        assert_eq!(set.len(), 1_000_000);
        let mut sum = 0u64;
        while let Some(v) = set.try_join_next() {
            sum += u64::from(v.unwrap());
        }
        assert_eq!(sum, 999_999 * 1_000_000 / 2);
    });
}
