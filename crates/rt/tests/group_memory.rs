//! A `TaskGroup` that has run 1,000,000 short tasks without being joined holds only their
//! values: no task of it is alive any more.

use rt::task::TaskGroup;

#[test]
fn a_million_finished_tasks_leave_only_values() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let group = TaskGroup::<u32, ()>::new();
        for i in 0..1_000_000u32 {
            group.spawn(async move { Ok(i) });
        }
        // Wait (without sleeping) until every task has ended.
        while rt::Handle::current().metrics().num_alive_tasks() > 0 {
            rt::task::yield_now().await;
        }
        let values = group.join().await.unwrap();
        assert_eq!(values.len(), 1_000_000);
        assert!(values.iter().enumerate().all(|(i, &v)| v == i as u32));
    });
}
