//! `ReactorConfig`: a turn takes at most `max_events_per_tick` events from the OS, and a turn
//! that does not wait at most `max_events_per_busy_tick`; the rest stay in the kernel for the
//! next turns.

use std::time::Duration;

use rt_io::net::UnixStream;
use rt_io::{Driver, ReactorConfig};

#[test]
fn a_turn_takes_at_most_its_limit_of_events() {
    let config = ReactorConfig {
        max_events_per_tick: 2,
        max_events_per_busy_tick: 1,
        ..ReactorConfig::default()
    };
    let driver = Driver::start_on_workers_with(1, config).unwrap();
    let workers = driver.worker_driver().unwrap();
    let handle = driver.handle();
    let _g = handle.enter();
    // Three sources, each writable at once: three events wait in the kernel.
    let streams: Vec<_> = (0..3)
        .map(|_| {
            let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
            a.set_nonblocking(true).unwrap();
            (UnixStream::from_std(a).unwrap(), _b)
        })
        .collect();
    let never = || false;
    // A turn that does not wait is a busy one: one event.
    assert!(workers.try_drive(0, Some(Duration::ZERO), &never));
    assert_eq!(workers.events(0), 1);
    // A turn that may wait takes up to two (the events are there: it does not block).
    assert!(workers.try_drive(0, Some(Duration::from_secs(20)), &never));
    assert_eq!(workers.events(0), 3);
    // Nothing left.
    assert!(workers.try_drive(0, Some(Duration::ZERO), &never));
    assert_eq!(workers.events(0), 3);
    drop(streams);
}

#[test]
#[should_panic(expected = "at least one event")]
fn a_limit_of_zero_panics() {
    let _ = Driver::start_with(ReactorConfig {
        max_events_per_tick: 0,
        max_events_per_busy_tick: 1,
        ..ReactorConfig::default()
    });
}
