//! Mutex: cancellation at every await point, no poisoning on panic,
//! mapped and owned guards, the cooperative budget, and threads in contention.
//! The fairness rules (barging, hand-off after the bound, strict FIFO with a zero bound) are in
//! `mutex_fairness.rs`.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::mutex::{Mutex, MutexGuard};
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

#[test]
fn lock_try_lock_get_mut_into_inner() {
    let mut m = Mutex::new(1);
    *block_on(m.lock()) += 1;
    {
        let g = m.try_lock().unwrap();
        assert!(m.try_lock().is_err());
        assert_eq!(*g, 2);
    }
    *m.get_mut() += 1;
    assert_eq!(m.into_inner(), 3);
}

#[test]
fn a_waiter_handed_the_lock_and_dropped_passes_it_on() {
    let m = Mutex::new(0);
    let g = m.try_lock().unwrap();
    let mut a = Task::new(m.lock());
    let mut b = Task::new(m.lock());
    a.pending();
    b.pending();
    drop(g);
    assert!(a.woken());
    drop(a);
    assert!(b.woken());
    let gb = b.ready();
    drop(gb);
    assert!(m.try_lock().is_ok());
}

#[test]
fn a_queued_waiter_dropped_before_the_hand_off_leaves_the_queue() {
    let m = Mutex::new(0);
    let g = m.try_lock().unwrap();
    let mut a = Task::new(m.lock());
    let mut b = Task::new(m.lock());
    a.pending();
    b.pending();
    drop(b);
    drop(g);
    drop(a.ready());
    assert!(m.try_lock().is_ok());
}

#[test]
fn panic_while_holding_the_guard_releases_the_lock() {
    let m = Arc::new(Mutex::new(0));
    let m2 = m.clone();
    let r = std::thread::spawn(move || {
        block_on(async {
            let mut g = m2.lock().await;
            *g += 1;
            panic!("boom");
        })
    })
    .join();
    assert!(r.is_err());
    // Not poisoned: the guard's drop during unwinding unlocked it.
    let mut g = block_on(m.lock());
    *g += 1;
    assert_eq!(*g, 2);
}

#[test]
fn mapped_guard_holds_the_lock() {
    let m = Mutex::new((1, String::from("a")));
    let mut s = MutexGuard::map(block_on(m.lock()), |v| &mut v.1);
    s.push('b');
    assert!(m.try_lock().is_err());
    drop(s);
    assert_eq!(block_on(m.lock()).1, "ab");
}

#[test]
fn owned_guard_outlives_the_borrow() {
    let m = Arc::new(Mutex::new(5));
    let mut g = block_on(m.clone().lock_owned());
    *g += 1;
    assert!(Arc::ptr_eq(rt_sync::mutex::OwnedMutexGuard::mutex(&g), &m));
    assert!(m.clone().try_lock_owned().is_err());
    let t = std::thread::spawn(move || drop(g));
    t.join().unwrap();
    assert_eq!(*m.clone().try_lock_owned().unwrap(), 6);
}

#[test]
fn always_ready_lock_spends_the_budget() {
    let m = Mutex::new(0u32);
    let waker = Waker::noop();
    let mut cx = Context::from_waker(waker);
    let ready = rt_core::coop::budget(|| {
        let mut ready = 0;
        loop {
            let mut lock = std::pin::pin!(m.lock());
            match lock.as_mut().poll(&mut cx) {
                Poll::Ready(mut g) => {
                    *g += 1;
                    ready += 1;
                }
                Poll::Pending => return ready,
            }
        }
    });
    assert_eq!(ready, rt_core::coop::BUDGET as u32);
    assert_eq!(*m.try_lock().unwrap(), ready);
}

#[test]
fn threads_in_contention_count_exactly() {
    let m = Arc::new(Mutex::new(0u64));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let m = m.clone();
            std::thread::spawn(move || {
                for _ in 0..5_000 {
                    block_on(async { *m.lock().await += 1 });
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(*block_on(m.lock()), 20_000);
}

#[test]
fn an_always_ready_lock_loop_in_a_task_lets_another_task_run() {
    // One thread: the other task can only run if the looping task yields, which the budget forces.
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let (flag_set, locks) = rt.block_on(async {
        rt::spawn(async {
            let m = Mutex::new(());
            let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let f = flag.clone();
            let other =
                rt::spawn(async move { f.store(true, std::sync::atomic::Ordering::SeqCst) });
            let mut locks = 0u32;
            while !flag.load(std::sync::atomic::Ordering::SeqCst) && locks < 1_000_000 {
                drop(m.lock().await);
                locks += 1;
            }
            other.await.unwrap();
            (flag.load(std::sync::atomic::Ordering::SeqCst), locks)
        })
        .await
        .unwrap()
    });
    assert!(flag_set, "the other task never ran");
    // 128 locks spend the budget; the 129th returns Pending and completes once the task resumes.
    let budget = u32::from(rt_core::coop::BUDGET);
    assert!(locks <= budget + 1, "yielded only after {locks} locks");
}

#[test]
fn tasks_on_a_multi_thread_runtime_count_exactly() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let m = Arc::new(Mutex::new(0u64));
    rt.block_on(async {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let m = m.clone();
                rt::spawn(async move {
                    for _ in 0..2_000 {
                        *m.lock().await += 1;
                    }
                })
            })
            .collect();
        for h in hs {
            h.await.unwrap();
        }
    });
    assert_eq!(*m.try_lock().unwrap(), 16_000);
}
