//! A stalled worker's other work is not held hostage: a task blocks its worker's thread
//! (`std::thread::sleep` in a loop) on a 2-worker runtime until the work only that worker holds
//! has run, served by the take-over thread: a task it spawned into its LIFO slot, tasks in its
//! local queue, a timer registered from it, and an echo connection accepted on it (with a
//! reactor shard per worker, its events arrive on that worker's shard).
//!
//! Nothing is timed: the blocking task waits for all of them to finish. With
//! `stall_threshold(None)` the LIFO task and the echo wait for the blocked worker, so the wait
//! reaches its 60 s limit and the check fails. The limits only turn a hang into a failure.

use std::future::Future;
use std::io::{Read, Write};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::task::Poll;
use std::time::{Duration, Instant};

const DEADLOCK: Duration = Duration::from_secs(60);

#[derive(Default)]
struct Done {
    queued: AtomicBool,
    timer: AtomicBool,
    lifo: AtomicBool,
    echo: AtomicBool,
}

#[test]
fn stalled_workers_tasks_timer_and_socket_progress() {
    stalled_worker_with_shards(1);
}

/// The same with a reactor shard per worker: the echo's events arrive on the stalled worker's
/// own shard, which only the take-over polls.
#[test]
fn stalled_workers_own_shard_progresses() {
    stalled_worker_with_shards(2);
}

fn stalled_worker_with_shards(shards: usize) {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .reactor_shards(shards)
        .stall_threshold(Some(Duration::from_millis(50)))
        .build()
        .unwrap();
    let done = Arc::new(Done::default());
    let (echoed_tx, echoed_rx) = mpsc::channel::<()>();
    let d = done.clone();
    let (report, client) = rt.block_on(async move {
        rt::spawn(async move {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = std::thread::spawn(move || {
                let mut s = std::net::TcpStream::connect(addr).unwrap();
                s.set_read_timeout(Some(DEADLOCK)).unwrap();
                s.write_all(b"ping").unwrap();
                let mut buf = [0u8; 4];
                s.read_exact(&mut buf).unwrap();
                assert_eq!(&buf, b"ping");
                echoed_tx.send(()).unwrap();
            });
            // Accepted here: the stream registers on this worker's shard.
            let (mut stream, _) = listener.accept().await.unwrap();
            // A timer registered from this worker (polled once here), awaited by a task. A
            // worker descheduled for 20 ms finds the sleep due at its first poll (nothing
            // registered): then take a new one.
            let sleep = loop {
                let mut sleep = Box::pin(rt::time::sleep(Duration::from_millis(20)));
                let pending =
                    std::future::poll_fn(|cx| Poll::Ready(sleep.as_mut().poll(cx).is_pending()))
                        .await;
                if pending {
                    break sleep;
                }
            };
            let dd = d.clone();
            rt::spawn(async move {
                sleep.await;
                dd.timer.store(true, Ordering::SeqCst);
            });
            let dd = d.clone();
            rt::spawn(async move {
                dd.queued.store(true, Ordering::SeqCst);
            });
            // The echo task, spawned last, sits in this worker's LIFO slot.
            let dd = d.clone();
            rt::spawn(async move {
                let mut buf = [0u8; 4];
                stream.read_exact(&mut buf).await.unwrap();
                stream.write_all(&buf).await.unwrap();
                dd.lifo.store(true, Ordering::SeqCst);
                echoed_rx.recv_timeout(DEADLOCK).unwrap();
                dd.echo.store(true, Ordering::SeqCst);
            });
            // Block this worker until all four have finished (or the deadlock limit passed).
            let seen = || {
                [
                    d.queued.load(Ordering::SeqCst),
                    d.timer.load(Ordering::SeqCst),
                    d.lifo.load(Ordering::SeqCst),
                    d.echo.load(Ordering::SeqCst),
                ]
            };
            let limit = Instant::now() + DEADLOCK;
            while seen() != [true; 4] && Instant::now() < limit {
                std::thread::sleep(Duration::from_millis(1));
            }
            (seen(), client)
        })
        .await
        .unwrap()
    });
    assert_eq!(
        report,
        [true, true, true, true],
        "[queued, timer, lifo+echo reply, echo round trip] when the blocking poll ended"
    );
    assert!(rt.metrics().stall_count() >= 1);
    client.join().unwrap();
}
