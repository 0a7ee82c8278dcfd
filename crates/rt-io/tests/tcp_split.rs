//! Split halves: reader and writer used from two tasks at once, borrowed and owned.

mod support;

use rt_io::net::{TcpListener, TcpStream};
use support::{join2, run, spawn};

const ROUNDS: usize = 200;

/// Accepts one connection and echoes it with the halves in two tasks (reader forwards to the
/// writer through a std channel, so each half waits in its own task).
async fn owned_echo(listener: TcpListener) {
    let (s, _) = listener.accept().await.unwrap();
    let (mut r, mut w) = s.into_split();
    assert_eq!(r.peer_addr().unwrap(), w.peer_addr().unwrap());
    let reader = spawn(async move {
        let mut buf = [0u8; 256];
        let mut chunks = Vec::new();
        loop {
            let n = r.read(&mut buf).await.unwrap();
            if n == 0 {
                return chunks;
            }
            chunks.push(buf[..n].to_vec());
        }
    });
    // The writer task writes a greeting stream while the reader is blocked reading.
    let writer = spawn(async move {
        for i in 0..ROUNDS {
            w.write_all(&(i as u32).to_be_bytes()).await.unwrap();
        }
        // Dropping `w` shuts down the write side.
    });
    writer.await;
    let chunks = reader.await;
    assert_eq!(chunks.concat(), b"client done");
}

#[test]
fn owned_halves_in_two_tasks() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = spawn(owned_echo(listener));

        let mut c = TcpStream::connect(addr).await.unwrap();
        let mut buf = [0u8; 4];
        for i in 0..ROUNDS {
            c.read_exact(&mut buf).await.unwrap();
            assert_eq!(u32::from_be_bytes(buf), i as u32);
        }
        assert_eq!(
            c.read(&mut buf).await.unwrap(),
            0,
            "dropped write half shuts down"
        );
        c.write_all(b"client done").await.unwrap();
        c.shutdown().await.unwrap();
        server.await;
    });
}

#[test]
fn borrowed_halves_read_and_write_concurrently() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4096];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                s.write_all(&buf[..n]).await.unwrap();
            }
        });
        let mut c = TcpStream::connect(addr).await.unwrap();
        let (mut r, mut w) = c.split();
        // 1 MiB, larger than the socket buffers: the write half blocks until the read half
        // drains the echo, so both must be waiting at the same time for this to finish.
        let total = 1 << 20;
        let write = async {
            let chunk = [7u8; 8192];
            for _ in 0..total / chunk.len() {
                w.write_all(&chunk).await.unwrap();
            }
            w.shutdown().await.unwrap();
        };
        let read = async {
            let mut buf = [0u8; 8192];
            let mut got = 0;
            loop {
                let n = r.read(&mut buf).await.unwrap();
                if n == 0 {
                    return got;
                }
                assert!(buf[..n].iter().all(|&b| b == 7));
                got += n;
            }
        };
        let ((), got) = join2(write, read).await;
        assert_eq!(got, total);
        server.await;
    });
}
