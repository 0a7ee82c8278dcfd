//! UDP over 127.0.0.1: datagrams echo with `send_to`/`recv_from` and with a connected pair.

mod support;

use std::sync::Arc;

use rt_io::net::UdpSocket;
use support::{run, spawn};

#[test]
fn echo_with_send_to_and_recv_from() {
    run(async {
        let server = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let server_addr = server.local_addr().unwrap();
        let echo = spawn(async move {
            let mut buf = [0u8; 1500];
            for _ in 0..50 {
                let (n, from) = server.recv_from(&mut buf).await.unwrap();
                server.send_to(&buf[..n], from).await.unwrap();
            }
        });
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0u8; 1500];
        for i in 0..50u8 {
            let msg = vec![i; 1 + i as usize * 10];
            client.send_to(&msg, server_addr).await.unwrap();
            let (n, from) = client.recv_from(&mut buf).await.unwrap();
            assert_eq!(from, server_addr);
            assert_eq!(&buf[..n], &msg[..]);
        }
        echo.await;
    });
}

#[test]
fn connected_sockets_send_and_recv() {
    run(async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        a.connect(b.local_addr().unwrap()).await.unwrap();
        b.connect(a.local_addr().unwrap()).await.unwrap();
        assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());

        a.send(b"one").await.unwrap();
        let mut buf = [0u8; 16];
        let n = b.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"one");
        b.send(b"two").await.unwrap();
        let n = a.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"two");
    });
}

#[test]
fn two_tasks_receive_on_one_shared_socket() {
    run(async {
        // Both receivers wait on the same socket at once; each datagram wakes them and each gets
        // exactly one.
        let rx = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let addr = rx.local_addr().unwrap();
        let receivers: Vec<_> = (0..2)
            .map(|_| {
                let rx = rx.clone();
                spawn(async move {
                    let mut buf = [0u8; 8];
                    let n = rx.recv(&mut buf).await.unwrap();
                    buf[..n].to_vec()
                })
            })
            .collect();
        let tx = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        tx.send_to(b"a", addr).await.unwrap();
        tx.send_to(b"b", addr).await.unwrap();
        let mut got = Vec::new();
        for r in receivers {
            got.push(r.await);
        }
        got.sort();
        assert_eq!(got, vec![b"a".to_vec(), b"b".to_vec()]);
    });
}
