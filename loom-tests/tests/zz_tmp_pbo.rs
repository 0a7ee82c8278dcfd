#![cfg(loom)]
use std::task::Poll;
use loom::sync::{Arc, Mutex};
#[test]
fn pbo() {
    loom::model(|| {
        let slot: Arc<Mutex<(bool, Option<std::task::Waker>)>> = Arc::new(Mutex::new((false, None)));
        let s2 = slot.clone();
        let th = loom::thread::spawn(move || { let w = { let mut g = s2.lock().unwrap(); g.0 = true; g.1.take() }; if let Some(w) = w { w.wake() } });
        rt_sched::current_thread::park_block_on(std::future::poll_fn(|cx| {
            let mut g = slot.lock().unwrap();
            if g.0 { Poll::Ready(()) } else { g.1 = Some(cx.waker().clone()); Poll::Pending }
        }));
        th.join().unwrap();
    });
}
