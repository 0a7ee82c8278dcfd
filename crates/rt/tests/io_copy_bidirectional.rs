//! `rt::io::copy_bidirectional` in a proxy task between a client and an echo server, over real
//! loopback sockets: bytes flow both ways, a half-close is passed on, and the counts are returned.

mod support;

use rt::io::AsyncReadExt;
use rt::net::{TcpListener, TcpStream};

#[test]
fn proxy_copies_both_ways() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            // Echo server: echoes until end-of-stream, then closes.
            let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let echo_addr = echo.local_addr().unwrap();
            drop(rt::spawn(async move {
                let (mut s, _) = echo.accept().await.unwrap();
                let (mut r, mut w) = s.split();
                rt::io::copy(&mut r, &mut w).await.unwrap();
                w.shutdown().await.unwrap();
            }));

            // Proxy: one connection, copied both ways to the echo server.
            let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let proxy_addr = proxy.local_addr().unwrap();
            let proxied = rt::spawn(async move {
                let (mut inbound, _) = proxy.accept().await.unwrap();
                let mut outbound = TcpStream::connect(echo_addr).await.unwrap();
                rt::io::copy_bidirectional(&mut inbound, &mut outbound)
                    .await
                    .unwrap()
            });

            let payload: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
            let client = TcpStream::connect(proxy_addr).await.unwrap();
            let (mut r, mut w) = client.into_split();
            let to_send = payload.clone();
            let writer = rt::spawn(async move {
                w.write_all(&to_send).await.unwrap();
                w.shutdown().await.unwrap();
            });
            let mut back = Vec::new();
            r.read_to_end(&mut back).await.unwrap();
            writer.await.unwrap();
            assert_eq!(back, payload);
            let (up, down) = proxied.await.unwrap();
            assert_eq!(up, payload.len() as u64);
            assert_eq!(down, payload.len() as u64);
        })
    });
}
