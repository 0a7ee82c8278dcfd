//! `adapt::callback` whose `Completer` is dropped without completing resolves to
//! `Err(Abandoned)`, also when it is dropped on another thread.

use rt::adapt::{callback, Abandoned, Completer};

#[test]
fn a_dropped_completer_gives_abandoned() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let got = rt.block_on(callback(|done: Completer<u32>| drop(done)));
    assert_eq!(got, Err(Abandoned));
    assert_eq!(
        Abandoned.to_string(),
        "the callback was abandoned: its Completer was dropped without completing"
    );
}

#[test]
fn a_completer_dropped_on_a_foreign_thread_gives_abandoned() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let got = rt.block_on(async {
        callback(|done: Completer<u32>| {
            std::thread::spawn(move || drop(done));
        })
        .await
    });
    assert_eq!(got, Err(Abandoned));
}
