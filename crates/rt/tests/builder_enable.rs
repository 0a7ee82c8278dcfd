//! rt's `Builder` has IO and timers on whether or not `enable_io` / `enable_time` /
//! `enable_all` are called (they are for code written for tokio); only the `tokio` face
//! (`tests/tokio_face.rs`) honours them.
#![cfg(not(feature = "tokio-face"))]

use std::time::Duration;

#[test]
fn io_and_timers_are_on_without_enable_calls() {
    for rt in [
        rt::Builder::new_current_thread().build().unwrap(),
        rt::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap(),
    ] {
        rt.block_on(async {
            let (a, b) = rt::net::UnixStream::pair().unwrap();
            drop((a, b));
            rt::time::sleep(Duration::from_millis(1)).await;
            let r = rt::time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await;
            assert!(r.is_err());
        });
    }
}
