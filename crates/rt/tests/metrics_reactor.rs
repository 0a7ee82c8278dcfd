//! Metrics: reactor turns and IO events are counted per worker shard.

#[test]
fn io_events_are_counted() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let before = rt.metrics().io_driver_ready_count();
    rt.block_on(async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = rt::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 64];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                s.write_all(&buf[..n]).await.unwrap();
            }
        });
        let mut c = rt::net::TcpStream::connect(addr).await.unwrap();
        let mut buf = [0u8; 5];
        for _ in 0..20 {
            c.write_all(b"hello").await.unwrap();
            c.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"hello");
        }
        drop(c);
        server.await.unwrap();
    });
    let m = rt.metrics().snapshot();
    let turns: u64 = (0..2).map(|w| m.worker_reactor_turn_count(w)).sum();
    let events: u64 = (0..2).map(|w| m.worker_reactor_event_count(w)).sum();
    assert!(turns >= 1);
    // At least the accept and one readable event per round trip on the server side.
    assert!(events >= 20, "{events}");
    assert_eq!(m.io_driver_ready_count(), events);
    assert!(events > before);
}

#[test]
fn no_per_worker_counts_with_a_reactor_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .reactor_thread(true)
        .build()
        .unwrap();
    rt.block_on(async {
        rt::time::sleep(std::time::Duration::from_millis(1)).await;
    });
    let m = rt.metrics().snapshot();
    assert_eq!(m.worker_reactor_turn_count(0), 0);
    assert_eq!(m.io_driver_ready_count(), 0);
}
