//! Loopback networking: rt vs tokio, 2 workers each, side by side.
//!
//! - `tcp_echo`: 50 connections, each doing 2,000 round trips of 64 bytes (TCP_NODELAY), against an
//!   echo server on the same runtime; one iteration is all 100,000 round trips.
//! - `tcp_echo_paired`: the same workload, rt and tokio alternating iteration by iteration;
//!   prints the median of the per-iteration ratios (steadier on a machine whose speed drifts).
//! - `tcp_accept`: 1,000 connects + accepts (10 clients x 100). The server closes each accepted
//!   connection; the client waits for that end-of-stream, then resets (SO_LINGER 0), so no
//!   TIME_WAIT piles up across iterations on either side.
//!
//! Run: `cargo bench -p rt-benches --bench net`

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};

const CONNECTIONS: usize = 50;
const ROUND_TRIPS: usize = 2_000;
const MESSAGE: usize = 64;
const ACCEPT_CLIENTS: usize = 10;
const ACCEPTS_PER_CLIENT: usize = 100;

fn rt_runtime() -> rt::Runtime {
    rt_runtime_with(false)
}

/// `reactor_thread`: poll IO on a dedicated `rt-io` thread instead of on idle workers.
fn rt_runtime_with(reactor_thread: bool) -> rt::Runtime {
    rt::Builder::new_multi_thread()
        .worker_threads(2)
        .reactor_thread(reactor_thread)
        .build()
        .unwrap()
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

mod rt_side {
    use super::*;
    use rt::net::{TcpListener, TcpStream};

    /// Starts an echo server that serves every connection until it closes.
    pub async fn echo_server() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                s.set_nodelay(true).unwrap();
                rt::spawn(async move {
                    let mut buf = [0u8; 4096];
                    loop {
                        match s.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                if s.write_all(&buf[..n]).await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
        });
        addr
    }

    pub async fn echo_clients(addr: SocketAddr) {
        let mut clients = Vec::with_capacity(CONNECTIONS);
        for _ in 0..CONNECTIONS {
            clients.push(rt::spawn(async move {
                let mut c = TcpStream::connect(addr).await.unwrap();
                c.set_nodelay(true).unwrap();
                let msg = [7u8; MESSAGE];
                let mut back = [0u8; MESSAGE];
                for _ in 0..ROUND_TRIPS {
                    c.write_all(&msg).await.unwrap();
                    c.read_exact(&mut back).await.unwrap();
                }
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
    }

    pub async fn accepts(listener: Arc<TcpListener>) {
        let addr = listener.local_addr().unwrap();
        let server = rt::spawn(async move {
            for _ in 0..ACCEPT_CLIENTS * ACCEPTS_PER_CLIENT {
                drop(listener.accept().await.unwrap());
            }
        });
        let mut clients = Vec::with_capacity(ACCEPT_CLIENTS);
        for _ in 0..ACCEPT_CLIENTS {
            clients.push(rt::spawn(async move {
                for _ in 0..ACCEPTS_PER_CLIENT {
                    let mut c = TcpStream::connect(addr).await.unwrap();
                    let mut b = [0u8; 1];
                    assert_eq!(c.read(&mut b).await.unwrap(), 0);
                    c.set_linger(Some(Duration::ZERO)).unwrap();
                }
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
        server.await.unwrap();
    }
}

mod tokio_side {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    pub async fn echo_server() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                s.set_nodelay(true).unwrap();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    loop {
                        match s.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                if s.write_all(&buf[..n]).await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
        });
        addr
    }

    pub async fn echo_clients(addr: SocketAddr) {
        let mut clients = Vec::with_capacity(CONNECTIONS);
        for _ in 0..CONNECTIONS {
            clients.push(tokio::spawn(async move {
                let mut c = TcpStream::connect(addr).await.unwrap();
                c.set_nodelay(true).unwrap();
                let msg = [7u8; MESSAGE];
                let mut back = [0u8; MESSAGE];
                for _ in 0..ROUND_TRIPS {
                    c.write_all(&msg).await.unwrap();
                    c.read_exact(&mut back).await.unwrap();
                }
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
    }

    pub async fn accepts(listener: Arc<TcpListener>) {
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            for _ in 0..ACCEPT_CLIENTS * ACCEPTS_PER_CLIENT {
                drop(listener.accept().await.unwrap());
            }
        });
        let mut clients = Vec::with_capacity(ACCEPT_CLIENTS);
        for _ in 0..ACCEPT_CLIENTS {
            clients.push(tokio::spawn(async move {
                for _ in 0..ACCEPTS_PER_CLIENT {
                    let mut c = TcpStream::connect(addr).await.unwrap();
                    let mut b = [0u8; 1];
                    assert_eq!(c.read(&mut b).await.unwrap(), 0);
                    c.set_zero_linger().unwrap();
                }
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
        server.await.unwrap();
    }
}

fn tcp_echo(c: &mut Criterion) {
    let mut g = c.benchmark_group("tcp_echo");
    // Flat sampling: one iteration is ~1.5 s, so each of the 10 samples is one iteration.
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));

    let rt = rt_runtime();
    let addr = rt.block_on(rt_side::echo_server());
    g.bench_function("rt", |b| {
        b.iter(|| rt.block_on(rt_side::echo_clients(addr)))
    });
    drop(rt);

    // The other design the issue asked us to measure: a dedicated reactor thread.
    let rt = rt_runtime_with(true);
    let addr = rt.block_on(rt_side::echo_server());
    g.bench_function("rt_reactor_thread", |b| {
        b.iter(|| rt.block_on(rt_side::echo_clients(addr)))
    });
    drop(rt);

    let tokio = tokio_runtime();
    let addr = tokio.block_on(tokio_side::echo_server());
    g.bench_function("tokio", |b| {
        b.iter(|| tokio.block_on(tokio_side::echo_clients(addr)))
    });
    g.finish();
}

fn tcp_accept(c: &mut Criterion) {
    let mut g = c.benchmark_group("tcp_accept");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));

    let rt = rt_runtime();
    let listener = Arc::new(
        rt.block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap(),
    );
    g.bench_function("rt", |b| {
        b.iter(|| rt.block_on(rt_side::accepts(listener.clone())))
    });
    drop(listener);
    drop(rt);

    let tokio = tokio_runtime();
    let listener = Arc::new(
        tokio
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap(),
    );
    g.bench_function("tokio", |b| {
        b.iter(|| tokio.block_on(tokio_side::accepts(listener.clone())))
    });
    g.finish();
}

/// `tcp_echo` again, rt and tokio alternating iteration by iteration (see `rt_benches::paired`).
fn tcp_echo_paired(_: &mut Criterion) {
    let rt = rt_runtime();
    let rt_addr = rt.block_on(rt_side::echo_server());
    let tokio = tokio_runtime();
    let tokio_addr = tokio.block_on(tokio_side::echo_server());
    rt_benches::paired(
        "tcp_echo",
        12,
        || rt.block_on(rt_side::echo_clients(rt_addr)),
        || tokio.block_on(tokio_side::echo_clients(tokio_addr)),
    );
}

criterion_group!(benches, tcp_echo, tcp_echo_paired, tcp_accept);
criterion_main!(benches);
