// `unhandled_panic` is accepted by `#[rt::main]` with either value, alone and with other options.

#![deny(warnings)]

#[rt::main(unhandled_panic = "shutdown_runtime")]
async fn main() {
    assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
    // A blocking function: call it from outside any runtime.
    std::thread::spawn(ignore).join().unwrap();
}

#[rt::main(flavor = "current_thread", unhandled_panic = "ignore")]
async fn ignore() {
    assert!(rt::spawn(async { panic!("ignored") }).await.unwrap_err().is_panic());
}
