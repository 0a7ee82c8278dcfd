#![cfg(loom)]
//! loom models of the async mutex's hand-off (rt-sync's mutex.rs, over the semaphore protocol).
//!
//! * `lock_excludes`: two threads lock, read-modify-write the data (a loom `UnsafeCell`, so loom
//!   checks every access for a race) and unlock. Both increments land.
//! * `hand_off_skips_a_cancelled_waiter`: the holder unlocks while one waiter polls once and drops
//!   its `lock()` future (maybe after the lock was handed to it) and another waits. The other
//!   always gets the lock (a lost hand-off would deadlock, which loom reports), and the lock ends
//!   free. Both "the cancelled waiter got the lock first" and "it did not" occur.

use std::future::Future;
use std::pin::pin;

use std::sync::atomic::Ordering::Relaxed as SeenOrder;

use std::sync::Arc as StdArc;

use std::task::{Context, Poll};

use loom::thread;

use rt_sync::mutex::Mutex as AsyncMutex;

use loom_tests::{block_on, seen, signal};

#[test]
fn lock_excludes() {
    loom::model(|| {
        let m = StdArc::new(AsyncMutex::new(0usize));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let m = m.clone();
                thread::spawn(move || block_on(async { *m.lock().await += 1 }))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.try_lock().unwrap(), 2);
    });
}

#[test]
fn hand_off_skips_a_cancelled_waiter() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let m = StdArc::new(AsyncMutex::new(0usize));
        let guard = m.clone().try_lock_owned().unwrap();
        let m1 = m.clone();
        let canceller = thread::spawn(move || {
            let (signal, waker) = signal();
            let mut lock = pin!(m1.lock());
            match lock.as_mut().poll(&mut Context::from_waker(&waker)) {
                Poll::Ready(mut g) => {
                    *g += 1;
                    true
                }
                // Handed the lock but dropped before it looked: the drop must pass it on.
                Poll::Pending => signal.was_woken(),
            }
        });
        let m2 = m.clone();
        let waiter = thread::spawn(move || block_on(async { *m2.lock().await += 10 }));
        drop(guard);
        let first = canceller.join().unwrap();
        waiter.join().unwrap();
        let g = m.try_lock().expect("the lock ends free");
        assert!(*g == 10 || *g == 11);
        outcomes[first as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}
