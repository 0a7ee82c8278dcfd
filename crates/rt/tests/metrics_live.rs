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

/// On a current-thread runtime at rest (nothing runs between the reads), every accessor reads
/// the value a snapshot taken at the same moment holds, and the counters moved with the work.
#[test]
fn each_accessor_reads_its_own_live_value() {
    let rt = support::current_thread();
    let m = rt.metrics();
    let before = m.snapshot();
    rt.block_on(async {
        let tasks: Vec<_> = (0..4)
            .map(|_| rt::spawn(async { rt::task::yield_now().await }))
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        rt::spawn_blocking(|| ()).await.unwrap();
        rt::time::sleep(std::time::Duration::from_millis(1)).await;
    });
    let s = m.snapshot();
    assert_eq!(m.num_workers(), s.num_workers());
    assert_eq!(m.num_alive_tasks(), s.num_alive_tasks());
    assert_eq!(m.spawned_tasks_count(), s.spawned_tasks_count());
    assert_eq!(m.spawned_tasks_count(), before.spawned_tasks_count() + 4);
    assert_eq!(m.remote_schedule_count(), s.remote_schedule_count());
    assert_eq!(m.global_queue_depth(), s.global_queue_depth());
    assert_eq!(m.stall_count(), s.stall_count());
    assert_eq!(m.num_blocking_threads(), s.num_blocking_threads());
    assert!(m.num_blocking_threads() >= 1);
    assert_eq!(m.num_idle_blocking_threads(), s.num_idle_blocking_threads());
    assert_eq!(m.blocking_queue_depth(), s.blocking_queue_depth());
    assert_eq!(m.io_driver_ready_count(), s.io_driver_ready_count());
    assert_eq!(m.total(), s.total());
    assert_eq!(m.worker_poll_count(0), s.worker_poll_count(0));
    assert!(m.worker_poll_count(0) >= before.worker_poll_count(0) + 8);
    assert_eq!(m.worker_park_count(0), s.worker_park_count(0));
    assert!(m.worker_park_count(0) > before.worker_park_count(0));
    assert_eq!(m.worker_unpark_count(0), s.worker_unpark_count(0));
    assert_eq!(m.worker_park_unpark_count(0), s.worker_park_unpark_count(0));
    assert_eq!(
        m.worker_total_busy_duration(0),
        s.worker_total_busy_duration(0)
    );
    assert_eq!(
        m.worker_local_schedule_count(0),
        s.worker_local_schedule_count(0)
    );
    assert_eq!(m.worker_steal_count(0), s.worker_steal_count(0));
    assert_eq!(m.worker_steal_operations(0), s.worker_steal_operations(0));
    assert_eq!(m.worker_local_queue_depth(0), s.worker_local_queue_depth(0));
    assert_eq!(m.worker_lifo_hit_count(0), s.worker_lifo_hit_count(0));
    assert_eq!(m.worker_overflow_count(0), 0);
    assert_eq!(m.worker_os_yield_count(0), s.worker_os_yield_count(0));
    assert_eq!(
        m.worker_reactor_turn_count(0),
        s.worker_reactor_turn_count(0)
    );
    assert_eq!(
        m.worker_reactor_event_count(0),
        s.worker_reactor_event_count(0)
    );
    assert!(!m.poll_time_histogram_enabled());
    assert_eq!(m.poll_time_histogram_bucket_count(0, 0), 0);
    assert_eq!(m.schedule_latency_histogram_bucket_count(0, 0), 0);
}

/// On a multi-thread runtime with the histograms on, the per-worker counters and histogram
/// buckets a handle taken before the work reads afterwards are the snapshot's (the tasks are
/// done, so polls and buckets no longer move), and they moved.
#[test]
fn per_worker_accessors_read_each_workers_counters() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .poll_time_histogram(true)
        .build()
        .unwrap();
    let m = rt.metrics();
    assert!(m.poll_time_histogram_enabled());
    rt.block_on(async {
        let tasks: Vec<_> = (0..8)
            .map(|_| rt::spawn(async { rt::task::yield_now().await }))
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    });
    let s = m.snapshot();
    let mut polls = 0;
    for w in 0..m.num_workers() {
        assert_eq!(m.worker_poll_count(w), s.worker_poll_count(w), "worker {w}");
        polls += m.worker_poll_count(w);
        for b in 0..m.poll_time_histogram_num_buckets() {
            assert_eq!(
                m.poll_time_histogram_bucket_count(w, b),
                s.poll_time_histogram_bucket_count(w, b),
                "worker {w}, bucket {b}"
            );
            assert_eq!(
                m.schedule_latency_histogram_bucket_count(w, b),
                s.schedule_latency_histogram_bucket_count(w, b),
                "worker {w}, bucket {b}"
            );
        }
    }
    assert!(polls >= 16, "{polls}");
    let timed: u64 = (0..m.num_workers())
        .flat_map(|w| (0..m.poll_time_histogram_num_buckets()).map(move |b| (w, b)))
        .map(|(w, b)| m.poll_time_histogram_bucket_count(w, b))
        .sum();
    assert!(timed >= 16, "the tasks' polls are timed: {timed}");
    assert_eq!(m.spawned_tasks_count(), 8);
    assert_eq!(m.num_alive_tasks(), 0);
}

/// A worker index out of range panics at the caller, naming the number of workers.
#[test]
fn a_worker_index_out_of_range_panics_at_the_caller() {
    let rt = support::multi_thread(2);
    let m = rt.metrics();
    let line = line!() + 2;
    let (file, at, msg) = support::panic_of(|| {
        m.worker_poll_count(2);
    });
    assert_eq!((file.as_str(), at), (file!(), line));
    assert_eq!(
        msg,
        "worker index 2 out of range: the runtime has 2 workers"
    );
}
