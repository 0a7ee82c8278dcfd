//! The reactor wakes tasks inside an `rt_core::batch`: a scheduler's unpark requested during the
//! wake is deferred to the end of the reactor's turn.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Wake, Waker};
use std::time::Duration;

use rt_core::batch::{defer, Unpark};
use rt_io::net::UnixStream;
use rt_io::Driver;

/// Counts unparks and lets the test wait for the first one.
#[derive(Default)]
struct CountingUnpark {
    unparks: AtomicUsize,
    done: Mutex<bool>,
    cv: Condvar,
}

impl Unpark for CountingUnpark {
    fn unpark(&self) {
        self.unparks.fetch_add(1, Ordering::SeqCst);
        *self.done.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

/// A waker that behaves like a scheduler's remote wake: it asks to unpark through `defer` and
/// unparks at once only when no batch is open.
struct SchedulerLikeWaker {
    unpark: Arc<CountingUnpark>,
    deferred: AtomicBool,
}

impl Wake for SchedulerLikeWaker {
    fn wake(self: Arc<Self>) {
        if defer(&self.unpark) {
            self.deferred.store(true, Ordering::SeqCst);
        } else {
            self.unpark.unpark();
        }
    }
}

#[test]
fn reactor_wakes_inside_a_batch() {
    let driver = Driver::start().unwrap();
    let _enter = driver.handle().enter();
    let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    let mut a = UnixStream::from_std(a).unwrap();

    let counting = Arc::new(CountingUnpark::default());
    let w = Arc::new(SchedulerLikeWaker {
        unpark: counting.clone(),
        deferred: AtomicBool::new(false),
    });
    let waker = Waker::from(w.clone());
    let mut buf = [0u8; 4];
    let mut read = pin!(a.read(&mut buf));
    assert!(read
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());

    std::io::Write::write_all(&mut b, b"data").unwrap();

    // Hang guard only: the reactor unparks within microseconds.
    let done = counting.done.lock().unwrap();
    let (done, _) = counting
        .cv
        .wait_timeout_while(done, Duration::from_secs(20), |d| !*d)
        .unwrap();
    assert!(*done, "never woken");
    assert!(
        w.deferred.load(Ordering::SeqCst),
        "the wake ran outside a batch"
    );
    assert_eq!(counting.unparks.load(Ordering::SeqCst), 1);
}
