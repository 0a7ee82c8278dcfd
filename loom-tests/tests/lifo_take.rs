#![cfg(loom)]
//! loom model of the stealable LIFO slot (rt-sched `lifo.rs`): the owner puts tasks in (a
//! displaced one goes to its queue, here run at once) and takes them back with plain accesses
//! behind its half of the barrier handshake, while a take-over thread steals from the slot. Every task is polled exactly once and its cell freed once,
//! whichever side's swap won it; none is left in the slot.

mod task_support;

use std::task::Poll;

use loom::sync::Arc;
use loom::thread;
use rt_sched::lifo::LifoSlot;
use task_support::{model, probed, Dropped, Probe, TestSched};

#[test]
fn owner_and_taker_share_out_the_tasks() {
    model(|| {
        let sched = TestSched::new();
        let slot: Arc<LifoSlot<TestSched>> = Arc::new(LifoSlot::new());
        let probes: Vec<_> = (0..2).map(|_| Probe::new()).collect();
        let cells: Vec<_> = (0..2).map(|_| Dropped::new()).collect();
        let tasks: Vec<_> = probes
            .iter()
            .zip(&cells)
            .map(|(p, c)| {
                let (join, notified) = sched.bind(probed(p, |_, _| Poll::Ready(())), c);
                drop(join);
                notified.expect("list open")
            })
            .collect();
        let mut tasks = tasks.into_iter();
        let (a, b) = (tasks.next().unwrap(), tasks.next().unwrap());
        // The first task is in the slot before the taker starts, so it has something to race.
        assert!(slot.replace(a).is_none());
        let taker = {
            let slot = slot.clone();
            thread::spawn(move || {
                if let Some(t) = slot.steal() {
                    t.run();
                }
            })
        };
        // Owner: a spawn displaces whatever is still there, then the worker takes its next.
        if let Some(prev) = slot.replace(b) {
            prev.run();
        }
        if let Some(t) = slot.take() {
            t.run();
        }
        taker.join().unwrap();
        assert!(slot.is_empty());
        for p in &probes {
            assert_eq!(p.polls(), 1, "a task ran {} times", p.polls());
        }
        drop(slot);
        for c in &cells {
            assert_eq!(c.count(), 1, "a cell was freed {} times", c.count());
        }
        assert_eq!(sched.run_all(), 0);
    });
}
