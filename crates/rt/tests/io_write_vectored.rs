//! Vectored writes on rt streams: `is_write_vectored` is true (as for tokio's sockets, so hyper
//! writes headers and body with one `writev` instead of copying them together), and
//! `write_vectored` through either trait family delivers the slices in order.

mod support;

use std::io::IoSlice;
use std::pin::Pin;

use rt::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};

#[test]
fn writev_delivers_slices_in_order() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let mut a = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
            let (mut b, _) = l.accept().await.unwrap();
            assert!(a.is_write_vectored());

            let bufs = [
                IoSlice::new(b"head "),
                IoSlice::new(b""),
                IoSlice::new(b"body"),
            ];
            let n = AsyncWriteExt::write_vectored(&mut a, &bufs).await.unwrap();
            assert_eq!(
                n, 9,
                "a 9-byte writev to an empty socket buffer is written whole"
            );

            {
                let (_, mut w) = a.split();
                assert!(w.is_write_vectored());
                let bufs = [IoSlice::new(b" futures"), IoSlice::new(b"-io")];
                let n = std::future::poll_fn(|cx| {
                    futures_io::AsyncWrite::poll_write_vectored(Pin::new(&mut w), cx, &bufs)
                })
                .await
                .unwrap();
                assert_eq!(n, 11);
            }
            a.shutdown().await.unwrap();

            let mut got = String::new();
            b.read_to_string(&mut got).await.unwrap();
            assert_eq!(got, "head body futures-io");
        })
    });
}
