//! `rt::runtime::worker_index`, as tokio's: a worker's index on its thread, 0 on the thread
//! that drives a current-thread runtime, `None` elsewhere.

mod support;

#[test]
fn current_thread_block_on_is_worker_zero() {
    let rt = support::current_thread();
    assert_eq!(rt.block_on(async { rt::runtime::worker_index() }), Some(0));
    let spawned = rt.block_on(async { rt::spawn(async { rt::runtime::worker_index() }).await });
    assert_eq!(spawned.unwrap(), Some(0));
    assert_eq!(rt::runtime::worker_index(), None, "outside block_on");
}

#[test]
fn multi_thread_workers_have_their_indices() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(3)
        .build()
        .unwrap();
    let seen = rt.block_on(async {
        let mut seen = Vec::new();
        for _ in 0..32 {
            seen.push(
                rt::spawn(async { rt::runtime::worker_index() })
                    .await
                    .unwrap(),
            );
        }
        seen
    });
    assert!(seen.iter().all(|i| matches!(i, Some(0..=2))), "{seen:?}");
    assert_eq!(rt.block_on(async { rt::runtime::worker_index() }), None);
    let blocking = rt.block_on(rt.spawn_blocking(rt::runtime::worker_index));
    assert_eq!(blocking.unwrap(), None);
}
