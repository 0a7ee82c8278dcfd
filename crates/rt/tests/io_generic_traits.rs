//! Code generic over rt's `AsyncRead`/`AsyncWrite` and code generic over futures-io's both take
//! rt's streams: `TcpStream`, `UnixStream`, their borrowed and owned halves, `DuplexStream`.

mod support;

use std::pin::Pin;

use rt::net::{TcpListener, TcpStream, UnixListener, UnixStream};

/// Reads one message through rt's trait (with `ReadBuf`).
async fn read_rt<R: rt::io::AsyncRead + Unpin>(r: &mut R) -> Vec<u8> {
    let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 64];
    let mut buf = rt::io::ReadBuf::uninit(&mut storage);
    std::future::poll_fn(|cx| Pin::new(&mut *r).poll_read(cx, &mut buf))
        .await
        .unwrap();
    buf.filled().to_vec()
}

/// Writes through rt's trait, then shuts down through `poll_shutdown`.
async fn write_rt<W: rt::io::AsyncWrite + Unpin>(w: &mut W, data: &[u8]) {
    let n = std::future::poll_fn(|cx| Pin::new(&mut *w).poll_write(cx, data))
        .await
        .unwrap();
    assert_eq!(n, data.len());
    std::future::poll_fn(|cx| Pin::new(&mut *w).poll_flush(cx))
        .await
        .unwrap();
}

/// Reads one message through futures-io's trait.
async fn read_futures<R: futures_io::AsyncRead + Unpin>(r: &mut R) -> Vec<u8> {
    let mut buf = [0u8; 64];
    let n = std::future::poll_fn(|cx| Pin::new(&mut *r).poll_read(cx, &mut buf))
        .await
        .unwrap();
    buf[..n].to_vec()
}

/// Writes through futures-io's trait.
async fn write_futures<W: futures_io::AsyncWrite + Unpin>(w: &mut W, data: &[u8]) {
    let n = std::future::poll_fn(|cx| Pin::new(&mut *w).poll_write(cx, data))
        .await
        .unwrap();
    assert_eq!(n, data.len());
}

async fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
    let (b, _) = l.accept().await.unwrap();
    (a, b)
}

#[test]
fn tcp_stream_both_trait_families() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let (mut a, mut b) = tcp_pair().await;
            write_rt(&mut a, b"rt").await;
            assert_eq!(read_futures(&mut b).await, b"rt");
            write_futures(&mut b, b"futures").await;
            assert_eq!(read_rt(&mut a).await, b"futures");

            // Borrowed halves.
            let (mut ar, mut aw) = a.split();
            write_rt(&mut aw, b"half").await;
            assert_eq!(read_rt(&mut b).await, b"half");
            write_futures(&mut b, b"back").await;
            assert_eq!(read_futures(&mut ar).await, b"back");

            // Owned halves; rt's `poll_shutdown` on the write half ends the peer's reads.
            let (mut ar, mut aw) = a.into_split();
            write_futures(&mut aw, b"owned").await;
            assert_eq!(read_rt(&mut b).await, b"owned");
            write_rt(&mut b, b"reply").await;
            assert_eq!(read_futures(&mut ar).await, b"reply");
            std::future::poll_fn(|cx| rt::io::AsyncWrite::poll_shutdown(Pin::new(&mut aw), cx))
                .await
                .unwrap();
            assert_eq!(read_rt(&mut b).await, b"");
        })
    });
}

#[test]
fn unix_stream_and_duplex_both_trait_families() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let dir = std::env::temp_dir().join(format!("rt-io-generic-{}", std::process::id()));
            let _ = std::fs::remove_file(&dir);
            let l = UnixListener::bind(&dir).unwrap();
            let mut a = UnixStream::connect(&dir).await.unwrap();
            let (mut b, _) = l.accept().await.unwrap();
            std::fs::remove_file(&dir).unwrap();
            write_rt(&mut a, b"unix").await;
            assert_eq!(read_futures(&mut b).await, b"unix");
            let (mut br, mut bw) = b.into_split();
            write_futures(&mut bw, b"halves").await;
            assert_eq!(read_rt(&mut a).await, b"halves");
            write_rt(&mut a, b"again").await;
            assert_eq!(read_rt(&mut br).await, b"again");

            let (mut x, mut y) = rt::io::duplex(64);
            write_rt(&mut x, b"duplex").await;
            assert_eq!(read_futures(&mut y).await, b"duplex");
            write_futures(&mut y, b"back").await;
            assert_eq!(read_rt(&mut x).await, b"back");
        })
    });
}
