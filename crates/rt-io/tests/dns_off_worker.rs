//! Host names resolve on the blocking pool, never on a worker: a timer on a 1-worker runtime
//! fires while a lookup is held up (the resolver seam of rt-io's `test-hooks` feature stands in
//! for `getaddrinfo`); `connect` tries each resolved address in turn and returns the last error.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Duration;

use rt_io::net::{TcpListener, TcpStream, TestResolver, UdpSocket};

fn one_worker() -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap()
}

#[test]
fn a_timer_fires_on_the_only_worker_while_localhost_is_being_resolved() {
    let rt = one_worker();
    let (entered_tx, entered_rx) = rt::sync::oneshot::channel::<thread::ThreadId>();
    let entered_tx = Mutex::new(Some(entered_tx));
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let resolver: TestResolver = Arc::new(move |host: &str| {
        assert_eq!(host, "localhost:80");
        if let Some(tx) = entered_tx.lock().unwrap().take() {
            let _ = tx.send(thread::current().id());
        }
        // Held up until the task on the worker has seen its timer fire. A lookup that ran on
        // the worker would hold that task up too, and end here with an error instead.
        match release_rx
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(30))
        {
            // Then the real resolver answers.
            Ok(()) => std::net::ToSocketAddrs::to_socket_addrs(host).map(Iterator::collect),
            Err(_) => Err(io::Error::other(
                "never released: the lookup blocked the worker",
            )),
        }
    });
    let out = rt.block_on(async move {
        rt_io::Handle::current().set_resolver_for_test(Some(resolver));
        rt::spawn(async move {
            let worker = thread::current().id();
            let lookup = rt::spawn(async { rt::net::lookup_host("localhost:80").await });
            let resolver_thread = entered_rx.await.unwrap();
            // The lookup is in the resolver now, and stays there until released below.
            rt::time::sleep(Duration::from_millis(5)).await;
            release_tx.send(()).unwrap();
            let addrs: Vec<SocketAddr> = lookup.await.unwrap().unwrap().collect();
            (worker, resolver_thread, addrs)
        })
        .await
        .unwrap()
    });
    let (worker, resolver_thread, addrs) = out;
    assert_ne!(worker, resolver_thread, "the lookup ran on the worker");
    assert!(!addrs.is_empty());
    assert!(addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 80));
}

#[test]
fn connect_tries_each_address_in_turn() {
    let rt = one_worker();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let good = listener.local_addr().unwrap();
        // A port nobody listens on: bound, then closed.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let resolver: TestResolver = Arc::new(move |_: &str| Ok(vec![closed, good]));
        rt_io::Handle::current().set_resolver_for_test(Some(resolver));
        let s = TcpStream::connect(("two-addresses.test", good.port()))
            .await
            .unwrap();
        assert_eq!(s.peer_addr().unwrap(), good);
        let (_accepted, from) = listener.accept().await.unwrap();
        assert_eq!(from, s.local_addr().unwrap());

        let resolver: TestResolver = Arc::new(move |_: &str| Ok(vec![closed, closed]));
        rt_io::Handle::current().set_resolver_for_test(Some(resolver));
        let err = TcpStream::connect("all-closed.test:1").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);

        let resolver: TestResolver = Arc::new(|_: &str| Ok(vec![]));
        rt_io::Handle::current().set_resolver_for_test(Some(resolver));
        let err = UdpSocket::bind("nothing.test:0").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    });
}

#[test]
fn localhost_resolves_through_the_system_resolver() {
    let rt = one_worker();
    rt.block_on(async {
        let addrs: Vec<SocketAddr> = rt::net::lookup_host("localhost:4242")
            .await
            .unwrap()
            .collect();
        assert!(!addrs.is_empty());
        assert!(addrs
            .iter()
            .all(|a| a.ip().is_loopback() && a.port() == 4242));
        // A listener on 127.0.0.1 only: `connect("localhost:port")` reaches it whether
        // `localhost` lists `::1` first or not.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let s = TcpStream::connect(format!("localhost:{port}"))
            .await
            .unwrap();
        assert_eq!(s.peer_addr().unwrap(), listener.local_addr().unwrap());
        // Literal addresses of every inline shape.
        let udp = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let to = udp.local_addr().unwrap();
        udp.send_to(b"x", &[to][..]).await.unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(udp.recv_from(&mut buf).await.unwrap(), (1, to));
    });
}
