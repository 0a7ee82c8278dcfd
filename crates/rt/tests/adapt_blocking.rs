//! `adapt::blocking` runs its closure on the blocking pool: the value, or a `JoinError` when
//! the closure panics.

#[test]
fn blocking_returns_the_value_and_reports_a_panic() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        let worker = std::thread::current().id();
        let ran_on = rt::adapt::blocking(move || std::thread::current().id())
            .await
            .unwrap();
        assert_ne!(
            ran_on, worker,
            "ran on a blocking-pool thread, not the caller's"
        );

        let err = rt::adapt::blocking(|| -> u32 { panic!("blocking boom") })
            .await
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(
            err.into_panic().downcast_ref::<&str>(),
            Some(&"blocking boom")
        );
    });
}
