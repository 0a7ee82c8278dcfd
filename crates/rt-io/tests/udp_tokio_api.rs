//! UdpSocket with tokio's API: `try_*` without waiting, `poll_*` with `ReadBuf` (uninitialised
//! memory), `peek`/`peek_from` leaving the datagram queued, readiness, `try_io`/`async_io`,
//! socket options (broadcast, multicast) and `into_std`.

mod support;

use std::future::poll_fn;
use std::io::ErrorKind;
use std::mem::MaybeUninit;
use std::net::Ipv4Addr;

use rt_io::io::Interest;
use rt_io::io::ReadBuf;
use rt_io::net::UdpSocket;
use support::run;

async fn pair() -> (UdpSocket, UdpSocket) {
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    a.connect(b.local_addr().unwrap()).await.unwrap();
    b.connect(a.local_addr().unwrap()).await.unwrap();
    (a, b)
}

#[test]
fn try_recv_would_block_then_gets_the_datagram() {
    run(async {
        let (a, b) = pair().await;
        let mut buf = [0u8; 32];
        assert_eq!(
            b.try_recv(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        // `try_*` does not wait: the writable readiness must have been seen first.
        a.writable().await.unwrap();
        assert_eq!(a.try_send(b"one").unwrap(), 3);
        b.readable().await.unwrap();
        assert_eq!(b.try_recv(&mut buf).unwrap(), 3);
        assert_eq!(&buf[..3], b"one");
        let to = a.local_addr().unwrap();
        b.writable().await.unwrap();
        assert_eq!(b.try_send_to(b"two", to).unwrap(), 3);
        a.readable().await.unwrap();
        let (n, from) = a.try_recv_from(&mut buf).unwrap();
        assert_eq!((&buf[..n], from), (&b"two"[..], b.local_addr().unwrap()));
    });
}

#[test]
fn poll_recv_and_poll_recv_from_fill_uninitialised_buffers() {
    run(async {
        let (a, b) = pair().await;
        poll_fn(|cx| a.poll_send(cx, b"hello")).await.unwrap();
        let mut storage = [MaybeUninit::<u8>::uninit(); 64];
        let mut buf = ReadBuf::uninit(&mut storage);
        poll_fn(|cx| b.poll_recv(cx, &mut buf)).await.unwrap();
        assert_eq!(buf.filled(), b"hello");

        let to = b.local_addr().unwrap();
        poll_fn(|cx| a.poll_send_to(cx, b"again", to))
            .await
            .unwrap();
        let mut storage = [MaybeUninit::<u8>::uninit(); 64];
        let mut buf = ReadBuf::uninit(&mut storage);
        let from = poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await.unwrap();
        assert_eq!(
            (buf.filled(), from),
            (&b"again"[..], a.local_addr().unwrap())
        );
    });
}

#[test]
fn peek_leaves_the_datagram_for_the_next_receive() {
    run(async {
        let (a, b) = pair().await;
        a.send(b"first").await.unwrap();
        let mut buf = [0u8; 32];
        assert_eq!(b.peek(&mut buf).await.unwrap(), 5);
        let (n, from) = b.peek_from(&mut buf).await.unwrap();
        assert_eq!((n, from), (5, a.local_addr().unwrap()));
        assert_eq!(b.try_peek_from(&mut buf).unwrap().0, 5);
        let mut storage = [MaybeUninit::<u8>::uninit(); 64];
        let mut rb = ReadBuf::uninit(&mut storage);
        poll_fn(|cx| b.poll_peek_from(cx, &mut rb)).await.unwrap();
        assert_eq!(rb.filled(), b"first");
        // Still queued: the receive takes it.
        assert_eq!(b.recv(&mut buf).await.unwrap(), 5);
        assert_eq!(
            b.try_recv(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
    });
}

#[test]
fn readiness_polls_and_own_syscalls() {
    run(async {
        let (a, b) = pair().await;
        let ready = a.ready(Interest::WRITABLE).await.unwrap();
        assert!(ready.is_writable());
        poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
        a.send(b"x").await.unwrap();
        poll_fn(|cx| b.poll_recv_ready(cx)).await.unwrap();
        // Our own syscall through `try_io`, with the socket's fd.
        let std_b = std_view(&b);
        let mut buf = [0u8; 4];
        let n = b
            .try_io(Interest::READABLE, || std_b.recv(&mut buf))
            .unwrap();
        assert_eq!(n, 1);
        // Drained: the next attempt is WouldBlock and clears the readiness...
        assert_eq!(
            b.try_io(Interest::READABLE, || std_b.recv(&mut buf))
                .unwrap_err()
                .kind(),
            ErrorKind::WouldBlock
        );
        // ...and `async_io` waits for the next datagram.
        a.send(b"yz").await.unwrap();
        let n = b
            .async_io(Interest::READABLE, || std_b.recv(&mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"yz");
        std::mem::forget(std_b);
    });
}

/// A std view of `s`'s fd, for calling syscalls on it (forgotten, not closed, by the caller).
fn std_view(s: &UdpSocket) -> std::net::UdpSocket {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: the fd is open for as long as `s` lives, and the caller forgets the std socket
    // instead of closing the fd.
    unsafe { std::net::UdpSocket::from_raw_fd(s.as_raw_fd()) }
}

#[test]
fn broadcast_and_multicast_options() {
    run(async {
        let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
        s.set_broadcast(true).unwrap();
        assert!(s.broadcast().unwrap());
        s.set_multicast_loop_v4(false).unwrap();
        assert!(!s.multicast_loop_v4().unwrap());
        s.set_multicast_ttl_v4(4).unwrap();
        assert_eq!(s.multicast_ttl_v4().unwrap(), 4);
        let group = Ipv4Addr::new(239, 255, 0, 1);
        // On the loopback interface, which every machine has.
        s.join_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
        s.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
        // Leaving twice is an error, surfaced as io::Error.
        assert!(s.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).is_err());
    });
}

#[test]
fn into_std_keeps_the_socket_usable() {
    run(async {
        let (a, b) = pair().await;
        let addr = b.local_addr().unwrap();
        let std_b = b.into_std().unwrap();
        assert_eq!(std_b.local_addr().unwrap(), addr);
        std_b.set_nonblocking(false).unwrap();
        a.send(b"sync").await.unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(std_b.recv(&mut buf).unwrap(), 4);
    });
}
