#![cfg(loom)]
//! loom model of the trace ring (rt-sched `trace/ring.rs`, rules 1-4): a worker pushes events
//! (one at a time, and a spawn with its name as one all-or-nothing push) into a two-slot ring
//! while the writer drains it twice, then once more after the worker is done.
//!
//! Checked: every event drained is one that was pushed, whole (loom's cells report a slot read
//! while written), in push order, at most once; a push that did not fit is counted as dropped,
//! so drained + dropped = pushed; and the two-event push arrives whole or not at all. Small
//! enough to finish in well under a second at `LOOM_MAX_PREEMPTIONS=2`.

use rt_sched::trace::event_ring::{ring, Event};

fn ev(i: u64) -> Event {
    Event {
        ts: i,
        task: i * 3,
        a: !i,
        b: i as u32,
        kind: 1,
    }
}

#[test]
fn drained_in_order_whole_or_counted_as_dropped() {
    loom::model(|| {
        let (producer, consumer) = ring(2);
        let worker = loom::thread::spawn(move || {
            let mut pushed = Vec::new();
            for i in 1..=3 {
                if producer.push(ev(i)) {
                    pushed.push(i);
                }
            }
            if producer.push_all(&[ev(4), ev(5)]) {
                pushed.extend([4, 5]);
            }
            pushed
        });
        let mut got = Vec::new();
        consumer.drain(&mut got);
        consumer.drain(&mut got);
        let pushed = worker.join().unwrap();
        consumer.drain(&mut got);
        let ts: Vec<u64> = got.iter().map(|e| e.ts).collect();
        assert_eq!(ts, pushed);
        for e in &got {
            assert_eq!(*e, ev(e.ts));
        }
        assert_eq!(consumer.dropped() as usize, 5 - pushed.len());
    });
}
