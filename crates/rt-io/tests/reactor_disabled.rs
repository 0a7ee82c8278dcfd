//! `ReactorConfig::enable_io` / `enable_time` off: registering a source, or creating a timer,
//! panics at the caller with a message that says how to have them (tokio's runtime built
//! without `enable_io` / `enable_time`); the other half keeps working.

use std::time::Duration;

use rt_io::{Driver, ReactorConfig};

#[test]
#[should_panic(expected = "this runtime's reactor was built without IO")]
fn a_source_on_a_reactor_without_io_panics() {
    let driver = Driver::start_with(ReactorConfig {
        enable_io: false,
        ..ReactorConfig::default()
    })
    .unwrap();
    let handle = driver.handle();
    let _g = handle.enter();
    // Timers still work.
    drop(rt_io::time::sleep(Duration::from_secs(1)));
    let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    let _ = rt_io::net::UnixStream::from_std(a);
}

#[test]
#[should_panic(expected = "this runtime's reactor was built without timers")]
fn a_timer_on_a_reactor_without_time_panics() {
    let driver = Driver::start_with(ReactorConfig {
        enable_time: false,
        ..ReactorConfig::default()
    })
    .unwrap();
    let handle = driver.handle();
    let _g = handle.enter();
    // Sources still register.
    let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(rt_io::net::UnixStream::from_std(a).unwrap());
    drop(rt_io::time::sleep(Duration::from_secs(1)));
}
