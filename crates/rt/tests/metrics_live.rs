//! `RuntimeMetrics` reads the live values at each accessor call (tokio's semantics): one taken
//! before the work it measures sees that work; a snapshot stays fixed.

mod support;

#[test]
fn accessors_read_the_values_at_each_call() {
    for (name, rt) in support::runtimes() {
        let m = rt.metrics();
        let before = m.snapshot();
        assert_eq!(m.num_alive_tasks(), 0, "{name}");
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        let task = rt.spawn(async move { rx.await.unwrap() });
        // Read through the handle taken before the spawn.
        assert_eq!(m.num_alive_tasks(), 1, "{name}");
        assert_eq!(m.spawned_tasks_count(), before.spawned_tasks_count() + 1);
        // The snapshot taken before is still what it was.
        assert_eq!(before.num_alive_tasks(), 0, "{name}");
        // A clone moved into a task reads the same runtime.
        let inside = m.clone();
        let seen = rt
            .block_on(rt.spawn(async move { inside.num_alive_tasks() }))
            .unwrap();
        assert_eq!(seen, 2, "{name}: the waiting task and the one reading");
        tx.send(()).unwrap();
        rt.block_on(task).unwrap();
        let polls = |s: &rt::metrics::Metrics| {
            (0..s.num_workers())
                .map(|w| s.worker_poll_count(w))
                .sum::<u64>()
        };
        assert!(polls(&m.snapshot()) > polls(&before), "{name}");
    }
}

/// The current-thread runtime counts its `block_on` thread's parks and busy time too.
#[test]
fn current_thread_counts_parks_and_busy_time() {
    let rt = support::current_thread();
    let m = rt.metrics();
    assert_eq!(m.worker_park_count(0), 0);
    rt.block_on(async {
        // Nothing else to run: the thread parks until the timer fires.
        rt::time::sleep(std::time::Duration::from_millis(1)).await;
    });
    assert!(m.worker_park_count(0) >= 1);
    assert_eq!(m.worker_park_count(0), m.worker_unpark_count(0));
    assert_eq!(m.worker_park_unpark_count(0), 2 * m.worker_park_count(0));
    assert!(m.worker_total_busy_duration(0) > std::time::Duration::ZERO);
}
