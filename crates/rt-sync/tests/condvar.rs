//! Condvar: no lost notification between the condition check and the wait, `notify_one` FIFO and
//! not stored, `notify_all` over 100 waiters, `wait_while`, cancellation, threads, and
//! `wait_timeout` (on the runtime's timer, through `rt_core::timer`).

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::condvar::Condvar;
use rt_sync::mutex::Mutex;
use std::sync::Arc;

#[test]
fn a_notify_sent_right_after_the_wait_released_the_mutex_is_not_lost() {
    let (m, cv) = (Mutex::new(false), Condvar::new());
    let mut waiter = Task::new(async {
        let g = m.lock().await;
        assert!(!*g);
        // `wait` registers before it unlocks: a notifier that locks right after sees a waiter.
        let g = cv.wait(g).await;
        *g
    });
    waiter.pending();
    let mut g = m.try_lock().expect("wait released the mutex");
    *g = true;
    drop(g);
    cv.notify_one();
    assert!(waiter.woken());
    assert!(waiter.ready());
}

#[test]
fn notify_one_with_no_waiter_is_not_stored() {
    let (m, cv) = (Mutex::new(()), Condvar::new());
    cv.notify_one();
    let mut waiter = Task::new(async { drop(cv.wait(m.lock().await).await) });
    waiter.pending();
    assert!(!waiter.woken());
}

#[test]
fn notify_one_wakes_the_longest_waiting_first() {
    let (m, cv) = (Mutex::new(Vec::new()), Condvar::new());
    let mut tasks: Vec<_> = (0..3)
        .map(|i| {
            let (m, cv) = (&m, &cv);
            Task::new(async move { cv.wait(m.lock().await).await.push(i) })
        })
        .collect();
    for t in &mut tasks {
        t.pending();
    }
    for turn in 0..3 {
        cv.notify_one();
        for (i, t) in tasks.iter_mut().enumerate().skip(turn) {
            assert_eq!(t.poll().is_ready(), i == turn, "turn {turn}, waiter {i}");
        }
    }
    assert_eq!(*m.try_lock().unwrap(), vec![0, 1, 2]);
}

#[test]
fn notify_all_wakes_a_hundred_waiters() {
    let (m, cv) = (Mutex::new((false, 0)), Condvar::new());
    let mut tasks: Vec<_> = (0..100)
        .map(|_| {
            let (m, cv) = (&m, &cv);
            Task::new(async move {
                let mut g = cv.wait_while(m.lock().await, |s| !s.0).await;
                g.1 += 1;
            })
        })
        .collect();
    for t in &mut tasks {
        t.pending();
    }
    m.try_lock().unwrap().0 = true;
    cv.notify_all();
    // Each task finishes once the mutex comes to it; poll until all are done.
    let mut done = vec![false; tasks.len()];
    while done.iter().any(|d| !d) {
        for (t, d) in tasks.iter_mut().zip(&mut done) {
            if !*d {
                *d = t.poll().is_ready();
            }
        }
    }
    assert_eq!(m.try_lock().unwrap().1, 100);
}

#[test]
fn wait_while_rechecks_the_condition() {
    let (m, cv) = (Mutex::new(0), Condvar::new());
    let mut waiter = Task::new(async { *cv.wait_while(m.lock().await, |n| *n < 2).await });
    waiter.pending();
    *m.try_lock().unwrap() = 1;
    cv.notify_all();
    // Woken, but the condition still holds: it waits again.
    waiter.pending();
    *m.try_lock().unwrap() = 2;
    cv.notify_all();
    assert_eq!(waiter.ready(), 2);
}

#[test]
fn a_notified_waiter_cancelled_before_relocking_passes_the_notification_on() {
    let (m, cv) = (Mutex::new(()), Condvar::new());
    let mut a = Task::new(async { drop(cv.wait(m.lock().await).await) });
    let mut b = Task::new(async { drop(cv.wait(m.lock().await).await) });
    a.pending();
    b.pending();
    cv.notify_one();
    drop(a);
    assert!(b.woken());
    b.ready();
}

#[test]
fn producer_and_consumer_threads() {
    let state = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
    let s2 = state.clone();
    let consumer = std::thread::spawn(move || {
        block_on(async {
            let (m, cv) = &*s2;
            let mut got = 0;
            while got < 1_000 {
                let mut g = cv
                    .wait_while(m.lock().await, |q: &mut Vec<u32>| q.is_empty())
                    .await;
                got += g.drain(..).count();
            }
            got
        })
    });
    for i in 0..1_000 {
        block_on(async { state.0.lock().await.push(i) });
        state.1.notify_one();
    }
    assert_eq!(consumer.join().unwrap(), 1_000);
}

/// Runs `f` inside a runtime whose reactor has a thread of its own (the timer `wait_timeout`
/// uses, through `rt_core::timer`, fires without a worker driving it).
fn with_timer<R>(f: impl FnOnce() -> R) -> R {
    let rt = rt::Builder::new_current_thread()
        .reactor_thread(true)
        .build()
        .expect("build a runtime");
    let _entered = rt.enter();
    f()
}

#[test]
fn wait_timeout_without_a_notification_times_out_and_relocks() {
    let (m, cv) = (Mutex::new(0), Condvar::new());
    with_timer(|| {
        block_on(async {
            let (g, r) = cv
                .wait_timeout(m.lock().await, std::time::Duration::from_millis(2))
                .await;
            assert!(r.timed_out());
            assert!(m.try_lock().is_err(), "the guard came back locked");
            drop(g);
        })
    });
    // The timed-out waiter left the queue: a later notify_one is not swallowed by it.
    let mut waiter = Task::new(async { drop(cv.wait(m.lock().await).await) });
    waiter.pending();
    cv.notify_one();
    waiter.ready();
}

#[test]
fn wait_timeout_notified_in_time_does_not_time_out() {
    let (m, cv) = (Mutex::new(false), Condvar::new());
    with_timer(|| {
        let mut waiter = Task::new(async {
            let (g, r) = cv
                .wait_timeout(m.lock().await, std::time::Duration::from_secs(3600))
                .await;
            (*g, r.timed_out())
        });
        waiter.pending();
        *m.try_lock().unwrap() = true;
        cv.notify_one();
        assert!(waiter.woken());
        assert_eq!(waiter.ready(), (true, false));
    });
}

#[test]
fn a_hundred_tasks_on_a_runtime_wait_and_are_woken_by_notify_all() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let state = Arc::new((Mutex::new((false, 0u32)), Condvar::new()));
    let woke = rt.block_on(async {
        let hs: Vec<_> = (0..100)
            .map(|_| {
                let state = state.clone();
                rt::spawn(async move {
                    let (m, cv) = &*state;
                    let mut g = cv.wait_while(m.lock().await, |s| !s.0).await;
                    g.1 += 1;
                })
            })
            .collect();
        state.0.lock().await.0 = true;
        state.1.notify_all();
        for h in hs {
            h.await.unwrap();
        }
        state.0.lock().await.1
    });
    assert_eq!(woke, 100);
}
