// `start_paused` is accepted by `#[rt::main]` on both flavours, and the runtime starts with its clock paused.

#![deny(warnings)]

#[rt::main(start_paused = true)]
async fn main() {
    let start = rt::time::Instant::now();
    rt::time::sleep(std::time::Duration::from_secs(3600)).await;
    assert!(start.elapsed() >= std::time::Duration::from_secs(3600));
    std::thread::spawn(current).join().unwrap();
}

#[rt::main(flavor = "current_thread", start_paused = true)]
async fn current() {
    let start = rt::time::Instant::now();
    rt::time::advance(std::time::Duration::from_secs(60)).await;
    assert_eq!(start.elapsed(), std::time::Duration::from_secs(60));
}
