//! A `Coroutine` is `Send`: resumed on a different thread each time, its state goes with it.

use std::sync::mpsc;
use std::thread;

use rt::coro::{Co, Coroutine, Resumed};

fn assert_send<T: Send>(_: &T) {}

#[test]
fn resumed_on_another_thread_each_time() {
    let mut co: Coroutine<String, u32, Vec<u32>> =
        Coroutine::new(|co: Co<String, u32>, first: u32| async move {
            let mut seen = vec![first];
            for i in 0..3 {
                let got = co
                    .yield_(format!("step {i} on {:?}", thread::current().id()))
                    .await;
                seen.push(got);
            }
            seen
        });
    assert_send(&co);

    let mut threads_seen = Vec::new();
    for i in 0..4u32 {
        let (tx, rx) = mpsc::channel();
        let handle = thread::spawn(move || {
            let out = co.resume(i * 10);
            tx.send(thread::current().id()).unwrap();
            (co, out)
        });
        let (back, out) = handle.join().unwrap();
        co = back;
        let tid = rx.recv().unwrap();
        threads_seen.push(tid);
        match out.unwrap() {
            Resumed::Yield(s) => {
                assert!(i < 3);
                assert_eq!(s, format!("step {i} on {tid:?}"));
            }
            Resumed::Return(seen) => {
                assert_eq!(i, 3);
                assert_eq!(seen, [0, 10, 20, 30]);
            }
        }
    }
    assert!(!co.is_alive());
    threads_seen.dedup();
    assert_eq!(threads_seen.len(), 4);
}
