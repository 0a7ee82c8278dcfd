//! A socket registered on a worker's reactor shard is served while that worker is stuck in a
//! poll and the other worker is busy (never idle): the busy worker, at its regular driver turn,
//! polls the shard of a worker that took no turn since it last looked (issue 12's tail latency:
//! a worker descheduled by the OS holds its connections the same way).
//!
//! Stall detection is off, so no take-over thread helps, and the other worker never parks (a
//! task yields on it in a loop), so its idle-time watch of other shards never runs either: only
//! the busy worker's check can deliver the echo's readiness. The stuck task spins until the
//! echo has completed; the deadline only turns a hang into a failure.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(10);

#[test]
fn busy_worker_serves_the_shard_of_a_stuck_worker() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .reactor_shards(2)
        .stall_threshold(None)
        .build()
        .unwrap();
    let echoed = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let (stream_tx, stream_rx) = mpsc::channel();
    let (write_tx, write_rx) = mpsc::channel::<()>();

    // The stuck task: accepts the connection (so the stream registers on its worker's shard),
    // hands the stream over, then blocks its worker until the echo is done.
    let e = echoed.clone();
    let stuck = rt.spawn(async move {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = std::thread::spawn(move || {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(DEADLINE)).unwrap();
            write_rx.recv().unwrap();
            s.write_all(b"ping").unwrap();
            let mut buf = [0u8; 4];
            s.read_exact(&mut buf).unwrap();
            assert_eq!(&buf, b"ping");
        });
        let (stream, _) = listener.accept().await.unwrap();
        stream_tx.send(stream).unwrap();
        let start = Instant::now();
        while !e.load(Ordering::SeqCst) && start.elapsed() < DEADLINE {
            std::thread::yield_now();
        }
        (e.load(Ordering::SeqCst), client)
    });
    let stream = stream_rx.recv().unwrap();

    // The other worker (the stuck one cannot take it from the injector) stays busy.
    let started = Arc::new(AtomicBool::new(false));
    let (s, st) = (started.clone(), stop.clone());
    let busy = rt.spawn(async move {
        s.store(true, Ordering::SeqCst);
        while !st.load(Ordering::SeqCst) {
            rt::task::yield_now().await;
        }
    });
    while !started.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    // The echo task runs on the busy worker; its stream's events arrive on the stuck shard.
    let e = echoed.clone();
    let echo = rt.spawn(async move {
        let mut stream = stream;
        let mut buf = [0u8; 4];
        stream.read_exact(&mut buf).await.unwrap();
        stream.write_all(&buf).await.unwrap();
        e.store(true, Ordering::SeqCst);
    });
    write_tx.send(()).unwrap();

    let (served, client) = rt.block_on(stuck).unwrap();
    stop.store(true, Ordering::SeqCst);
    assert!(
        served,
        "the echo on the stuck worker's shard was not served while that worker was stuck"
    );
    rt.block_on(async {
        echo.await.unwrap();
        busy.await.unwrap();
    });
    client.join().unwrap();
}
