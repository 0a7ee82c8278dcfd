// `worker_threads` alone (main defaults to multi_thread) and together with the flavor.

#![deny(warnings)]

#[rt::main(worker_threads = 2)]
async fn two_workers() -> u32 {
    rt::spawn(async { 2 }).await.unwrap()
}

#[rt::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
    // `#[rt::main]` on another function makes a blocking function; call it from outside any runtime.
    let other = std::thread::spawn(two_workers).join().unwrap();
    assert_eq!(other, 2);
}
