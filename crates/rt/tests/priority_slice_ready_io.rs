//! Once a background task's time slice has expired, a normal task whose socket became ready
//! runs before that background task's next poll: at the budget check the worker sees events
//! ready on its reactor shard (`IoDriver::has_ready`), the background poll ends, and the
//! worker turns the reactor before it polls background work again. The slice is zero, so no
//! clock decides anything; the background task makes the socket ready itself (a loopback UDP
//! datagram is queued on the receiving socket when `send_to` returns), and the order is
//! recorded in a log.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt::task::Priority;

/// A normal task waits on a UDP socket and spawns the background task, which spends a budget
/// unit (a poll's first check always proceeds), logs `bg0`, sends the datagram, spends a
/// budget unit, and logs `bg1`; the normal task logs `normal`
/// when its datagram arrives.
async fn scenario() -> Vec<&'static str> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sock = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let to = sock.local_addr().unwrap();
    let normal_log = log.clone();
    let normal = rt::spawn(async move {
        let bg_log = normal_log.clone();
        let bg = rt::task::Builder::new()
            .priority(Priority::Background)
            .spawn(async move {
                // A poll's first budget check always proceeds (every poll makes progress).
                rt::task::consume_budget().await;
                bg_log.lock().unwrap().push("bg0");
                let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
                peer.send_to(b"ping", to).unwrap();
                rt::task::consume_budget().await;
                bg_log.lock().unwrap().push("bg1");
            })
            .unwrap();
        let mut buf = [0u8; 8];
        let n = sock.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"ping");
        normal_log.lock().unwrap().push("normal");
        bg.await.unwrap();
    });
    normal.await.unwrap();
    let log = log.lock().unwrap().clone();
    log
}

#[test]
fn multi_thread_one_worker() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .background_time_slice(Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(scenario()), ["bg0", "normal", "bg1"]);
}

#[test]
fn current_thread() {
    let rt = rt::Builder::new_current_thread()
        .background_time_slice(Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(scenario()), ["bg0", "normal", "bg1"]);
}

/// The control: with a slice longer than the test the background poll goes on past the
/// datagram's arrival.
#[test]
fn without_an_expired_slice_the_background_poll_goes_on() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .background_time_slice(Duration::from_secs(3600))
        .build()
        .unwrap();
    assert_eq!(rt.block_on(scenario()), ["bg0", "bg1", "normal"]);
}
