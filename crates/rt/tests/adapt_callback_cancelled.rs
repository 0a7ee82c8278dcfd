//! Dropping an `adapt::callback` future makes its `Completer::is_cancelled()` true, so the
//! callback side can stop; completing then is harmless.

use std::sync::{Arc, Mutex};

use rt::adapt::{callback, Completer};

#[test]
fn dropping_the_future_cancels_the_completer() {
    let slot: Arc<Mutex<Option<Completer<u32>>>> = Arc::default();
    let s = slot.clone();
    let fut = callback(move |done: Completer<u32>| *s.lock().unwrap() = Some(done));
    let done = slot.lock().unwrap().take().unwrap();
    assert!(!done.is_cancelled());
    drop(fut);
    assert!(done.is_cancelled());
    done.complete(7); // nobody listens: dropped, no panic
}

#[test]
fn a_select_loser_cancels_its_completer() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let slot: Arc<Mutex<Option<Completer<u32>>>> = Arc::default();
    let s = slot.clone();
    let won = rt.block_on(async move {
        rt::select! {
            _ = callback(move |done: Completer<u32>| *s.lock().unwrap() = Some(done)) => false,
            _ = std::future::ready(()) => true,
        }
    });
    assert!(won);
    assert!(slot.lock().unwrap().as_ref().unwrap().is_cancelled());
}
