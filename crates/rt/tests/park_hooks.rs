//! `Builder::on_thread_park` / `on_thread_unpark` on both flavours (called around every park,
//! inside the runtime's context; a task the park hook spawns runs instead of the park), and
//! `RuntimeMetrics::worker_park_unpark_count` (odd while the worker is parked, even while it
//! runs).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Waits (yielding, no sleep) until `f` holds; the deadline is a hang guard only.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

/// Counts the hooks' calls, and whether each ran inside the runtime's context.
#[derive(Default)]
struct Calls {
    parks: AtomicUsize,
    unparks: AtomicUsize,
    outside_context: AtomicUsize,
}

fn with_hooks(builder: &mut rt::Builder, calls: &Arc<Calls>) -> rt::Runtime {
    let (p, u) = (calls.clone(), calls.clone());
    builder
        .on_thread_park(move || {
            if rt::runtime::Handle::try_current().is_err() {
                p.outside_context.fetch_add(1, Ordering::SeqCst);
            }
            p.parks.fetch_add(1, Ordering::SeqCst);
        })
        .on_thread_unpark(move || {
            if rt::runtime::Handle::try_current().is_err() {
                u.outside_context.fetch_add(1, Ordering::SeqCst);
            }
            u.unparks.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap()
}

#[test]
fn multi_thread_hooks_bracket_every_park_and_the_count_is_odd_while_parked() {
    let calls = Arc::new(Calls::default());
    let rt = with_hooks(rt::Builder::new_multi_thread().worker_threads(1), &calls);
    // With nothing to do, the worker parks: its count goes odd after the park hook ran.
    eventually("the worker to park", || {
        rt.metrics().worker_park_unpark_count(0) % 2 == 1
    });
    let parks = calls.parks.load(Ordering::SeqCst);
    assert!(parks >= 1);
    // Parked now: every park but this one has been followed by its unpark hook.
    assert_eq!(calls.unparks.load(Ordering::SeqCst), parks - 1);

    // A spawn wakes it: the unpark hook runs before the task does.
    let c = calls.clone();
    let unparks_seen = rt
        .block_on(rt.spawn(async move { c.unparks.load(Ordering::SeqCst) }))
        .unwrap();
    assert!(unparks_seen >= parks);
    let count = rt.metrics().worker_park_unpark_count(0);
    assert!(count >= 2);
    let (p, u) = (
        calls.parks.load(Ordering::SeqCst),
        calls.unparks.load(Ordering::SeqCst),
    );
    assert!(p == u || p == u + 1, "parks {p}, unparks {u}");
    drop(rt);
    assert_eq!(
        calls.parks.load(Ordering::SeqCst),
        calls.unparks.load(Ordering::SeqCst),
        "a worker woken for shutdown runs its unpark hook"
    );
    assert_eq!(calls.outside_context.load(Ordering::SeqCst), 0);
}

#[test]
fn current_thread_hooks_bracket_the_block_on_threads_sleep() {
    let calls = Arc::new(Calls::default());
    let rt = with_hooks(&mut rt::Builder::new_current_thread(), &calls);
    let (tx, rx) = rt::sync::oneshot::channel();
    let metrics_rt = rt.handle().clone();
    // Sends once the `block_on` thread sleeps (its count is odd): the wake ends that sleep.
    let sender = std::thread::spawn(move || {
        eventually("the block_on thread to park", || {
            metrics_rt.metrics().worker_park_unpark_count(0) % 2 == 1
        });
        tx.send(5).unwrap();
    });
    assert_eq!(rt.block_on(rx).unwrap(), 5);
    sender.join().unwrap();
    let count = rt.metrics().worker_park_unpark_count(0);
    assert!(count >= 2 && count.is_multiple_of(2), "count {count}");
    assert!(calls.parks.load(Ordering::SeqCst) >= 1);
    assert_eq!(
        calls.parks.load(Ordering::SeqCst),
        calls.unparks.load(Ordering::SeqCst)
    );
    assert_eq!(calls.outside_context.load(Ordering::SeqCst), 0);
}

/// The park hook spawns a task the runtime then waits for: it must run instead of the park.
fn spawn_from_the_park_hook(builder: &mut rt::Builder) {
    let notify = Arc::new(rt::sync::Notify::new());
    let spawned = Arc::new(AtomicBool::new(false));
    let (n, s) = (notify.clone(), spawned.clone());
    let rt = builder
        .on_thread_park(move || {
            if !s.swap(true, Ordering::SeqCst) {
                let n = n.clone();
                rt::spawn(async move { n.notify_one() });
            }
        })
        .build()
        .unwrap();
    rt.block_on(async move { notify.notified().await });
    assert!(spawned.load(Ordering::SeqCst));
}

#[test]
fn a_task_spawned_by_the_park_hook_runs_on_the_current_thread_flavour() {
    spawn_from_the_park_hook(&mut rt::Builder::new_current_thread());
}

#[test]
fn a_task_spawned_by_the_park_hook_runs_on_the_multi_thread_flavour() {
    spawn_from_the_park_hook(rt::Builder::new_multi_thread().worker_threads(1));
}

/// A park hook that wakes the `block_on` future every time still lets timers fire: the
/// skipped sleep turns the driver without blocking (tokio's #8212).
#[test]
fn a_park_hook_that_wakes_block_on_does_not_stall_timers() {
    let notify = Arc::new(rt::sync::Notify::new());
    let n = notify.clone();
    let rt = rt::Builder::new_current_thread()
        .on_thread_park(move || n.notify_waiters())
        .build()
        .unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    rt.spawn(async move {
        rt::time::sleep(Duration::from_millis(1)).await;
        d.store(true, Ordering::SeqCst);
    });
    rt.block_on(rt::task::yield_now());
    // Each `block_on` parks once and is woken by the hook; the timer's turn must come.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the timer never fired");
        rt.block_on(notify.notified());
    }
}
