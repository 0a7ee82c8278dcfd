//! Shutting the driver down wakes every waiter with "rt-io reactor has shut down"; the current
//! handle is per thread and nests.

mod support;

use std::pin::pin;

use rt_io::net::{UdpSocket, UnixStream};
use rt_io::{Driver, Handle};
use support::{block_on, poll_once, Flag};

#[test]
fn shutdown_fails_pending_and_later_io() {
    let mut driver = Driver::start().unwrap();
    let enter = driver.handle().enter();
    let (mut a, _b) = UnixStream::pair().unwrap();
    let flag = Flag::new();
    let mut buf = [0u8; 4];
    let mut read = pin!(a.read(&mut buf));
    assert!(poll_once(read.as_mut(), &flag).is_pending());

    driver.shutdown();
    flag.wait();
    let e = block_on(read).unwrap_err();
    assert_eq!(e.to_string(), "rt-io reactor has shut down");
    let e = block_on(UdpSocket::bind("127.0.0.1:0")).unwrap_err();
    assert_eq!(e.to_string(), "rt-io reactor has shut down");
    driver.shutdown(); // idempotent
    drop(enter);
}

#[test]
fn reactor_thread_is_named_and_joined() {
    let mut driver = Driver::start().unwrap();
    let h = driver.handle();
    assert!(h.is_running());
    // The new thread names itself when it starts running: look until it has (hang guard 20 s).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let names: Vec<String> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .collect();
        if names.iter().any(|n| n.trim() == "rt-io") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no thread named rt-io: {names:?}"
        );
        std::thread::yield_now();
    }
    driver.shutdown();
    assert!(!h.is_running());
    assert!(format!("{h:?}").contains("shut down"));
}

#[test]
fn current_is_per_thread_and_nests() {
    assert!(Handle::try_current().is_none());
    let d1 = Driver::start().unwrap();
    let mut d2 = Driver::start().unwrap();
    {
        let _g1 = d1.handle().enter();
        assert!(Handle::try_current().is_some());
        {
            let _g2 = d2.handle().enter();
            // The inner handle is current: shutting d2's reactor down shows through it.
            d2.shutdown();
            assert!(!Handle::current().is_running());
        }
        // Back to d1's, still running.
        assert!(Handle::current().is_running());
        std::thread::spawn(|| assert!(Handle::try_current().is_none()))
            .join()
            .unwrap();
    }
    assert!(Handle::try_current().is_none());
}

#[test]
fn current_outside_a_runtime_panics_with_guidance() {
    let err = std::panic::catch_unwind(Handle::current).unwrap_err();
    let msg = err
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(msg.contains("there is no rt reactor running"), "{msg}");
}
