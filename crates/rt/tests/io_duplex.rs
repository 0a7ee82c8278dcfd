//! `rt::io::duplex`: an in-memory pipe pair with a bounded buffer per direction; writes wait for
//! the reader when full; dropping one end ends the other's reads and fails its writes; and it
//! works with both tokio's and futures-io's traits.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn duplex_both_directions_and_backpressure() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let (mut a, mut b) = rt::io::duplex(8);
            // More than the 8-byte buffer: the writer must wait for the reader.
            let writer = rt::spawn(async move {
                a.write_all(&[7u8; 1000]).await.unwrap();
                let mut reply = [0u8; 6];
                a.read_exact(&mut reply).await.unwrap();
                assert_eq!(&reply, b"thanks");
                a
            });
            let mut got = vec![0u8; 1000];
            b.read_exact(&mut got).await.unwrap();
            assert!(got.iter().all(|&x| x == 7));
            b.write_all(b"thanks").await.unwrap();
            let a = writer.await.unwrap();

            // Dropping one end: the other reads end-of-stream, and writing fails.
            drop(a);
            let mut rest = Vec::new();
            assert_eq!(b.read_to_end(&mut rest).await.unwrap(), 0);
            let err = b.write_all(b"x").await.unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        })
    });
}

#[test]
fn duplex_implements_futures_io() {
    use futures_io::{AsyncRead, AsyncWrite};
    use std::pin::Pin;

    support::deadline(|| {
        support::current_thread().block_on(async {
            let (mut a, mut b) = rt::io::duplex(64);
            let n = std::future::poll_fn(|cx| Pin::new(&mut a).poll_write(cx, b"hello"))
                .await
                .unwrap();
            assert_eq!(n, 5);
            std::future::poll_fn(|cx| Pin::new(&mut a).poll_close(cx))
                .await
                .unwrap();
            let mut buf = [0u8; 16];
            let n = std::future::poll_fn(|cx| Pin::new(&mut b).poll_read(cx, &mut buf))
                .await
                .unwrap();
            assert_eq!(&buf[..n], b"hello");
            let n = std::future::poll_fn(|cx| Pin::new(&mut b).poll_read(cx, &mut buf))
                .await
                .unwrap();
            assert_eq!(n, 0, "end of stream after the writer shut down");
        })
    });
}
