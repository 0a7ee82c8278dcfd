//! The reactor has one shard per worker: echo traffic completes whatever the number of workers
//! (one shard, where nothing ever moves; more shards than CPUs, where sources move and idle
//! workers watch busy ones).

use rt_io::net::{TcpListener, TcpStream};

fn echo_with_workers(workers: usize) {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        const CLIENTS: usize = 8;
        const ROUND_TRIPS: usize = 50;
        let server = rt::spawn(async move {
            let mut conns = Vec::new();
            for _ in 0..CLIENTS {
                let (mut s, _) = listener.accept().await.unwrap();
                conns.push(rt::spawn(async move {
                    let mut buf = [0u8; 64];
                    loop {
                        match s.read(&mut buf).await.unwrap() {
                            0 => return,
                            n => s.write_all(&buf[..n]).await.unwrap(),
                        }
                    }
                }));
            }
            for c in conns {
                c.await.unwrap();
            }
        });
        let mut clients = Vec::new();
        for i in 0..CLIENTS {
            clients.push(rt::spawn(async move {
                let mut c = TcpStream::connect(addr).await.unwrap();
                for r in 0..ROUND_TRIPS {
                    let msg = [(i * ROUND_TRIPS + r) as u8; 16];
                    c.write_all(&msg).await.unwrap();
                    let mut back = [0u8; 16];
                    c.read_exact(&mut back).await.unwrap();
                    assert_eq!(back, msg);
                }
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
        server.await.unwrap();
    });
}

#[test]
fn echo_on_one_worker() {
    echo_with_workers(1);
}

#[test]
fn echo_on_more_workers_than_cpus() {
    echo_with_workers(4);
}
