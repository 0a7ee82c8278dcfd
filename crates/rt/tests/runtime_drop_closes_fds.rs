//! A dropped runtime closes every file descriptor it opened (its epoll instances, eventfds and
//! timerfd): building and dropping runtimes in a loop must not run the process out of them.
//!
//! One `#[test]` in this binary, so nothing else opens or closes descriptors while it counts.

use std::time::Duration;

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("read /proc/self/fd")
        .count()
}

/// Builds and drops `N` runtimes with `build`, each used by `use_it`, and checks that the
/// process holds no more descriptors afterwards than before.
fn check(what: &str, build: impl Fn() -> rt::Runtime, use_it: impl Fn(&rt::Runtime)) {
    const N: usize = 50;
    // One round first: whatever the process opens once for good (e.g. a lazily opened file)
    // is not a leak.
    let rt = build();
    use_it(&rt);
    drop(rt);
    let before = open_fds();
    for _ in 0..N {
        let rt = build();
        use_it(&rt);
        drop(rt);
    }
    let after = open_fds();
    assert_eq!(
        after,
        before,
        "{what}: {N} dropped runtimes left {} file descriptors open",
        after as isize - before as isize
    );
}

fn current_thread() -> rt::Runtime {
    rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("build current-thread runtime")
}

fn multi_thread() -> rt::Runtime {
    rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("build multi-thread runtime")
}

fn multi_thread_reactor_thread() -> rt::Runtime {
    rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .reactor_thread(true)
        .enable_all()
        .build()
        .expect("build multi-thread runtime with an rt-io thread")
}

fn unused(_: &rt::Runtime) {}

fn block_on(rt: &rt::Runtime) {
    assert_eq!(rt.block_on(async { 7 }), 7);
}

/// A spawned task does IO (a TCP round trip on loopback) and sleeps on the timer.
fn io_task(rt: &rt::Runtime) {
    let echoed = rt.block_on(async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = rt::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut b = [0u8; 1];
            s.read_exact(&mut b).await.unwrap();
            s.write_all(&b).await.unwrap();
        });
        let client = rt::spawn(async move {
            let mut c = rt::net::TcpStream::connect(addr).await.unwrap();
            c.write_all(&[42]).await.unwrap();
            rt::time::sleep(Duration::from_millis(1)).await;
            let mut b = [0u8; 1];
            c.read_exact(&mut b).await.unwrap();
            b[0]
        });
        server.await.unwrap();
        client.await.unwrap()
    });
    assert_eq!(echoed, 42);
}

fn spawn_blocking(rt: &rt::Runtime) {
    let v = rt.block_on(async { rt::spawn_blocking(|| 5).await.unwrap() });
    assert_eq!(v, 5);
}

#[test]
fn runtime_drop_closes_fds() {
    type Use = fn(&rt::Runtime);
    type Build = fn() -> rt::Runtime;
    let uses: [(&str, Use); 4] = [
        ("unused", unused),
        ("block_on", block_on),
        ("io task", io_task),
        ("spawn_blocking", spawn_blocking),
    ];
    let flavours: [(&str, Build); 3] = [
        ("current_thread", current_thread),
        ("multi_thread", multi_thread),
        ("multi_thread + reactor_thread", multi_thread_reactor_thread),
    ];
    for (flavour, build) in flavours {
        for (what, use_it) in uses {
            check(&format!("{flavour}, {what}"), build, use_it);
        }
    }
}
