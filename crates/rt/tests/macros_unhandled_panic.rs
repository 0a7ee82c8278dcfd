//! `#[rt::test(unhandled_panic = "shutdown_runtime")]` reaches the builder: a panic in a spawned
//! task, whose `JoinHandle` nobody awaits, fails the test with the task's payload, on both
//! flavours; `unhandled_panic = "ignore"` leaves the panic to the `JoinHandle`.

#[rt::test(unhandled_panic = "shutdown_runtime")]
#[should_panic(expected = "task boom on current_thread")]
async fn a_task_panic_fails_a_current_thread_test() {
    drop(rt::spawn(async { panic!("task boom on current_thread") }));
    std::future::pending::<()>().await;
}

#[rt::test(
    flavor = "multi_thread",
    worker_threads = 2,
    unhandled_panic = "shutdown_runtime"
)]
#[should_panic(expected = "task boom on multi_thread")]
async fn a_task_panic_fails_a_multi_thread_test() {
    drop(rt::spawn(async { panic!("task boom on multi_thread") }));
    std::future::pending::<()>().await;
}

#[rt::test(unhandled_panic = "ignore")]
async fn ignore_reports_the_panic_to_the_join_handle() {
    let err = rt::spawn(async { panic!("task boom, ignored") })
        .await
        .unwrap_err();
    assert!(err.is_panic());
    assert_eq!(rt::spawn(async { 3 }).await.unwrap(), 3);
}
