//! `shutdown_timeout(d)` returns within `d` whatever the pending futures' destructors do: the
//! workers drop the futures, in parallel, and the caller does not wait for them past the
//! deadline. Each drop below blocks until the test opens a gate *after* the call returned, so
//! a call that waited for a drop (or dropped on its own thread) would never return and the
//! test's deadline fails it; no test measures time.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use support::{deadline, Never};

/// A gate that drops wait on, and a count of drops inside and done.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
    inside: AtomicUsize,
    done: AtomicUsize,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }

    /// Waits until `n` drops are inside at once.
    fn wait_inside(&self, n: usize) {
        let mut open = self.open.lock().unwrap();
        while self.inside.load(Ordering::SeqCst) < n {
            open = self.cv.wait(open).unwrap();
        }
    }

    fn wait_done(&self, n: usize) {
        let mut open = self.open.lock().unwrap();
        while self.done.load(Ordering::SeqCst) < n {
            open = self.cv.wait(open).unwrap();
        }
    }
}

/// Held by a pending future: its drop blocks on the gate.
struct SlowDrop(Arc<Gate>);

impl Drop for SlowDrop {
    fn drop(&mut self) {
        let g = &self.0;
        let mut open = g.open.lock().unwrap();
        g.inside.fetch_add(1, Ordering::SeqCst);
        g.cv.notify_all();
        while !*open {
            open = g.cv.wait(open).unwrap();
        }
        g.done.fetch_add(1, Ordering::SeqCst);
        g.cv.notify_all();
    }
}

/// Spawns `n` tasks that stay pending holding a `SlowDrop`, and waits until each has run.
fn spawn_slow_droppers(rt: &rt::Runtime, gate: &Arc<Gate>, n: usize) {
    let (tx, rx) = mpsc::channel();
    for _ in 0..n {
        let (guard, tx) = (SlowDrop(gate.clone()), tx.clone());
        rt.spawn(async move {
            let _guard = guard;
            tx.send(()).unwrap();
            Never::default().await
        });
    }
    for _ in 0..n {
        rx.recv().unwrap();
    }
}

#[test]
fn shutdown_timeout_does_not_wait_for_slow_destructors() {
    deadline(|| {
        let rt = support::multi_thread(2);
        let gate = Arc::new(Gate::default());
        spawn_slow_droppers(&rt, &gate, 5);
        rt.shutdown_timeout(Duration::from_millis(10));
        // Returned with the drops blocked (at most the two workers are inside one each). Now
        // let them go: the workers finish every drop on their own threads, each exactly once.
        assert!(gate.done.load(Ordering::SeqCst) == 0);
        gate.open();
        gate.wait_done(5);
        assert_eq!(gate.inside.load(Ordering::SeqCst), 5);
    });
}

#[test]
fn dropping_a_runtime_drops_pending_futures_on_every_worker_at_once() {
    deadline(|| {
        let rt = support::multi_thread(2);
        let gate = Arc::new(Gate::default());
        spawn_slow_droppers(&rt, &gate, 6);
        let dropper = std::thread::spawn(move || drop(rt));
        // Two drops inside at once: both workers are dropping futures in parallel (one thread
        // dropping them one after another would never get there).
        gate.wait_inside(2);
        gate.open();
        dropper.join().unwrap();
        // The drop of the runtime waited for every future (no deadline).
        assert_eq!(gate.done.load(Ordering::SeqCst), 6);
    });
}

#[test]
fn one_deadline_for_a_stuck_poll_and_a_stuck_blocking_closure() {
    deadline(|| {
        let rt = support::multi_thread(2);
        let (poll_tx, poll_rx) = mpsc::channel::<()>();
        let (block_tx, block_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel();
        let (dropped_tx, dropped_rx) = mpsc::channel();
        let s = started_tx.clone();
        let stuck = rt.spawn(async move {
            let _signal = support::DropSignal(dropped_tx);
            s.send(()).unwrap();
            poll_rx.recv().unwrap(); // blocks its worker: a bug in the task
            Never::default().await
        });
        let blocking = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            block_rx.recv().unwrap();
            7
        });
        started_rx.recv().unwrap();
        started_rx.recv().unwrap();
        rt.shutdown_timeout(Duration::from_millis(10));
        // Returned with both still stuck; each finishes on its own thread once released.
        poll_tx.send(()).unwrap();
        dropped_rx.recv().unwrap();
        block_tx.send(()).unwrap();
        let other = support::current_thread();
        assert!(other.block_on(stuck).unwrap_err().is_cancelled());
        assert_eq!(other.block_on(blocking).unwrap(), 7);
    });
}
