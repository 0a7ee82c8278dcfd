//! Barrier: everyone waits for the last arrival, one leader per generation, reuse, and a cancelled
//! waiter withdrawing its arrival.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::barrier::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn waiters_are_released_by_the_last_arrival() {
    let barrier = Barrier::new(3);
    let mut a = Task::new(barrier.wait());
    let mut b = Task::new(barrier.wait());
    a.pending();
    b.pending();
    let c = Task::new(barrier.wait()).ready();
    assert!(c.is_leader());
    assert!(a.woken() && b.woken());
    assert!(!a.ready().is_leader());
    assert!(!b.ready().is_leader());
}

#[test]
fn zero_behaves_as_one() {
    let barrier = Barrier::new(0);
    assert!(block_on(barrier.wait()).is_leader());
    assert!(block_on(barrier.wait()).is_leader());
}

#[test]
fn a_cancelled_waiter_withdraws_its_arrival() {
    let barrier = Barrier::new(2);
    let mut a = Task::new(barrier.wait());
    a.pending();
    drop(a);
    let mut b = Task::new(barrier.wait());
    b.pending();
    assert!(Task::new(barrier.wait()).ready().is_leader());
    assert!(!b.ready().is_leader());
}

#[test]
fn threads_over_many_generations_have_one_leader_each() {
    const N: usize = 4;
    const ROUNDS: usize = 200;
    let barrier = Arc::new(Barrier::new(N));
    let leaders = Arc::new(AtomicUsize::new(0));
    let passed = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..N)
        .map(|_| {
            let (barrier, leaders, passed) = (barrier.clone(), leaders.clone(), passed.clone());
            std::thread::spawn(move || {
                for round in 0..ROUNDS {
                    passed.fetch_add(1, Ordering::SeqCst);
                    if block_on(barrier.wait()).is_leader() {
                        leaders.fetch_add(1, Ordering::SeqCst);
                    }
                    // Nobody leaves a round before all N of it arrived.
                    assert!(passed.load(Ordering::SeqCst) >= (round + 1) * N);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(leaders.load(Ordering::SeqCst), ROUNDS);
}
