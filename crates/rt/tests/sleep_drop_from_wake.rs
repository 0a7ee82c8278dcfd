//! A waker that drops the sleep it is woken by, from inside its `wake` (tokio's
//! `time_sleep::drop_from_wake` shape): the timer driver is calling that very waker on this
//! thread, so the sleep's drop must not wait for the call to return. Both flavours; the test
//! hangs (and its deadline fails it) if the drop waits on itself.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};
use std::time::Duration;

use support::{deadline, runtimes};

/// Holds the sleep; its wake drops it, then reports.
struct DropOnWake {
    sleep: Mutex<Option<Pin<Box<rt::time::Sleep>>>>,
    done: Mutex<Option<rt::sync::oneshot::Sender<()>>>,
}

impl Wake for DropOnWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        drop(self.sleep.lock().unwrap().take());
        if let Some(tx) = self.done.lock().unwrap().take() {
            let _ = tx.send(());
        }
    }
}

#[test]
fn a_waker_may_drop_the_sleep_it_is_woken_by() {
    for (flavor, rt) in runtimes() {
        deadline(move || {
            rt.block_on(async {
                let (tx, rx) = rt::sync::oneshot::channel();
                let state = Arc::new(DropOnWake {
                    sleep: Mutex::new(None),
                    done: Mutex::new(Some(tx)),
                });
                let waker = Waker::from(state.clone());
                // A thread descheduled for over a millisecond finds the sleep due at its first
                // poll: then take a new one (the test is about the wake, not the first poll).
                let sleep = loop {
                    let mut sleep = Box::pin(rt::time::sleep(Duration::from_millis(1)));
                    if sleep
                        .as_mut()
                        .poll(&mut Context::from_waker(&waker))
                        .is_pending()
                    {
                        break sleep;
                    }
                };
                *state.sleep.lock().unwrap() = Some(sleep);
                // The driver fires it (on a worker, or on this thread for current-thread).
                rx.await.unwrap();
                assert!(state.sleep.lock().unwrap().is_none(), "{flavor}");
            });
            // Timers still work afterwards.
            rt.block_on(async { rt::time::sleep(Duration::from_millis(1)).await });
        });
    }
}
