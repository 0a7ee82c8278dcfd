//! The streams and halves implement `futures_io::AsyncRead`/`AsyncWrite`: bytes written through
//! the traits arrive, and `poll_close` shuts the write side so the peer reads end-of-stream.

mod support;

use std::future::poll_fn;
use std::pin::Pin;

use futures_io::{AsyncRead, AsyncWrite};
use rt_io::net::{TcpListener, TcpStream};
use support::run;

async fn write_all<W: AsyncWrite + Unpin>(w: &mut W, mut buf: &[u8]) {
    while !buf.is_empty() {
        let n = poll_fn(|cx| Pin::new(&mut *w).poll_write(cx, buf))
            .await
            .unwrap();
        buf = &buf[n..];
    }
    poll_fn(|cx| Pin::new(&mut *w).poll_flush(cx))
        .await
        .unwrap();
}

async fn read_to_end<R: AsyncRead + Unpin>(r: &mut R) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let n = poll_fn(|cx| Pin::new(&mut *r).poll_read(cx, &mut buf))
            .await
            .unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n]);
    }
}

#[test]
fn stream_and_owned_halves_through_the_traits() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (s, _) = listener.accept().await.unwrap();
        let (mut sr, mut sw) = s.into_split();

        // Small enough to sit in the socket buffers while nobody reads yet.
        let data: Vec<u8> = (0..30_000u32).map(|i| i as u8).collect();
        write_all(&mut c, &data).await;
        poll_fn(|cx| Pin::new(&mut c).poll_close(cx)).await.unwrap();
        assert_eq!(read_to_end(&mut sr).await, data);

        write_all(&mut sw, b"reply").await;
        poll_fn(|cx| Pin::new(&mut sw).poll_close(cx))
            .await
            .unwrap();
        assert_eq!(read_to_end(&mut c).await, b"reply");
    });
}
