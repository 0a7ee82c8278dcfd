//! Mutex fairness: an unlock frees the lock for a running task (barging) while the head waiter is
//! young, hands it straight to the head once the head has waited the bound, and a zero bound is a
//! strictly FIFO lock.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::mutex::Mutex;
use std::time::{Duration, Instant};

#[test]
fn an_unlock_before_the_bound_frees_the_lock_and_wakes_the_head() {
    let m = Mutex::with_fairness_bound(Vec::new(), Some(Duration::from_secs(3600)));
    let first = m.try_lock().unwrap();
    let mut a = Task::new(async { m.lock().await.push("a") });
    let mut b = Task::new(async { m.lock().await.push("b") });
    a.pending();
    b.pending();
    drop(first);
    // Only the head is woken, and the lock is free: a running task barges in ahead of it.
    assert!(a.woken());
    assert!(!b.woken());
    let mut barger = m
        .try_lock()
        .expect("a free lock is taken even while others wait");
    barger.push("barger");
    // The woken head loses the race, stays queued (still the head) and is woken again.
    a.pending();
    drop(barger);
    a.ready();
    assert!(b.woken());
    b.ready();
    assert_eq!(*block_on(m.lock()), ["barger", "a", "b"]);
}

#[test]
fn an_unlock_after_the_bound_hands_the_lock_to_the_head() {
    let bound = Duration::from_micros(50);
    let m = Mutex::with_fairness_bound(0, Some(bound));
    let first = m.try_lock().unwrap();
    let mut a = Task::new(async { *m.lock().await += 1 });
    a.pending();
    // Let the head's wait pass the bound (a deadline, not an ordering of events).
    let queued = Instant::now();
    while queued.elapsed() < bound * 2 {
        std::hint::spin_loop();
    }
    drop(first);
    // Handed off: the lock never became free, so nobody can barge in.
    assert!(m.try_lock().is_err());
    assert!(a.woken());
    a.ready();
    assert_eq!(*m.try_lock().unwrap(), 1);
}

#[test]
fn a_zero_bound_hands_the_lock_to_waiters_in_fifo_order() {
    let m = Mutex::with_fairness_bound(Vec::new(), Some(Duration::ZERO));
    let first = m.try_lock().unwrap();
    let mut tasks: Vec<_> = (0..4)
        .map(|i| {
            let m = &m;
            Task::new(async move { m.lock().await.push(i) })
        })
        .collect();
    for t in &mut tasks {
        t.pending();
    }
    drop(first);
    // The lock went straight to the first waiter: the unlocking side cannot barge back in.
    assert!(m.try_lock().is_err());
    // Poll the waiters newest first: each still waits until every older one has had the lock.
    let mut done = [false; 4];
    for turn in 0..4 {
        for i in (0..4).rev() {
            if done[i] {
                continue;
            }
            let ready = tasks[i].poll().is_ready();
            assert_eq!(ready, i == turn, "turn {turn}, waiter {i}");
            done[i] = ready;
        }
    }
    assert_eq!(*block_on(m.lock()), vec![0, 1, 2, 3]);
}

#[test]
fn a_woken_head_cancelled_before_it_relocks_wakes_the_next_waiter() {
    let m = Mutex::with_fairness_bound(0, None);
    let first = m.try_lock().unwrap();
    let mut a = Task::new(m.lock());
    let mut b = Task::new(async { *m.lock().await += 1 });
    a.pending();
    b.pending();
    drop(first);
    assert!(a.woken());
    assert!(!b.woken());
    drop(a);
    assert!(b.woken());
    b.ready();
    assert_eq!(*m.try_lock().unwrap(), 1);
}
