//! Vectored writes on rt streams: `is_write_vectored` is true (as for tokio's sockets, so hyper
//! writes headers and body with one syscall instead of copying them together: a `send` from one
//! stack buffer up to 4 KiB, else a `writev`), and
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

/// The byte at offset `i` of the test streams below.
fn pattern(i: usize) -> u8 {
    (i * 7 + i / 251) as u8
}

/// Writes all of `bufs` with `write_vectored` calls, advancing past what each one took.
async fn write_all_vectored<W: AsyncWrite + Unpin>(w: &mut W, bufs: &mut [IoSlice<'_>]) {
    let mut bufs = bufs;
    while !bufs.is_empty() {
        let n = AsyncWriteExt::write_vectored(w, bufs).await.unwrap();
        assert!(n > 0, "a vectored write to an open socket took no bytes");
        IoSlice::advance_slices(&mut bufs, n);
    }
}

/// Sends `total` pattern bytes from `w` as vectored writes of `slices` slices of `slice_len`
/// bytes each (the last write shorter), while the reader checks every byte.
async fn vectored_stream<W, R>(mut w: W, mut r: R, slice_len: usize, slices: usize, total: usize)
where
    W: AsyncWrite + Unpin + Send + 'static,
    R: rt::io::AsyncRead + Unpin + Send + 'static,
{
    let reader = rt::spawn(async move {
        let mut got = Vec::with_capacity(total);
        r.read_to_end(&mut got).await.unwrap();
        got
    });
    let data: Vec<u8> = (0..total).map(pattern).collect();
    for chunk in data.chunks(slice_len * slices) {
        let mut bufs: Vec<IoSlice<'_>> = chunk.chunks(slice_len).map(IoSlice::new).collect();
        write_all_vectored(&mut w, &mut bufs).await;
    }
    w.shutdown().await.unwrap();
    drop(w);
    let got = reader.await.unwrap();
    assert_eq!(got.len(), total, "bytes lost or added");
    if let Some(i) = (0..total).find(|&i| got[i] != pattern(i)) {
        panic!("byte {i} is {} instead of {}", got[i], pattern(i));
    }
}

/// Small vectored writes are gathered into one buffer and sent with `send`; larger ones go out
/// with `writev`. Both must deliver every byte in order, through full socket buffers (writes
/// that find no room wait and resume), on either side of the 4 KiB gathering limit.
#[test]
fn small_and_large_vectored_writes_deliver_every_byte_through_full_buffers() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            // (slice length, slices per write): 300 B and exactly 4 KiB gathered; 4 KiB + 1 and
            // 24 KiB as one writev; a single 1 KiB slice sent as it is.
            for (slice_len, slices) in [(100, 3), (1024, 4), (1025, 4), (8192, 3), (1024, 1)] {
                let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let a = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
                let (b, _) = l.accept().await.unwrap();
                // 4 MiB: far more than the socket buffers hold, so writes meet a full buffer.
                vectored_stream(a, b, slice_len, slices, 4 << 20).await;
            }
            let (a, b) = rt::net::UnixStream::pair().unwrap();
            vectored_stream(a, b, 100, 3, 1 << 20).await;
        })
    });
}

/// A vectored write to a connection the peer has closed fails with an IO error (not a signal),
/// on the gathered `send` path and on the `writev` path alike.
#[test]
fn vectored_write_to_a_closed_peer_is_an_error() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            for slice_len in [10, 4000] {
                let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let mut a = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
                let (b, _) = l.accept().await.unwrap();
                drop(b);
                let data = vec![1u8; slice_len];
                let bufs = [IoSlice::new(&data), IoSlice::new(&data)];
                // The first writes may still be taken (the peer answers them with a reset).
                let mut err = None;
                for _ in 0..100 {
                    match AsyncWriteExt::write_vectored(&mut a, &bufs).await {
                        Ok(_) => rt::task::yield_now().await,
                        Err(e) => {
                            err = Some(e);
                            break;
                        }
                    }
                }
                let e = err.expect("writes to a closed peer kept succeeding");
                assert!(
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                    ),
                    "unexpected error {e:?}"
                );
            }
        })
    });
}
