// With the current_thread flavor every task runs on the thread that called `main`.

#![deny(warnings)]

#[rt::main(flavor = "current_thread")]
async fn main() {
    let main_thread = std::thread::current().id();
    let task_thread = rt::spawn(async { std::thread::current().id() })
        .await
        .unwrap();
    assert_eq!(task_thread, main_thread);
}
