//! `OwnedReadHalf::reunite` / `OwnedWriteHalf::reunite` give back the stream the halves were
//! split from, with its write side still open (dropping the write half in the reunion does not
//! shut it); halves of two different streams come back in `ReuniteError`; and
//! `OwnedWriteHalf::forget` drops the write half without shutting the write side. TCP on
//! loopback and Unix stream pairs.

use rt::net::{TcpListener, TcpStream, UnixStream};

async fn tcp_pair(listener: &TcpListener) -> (TcpStream, TcpStream) {
    let addr = listener.local_addr().unwrap();
    let (client, accepted) = rt::join!(TcpStream::connect(addr), listener.accept());
    (client.unwrap(), accepted.unwrap().0)
}

#[rt::test]
async fn tcp_halves_reunite_with_the_write_side_open() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (a, mut peer) = tcp_pair(&listener).await;
    let (r, w) = a.into_split();
    let mut a = w.reunite(r).expect("halves of one stream");
    // A shut write side would fail this write (or the peer would read end-of-stream).
    a.write_all(b"ping").await.unwrap();
    let mut buf = [0; 4];
    peer.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"ping");

    // Halves of two streams: both come back, and still work.
    let (b, _peer_b) = tcp_pair(&listener).await;
    let (ra, _wa) = a.into_split();
    let (_rb, wb) = b.into_split();
    let rt::net::tcp::ReuniteError(ra, mut wb) = ra.reunite(wb).unwrap_err();
    assert_ne!(ra.local_addr().unwrap(), wb.local_addr().unwrap());
    wb.write_all(b"still usable").await.unwrap();
    let msg = rt::net::tcp::ReuniteError(ra, wb).to_string();
    assert!(msg.contains("not from the same socket"), "{msg}");
}

#[rt::test]
async fn unix_halves_reunite_and_forget_keeps_the_write_side_open() {
    let (a, mut peer) = UnixStream::pair().unwrap();
    let (r, w) = a.into_split();
    let a = r.reunite(w).expect("halves of one stream");
    let (r, mut w) = a.into_split();
    w.write_all(b"hi").await.unwrap();
    let mut buf = [0; 2];
    peer.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"hi");

    // `forget`: no shutdown, so the peer sees no end-of-stream while the read half lives.
    w.forget();
    let mut one = [0; 1];
    let now = peer.try_read(&mut one);
    assert!(
        matches!(&now, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the peer must not see end-of-stream after forget: {now:?}"
    );
    // Dropping the last half closes the socket: now it does.
    drop(r);
    assert_eq!(peer.read(&mut one).await.unwrap(), 0);
}
