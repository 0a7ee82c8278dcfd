#![cfg(loom)]
//! loom models of the condition variable (rt-sync's condvar.rs, over notify.rs).
//!
//! * `notify_after_the_check_is_not_lost`: a waiter checks a flag under the mutex and waits; a
//!   notifier sets the flag under the mutex and calls `notify_one`. The waiter always returns (a
//!   lost notification would deadlock, which loom reports). Both "found the flag set" and "waited"
//!   occur.
//! * `cancelled_waiter_passes_notify_one_on`: two waiters, one of which polls its wait once and is
//!   dropped, possibly after `notify_one` picked it. The other still returns without a second
//!   notification (unless the first one returned from its wait, consuming the notification).
//!   All of: returned, woken then dropped, dropped unwoken occur.
//! * `notify_all_reaches_every_waiter`: two waiters and a notifier that sets the flag and calls
//!   `notify_all`; both waiters return.

use std::future::Future;
use std::pin::pin;

use std::sync::atomic::Ordering::Relaxed as SeenOrder;

use std::sync::Arc as StdArc;

use std::task::{Context, Poll};

use loom::thread;

use rt_sync::condvar::Condvar as AsyncCondvar;

use rt_sync::mutex::Mutex as AsyncMutex;

use loom_tests::{block_on, seen, signal};

type Shared = StdArc<(AsyncMutex<bool>, AsyncCondvar)>;

/// Sets the flag under the mutex, then notifies one waiter.
fn set_and_notify(state: &Shared) {
    let (m, cv) = &**state;
    *block_on(m.lock()) = true;
    cv.notify_one();
}

#[test]
fn notify_after_the_check_is_not_lost() {
    let outcomes = seen::<2>();
    loom::model(move || {
        let state: Shared = StdArc::new((AsyncMutex::new(false), AsyncCondvar::new()));
        let s = state.clone();
        let waiter = thread::spawn(move || {
            block_on(async {
                let (m, cv) = &*s;
                let mut g = m.lock().await;
                let mut waited = false;
                while !*g {
                    waited = true;
                    g = cv.wait(g).await;
                }
                waited
            })
        });
        set_and_notify(&state);
        let waited = waiter.join().unwrap();
        outcomes[waited as usize].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

#[test]
fn cancelled_waiter_passes_notify_one_on() {
    let outcomes = seen::<3>();
    loom::model(move || {
        let state: Shared = StdArc::new((AsyncMutex::new(false), AsyncCondvar::new()));
        let s = state.clone();
        let canceller = thread::spawn(move || {
            let (m, cv) = &*s;
            let mut wait = pin!(async {
                let g = m.lock().await;
                if !*g {
                    drop(cv.wait(g).await);
                }
            });
            let (signal, waker) = signal();
            match wait.as_mut().poll(&mut Context::from_waker(&waker)) {
                // It returned: it may have consumed the `notify_one` legitimately.
                Poll::Ready(()) => 0,
                // Woken (notified, or handed the mutex) but dropped before it looked.
                Poll::Pending if signal.was_woken() => 1,
                Poll::Pending => 2,
            }
        });
        let s = state.clone();
        let waiter = thread::spawn(move || {
            block_on(async {
                let (m, cv) = &*s;
                drop(cv.wait_while(m.lock().await, |set| !*set).await);
            })
        });
        set_and_notify(&state);
        let outcome = canceller.join().unwrap();
        if outcome == 0 {
            // The canceller took the one notification: the other waiter needs its own.
            state.1.notify_one();
        }
        waiter.join().unwrap();
        outcomes[outcome].store(true, SeenOrder);
    });
    assert!(outcomes.iter().all(|o| o.load(SeenOrder)));
}

#[test]
fn notify_all_reaches_every_waiter() {
    loom::model(|| {
        let state: Shared = StdArc::new((AsyncMutex::new(false), AsyncCondvar::new()));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let s = state.clone();
                thread::spawn(move || {
                    block_on(async {
                        let (m, cv) = &*s;
                        drop(cv.wait_while(m.lock().await, |set| !*set).await);
                    })
                })
            })
            .collect();
        *block_on(state.0.lock()) = true;
        state.1.notify_all();
        for w in waiters {
            w.join().unwrap();
        }
    });
}
