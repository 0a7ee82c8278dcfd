//! A `Waker::wake` that panics when a driver calls it — the timer wheel firing a sleep, the
//! reactor delivering a socket's readiness — costs at most the task that owns the waker: the
//! driver keeps serving every other timer and socket, dropping the sleep or socket does not
//! hang, and neither does dropping the runtime.

mod support;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};
use std::time::Duration;

use support::{deadline, runtimes, EXPECTED};

/// Tells the test it was called (through a oneshot), then panics.
struct PanickingWaker(Mutex<Option<rt::sync::oneshot::Sender<()>>>);

impl PanickingWaker {
    fn waker() -> (Waker, rt::sync::oneshot::Receiver<()>) {
        let (tx, rx) = rt::sync::oneshot::channel();
        (
            Waker::from(Arc::new(PanickingWaker(Mutex::new(Some(tx))))),
            rx,
        )
    }
}

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if let Some(tx) = self.0.lock().unwrap().take() {
            let _ = tx.send(());
        }
        panic!("{EXPECTED} this waker panics");
    }
}

#[test]
fn a_panicking_waker_on_a_timer_does_not_stop_the_timers() {
    support::quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        deadline(move || {
            rt.block_on(async {
                // A thread descheduled for over a millisecond finds the sleep due at its first
                // poll (no waker registered): then take a new one, the test is about the wake.
                let (called, sleep) = loop {
                    let (waker, called) = PanickingWaker::waker();
                    let mut sleep = Box::pin(rt::time::sleep(Duration::from_millis(1)));
                    if sleep
                        .as_mut()
                        .poll(&mut Context::from_waker(&waker))
                        .is_pending()
                    {
                        break (called, sleep);
                    }
                };
                // The wheel fires the sleep and calls the waker, which panics.
                called.await.unwrap();
                // The entry is not left mid-wake: dropping the sleep returns.
                drop(sleep);
                // The time driver still serves, on this task and on others.
                rt::time::sleep(Duration::from_millis(1)).await;
                let other = rt::spawn(rt::time::sleep(Duration::from_millis(1)));
                other.await.unwrap();
            });
            // And the runtime drops (every pending timer fired with the shutdown mark).
            drop(rt);
            flavor
        });
    }
}

#[test]
fn a_panicking_waker_on_a_socket_does_not_stop_the_reactor() {
    support::quiet_expected_panics();
    for (flavor, rt) in runtimes() {
        deadline(move || {
            rt.block_on(async {
                let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
                let (mut server, _) = listener.accept().await.unwrap();
                let (waker, called) = PanickingWaker::waker();
                {
                    // An accepted stream starts out assumed readable; a read that finds nothing
                    // clears that, so the wait below waits for the reactor. A readiness event
                    // from before the read (the registration's, delivered by a turn on another
                    // worker) can mark it readable again: then clear it and wait anew.
                    // Kept until the wake: it holds the registered waker.
                    let _readable = loop {
                        let e = server.try_read(&mut [0u8; 1]).unwrap_err();
                        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{flavor}");
                        let mut readable = Box::pin(server.readable());
                        if readable
                            .as_mut()
                            .poll(&mut Context::from_waker(&waker))
                            .is_pending()
                        {
                            break readable;
                        }
                    };
                    // The reactor delivers the readiness and calls the waker, which panics.
                    client.write_all(b"ping").await.unwrap();
                    called.await.unwrap();
                }
                // The reactor still serves: the same socket and a new connection both work.
                let mut buf = [0u8; 4];
                server.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"ping", "{flavor}");
                let mut c2 = rt::net::TcpStream::connect(addr).await.unwrap();
                let (mut s2, _) = listener.accept().await.unwrap();
                c2.write_all(b"pong").await.unwrap();
                s2.read_exact(&mut buf).await.unwrap();
                assert_eq!(&buf, b"pong", "{flavor}");
            });
            drop(rt);
            flavor
        });
    }
}
