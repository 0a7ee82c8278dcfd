//! `Command::spawn` outside a runtime panics before it forks, with a message saying where to
//! call it (no child is left running unwatched). Under `tokio-face` the message is tokio's
//! (`tokio_face.rs`).
#![cfg(not(feature = "tokio-face"))]

#[test]
#[should_panic(expected = "rt::process::Command::spawn called outside of an rt runtime")]
fn spawn_outside_a_runtime_panics() {
    let _ = rt::process::Command::new("true").spawn();
}
