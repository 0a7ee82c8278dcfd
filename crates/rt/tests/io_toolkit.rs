//! rt's IO toolkit (`rt::io`, rt's own code under tokio's names): the helpers that never wait
//! spend the cooperative budget and so yield; duplex pipes take every buffer of a vectored
//! write; `Lines::next_line` is cancel safe; short reads fail with `UnexpectedEof` and zero
//! writes with `WriteZero`; `BufReader` / `BufWriter` buffer as documented; seeking through
//! them and through a cursor; the numeric reads and writes; `split`, `join`, `simplex`, `take`,
//! `chain`; `Interrupted` retried; `read_to_end`'s growth.

mod support;

use std::future::Future;
use std::io::{Cursor, ErrorKind, IoSlice, SeekFrom};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use rt::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeekExt, AsyncWrite, AsyncWriteExt, BufReader,
    BufStream, BufWriter, ReadBuf,
};

/// Runs `fut` as a task on a current-thread runtime (so with a cooperative budget) and returns
/// its output; a hang fails the test.
fn in_task<F>(fut: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    support::deadline(move || {
        let rt = support::current_thread();
        rt.block_on(async move { rt::spawn(fut).await.unwrap() })
    })
}

/// Races `busy` (which never finishes unless the budget makes it yield) against a
/// `yield_now`, `busy` polled first: the yield wins only if `busy` returned `Pending`.
async fn yields(busy: impl Future<Output = ()>) -> bool {
    rt::select! {
        biased;
        _ = busy => false,
        _ = rt::task::yield_now() => true,
    }
}

#[test]
fn copy_repeat_to_sink_yields() {
    assert!(in_task(async {
        yields(async {
            let _ = rt::io::copy(&mut rt::io::repeat(7), &mut rt::io::sink()).await;
        })
        .await
    }));
}

#[test]
fn copy_buf_yields() {
    assert!(in_task(async {
        yields(async {
            let mut r = BufReader::new(rt::io::repeat(7));
            let _ = rt::io::copy_buf(&mut r, &mut rt::io::sink()).await;
        })
        .await
    }));
}

#[test]
fn sink_writes_flushes_and_shutdowns_yield() {
    assert!(in_task(async {
        yields(async {
            let mut s = rt::io::sink();
            loop {
                s.write_all(b"x").await.unwrap();
            }
        })
        .await
    }));
    assert!(in_task(async {
        yields(async {
            let mut s = rt::io::sink();
            loop {
                s.flush().await.unwrap();
            }
        })
        .await
    }));
    assert!(in_task(async {
        yields(async {
            let mut s = rt::io::sink();
            loop {
                s.shutdown().await.unwrap();
            }
        })
        .await
    }));
}

#[test]
fn repeat_and_empty_reads_yield() {
    assert!(in_task(async {
        yields(async {
            let mut r = rt::io::repeat(1);
            let mut buf = [0; 4];
            loop {
                r.read_exact(&mut buf).await.unwrap();
                assert_eq!(buf, [1; 4]);
            }
        })
        .await
    }));
    assert!(in_task(async {
        yields(async {
            let mut r = rt::io::empty();
            let mut buf = [0; 4];
            loop {
                assert_eq!(r.read(&mut buf).await.unwrap(), 0);
            }
        })
        .await
    }));
    assert!(in_task(async {
        yields(async {
            let mut r = rt::io::empty();
            loop {
                assert!(r.fill_buf().await.unwrap().is_empty());
            }
        })
        .await
    }));
}

#[test]
fn duplex_ping_pong_yields() {
    assert!(in_task(async {
        yields(async {
            let (mut a, mut b) = rt::io::duplex(64);
            let mut buf = [0; 1];
            loop {
                a.write_all(b"x").await.unwrap();
                b.read_exact(&mut buf).await.unwrap();
            }
        })
        .await
    }));
}

#[test]
fn duplex_vectored_write_takes_every_buffer() {
    in_task(async {
        let (mut a, mut b) = rt::io::duplex(10);
        assert!(a.is_write_vectored());
        let bufs = [
            IoSlice::new(b"ab"),
            IoSlice::new(b""),
            IoSlice::new(b"cde"),
            IoSlice::new(b"fgh"),
        ];
        assert_eq!(a.write_vectored(&bufs).await.unwrap(), 8);
        // Only 2 bytes of room left: the write takes the first 2 bytes it can.
        let more = [IoSlice::new(b"ij"), IoSlice::new(b"klm")];
        assert_eq!(a.write_vectored(&more).await.unwrap(), 2);
        let mut out = [0; 10];
        b.read_exact(&mut out).await.unwrap();
        assert_eq!(&out, b"abcdefghij");
    });
}

#[test]
fn duplex_drop_and_shutdown_end_the_peer() {
    in_task(async {
        let (mut a, mut b) = rt::io::duplex(16);
        a.write_all(b"last").await.unwrap();
        a.shutdown().await.unwrap();
        let mut s = String::new();
        b.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "last");
        drop(b);
        let err = a.write_all(b"x").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BrokenPipe);
    });
}

#[test]
fn next_line_is_cancel_safe() {
    in_task(async {
        let (mut w, r) = rt::io::duplex(64);
        let mut lines = BufReader::new(r).lines();
        w.write_all(b"hel").await.unwrap();
        {
            // The partial line is read, then the future is dropped while it waits for more.
            let mut next = Box::pin(lines.next_line());
            assert!(support::poll_once(&mut next).is_pending());
        }
        w.write_all(b"lo\r\nworld\nend").await.unwrap();
        drop(w);
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("hello"));
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("world"));
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("end"));
        assert_eq!(lines.next_line().await.unwrap(), None);
    });
}

#[test]
fn split_segments_and_read_until() {
    in_task(async {
        let mut segs = BufReader::new(&b"a,bc,,d"[..]).split(b',');
        let mut got = Vec::new();
        while let Some(s) = segs.next_segment().await.unwrap() {
            got.push(s);
        }
        assert_eq!(
            got,
            vec![b"a".to_vec(), b"bc".to_vec(), vec![], b"d".to_vec()]
        );

        let mut r = Cursor::new(b"lorem-ipsum".to_vec());
        let mut buf = Vec::new();
        assert_eq!(r.read_until(b'-', &mut buf).await.unwrap(), 6);
        assert_eq!(buf, b"lorem-");
        assert_eq!(r.read_until(b'-', &mut buf).await.unwrap(), 5);
        assert_eq!(buf, b"lorem-ipsum");
        assert_eq!(r.read_until(b'-', &mut buf).await.unwrap(), 0);
    });
}

#[test]
fn read_line_and_read_to_string_keep_the_string_on_invalid_utf8() {
    in_task(async {
        let mut s = String::from("kept");
        let err = (&b"ok\xff\n"[..]).read_line(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        assert_eq!(s, "kept");
        let err = (&b"\xc3"[..]).read_to_string(&mut s).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        assert_eq!(s, "kept");

        let mut r = &b"one\ntwo"[..];
        assert_eq!(r.read_line(&mut s).await.unwrap(), 4);
        assert_eq!(s, "keptone\n");
        assert_eq!(r.read_to_string(&mut s).await.unwrap(), 3);
        assert_eq!(s, "keptone\ntwo");
    });
}

#[test]
fn short_reads_are_unexpected_eof_and_zero_writes_write_zero() {
    in_task(async {
        let mut buf = [0; 4];
        let err = (&b"abc"[..]).read_exact(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        let err = (&b"ab"[..]).read_u32().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        let err = (&b""[..]).read_u8().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        assert_eq!((&b"abcd"[..]).read_exact(&mut buf).await.unwrap(), 4);

        let mut full = [0u8; 2];
        let mut w = Cursor::new(&mut full[..]);
        let err = w.write_all(b"abc").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WriteZero);
        let mut w = Cursor::new(&mut full[..]);
        let err = w.write_u32(1).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WriteZero);
    });
}

#[test]
fn numbers_round_trip_in_both_byte_orders() {
    in_task(async {
        let mut w = Vec::new();
        w.write_u8(0xab).await.unwrap();
        w.write_i8(-2).await.unwrap();
        w.write_u16(0x0102).await.unwrap();
        w.write_i16_le(-3).await.unwrap();
        w.write_u32_le(0x01020304).await.unwrap();
        w.write_i32(-5).await.unwrap();
        w.write_u64(u64::MAX - 1).await.unwrap();
        w.write_i64_le(i64::MIN).await.unwrap();
        w.write_u128(u128::MAX / 3).await.unwrap();
        w.write_i128_le(-7).await.unwrap();
        w.write_f32(1.5).await.unwrap();
        w.write_f64_le(-2.25).await.unwrap();
        assert_eq!(&w[2..4], &[1, 2]);
        assert_eq!(&w[6..10], &[4, 3, 2, 1]);
        let mut r = &w[..];
        assert_eq!(r.read_u8().await.unwrap(), 0xab);
        assert_eq!(r.read_i8().await.unwrap(), -2);
        assert_eq!(r.read_u16().await.unwrap(), 0x0102);
        assert_eq!(r.read_i16_le().await.unwrap(), -3);
        assert_eq!(r.read_u32_le().await.unwrap(), 0x01020304);
        assert_eq!(r.read_i32().await.unwrap(), -5);
        assert_eq!(r.read_u64().await.unwrap(), u64::MAX - 1);
        assert_eq!(r.read_i64_le().await.unwrap(), i64::MIN);
        assert_eq!(r.read_u128().await.unwrap(), u128::MAX / 3);
        assert_eq!(r.read_i128_le().await.unwrap(), -7);
        assert_eq!(r.read_f32().await.unwrap(), 1.5);
        assert_eq!(r.read_f64_le().await.unwrap(), -2.25);
        assert!(r.is_empty());
    });
}

/// A reader over a byte string that counts its `poll_read` calls.
struct CountingReader {
    data: Cursor<Vec<u8>>,
    reads: Arc<AtomicUsize>,
}

impl AsyncRead for CountingReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        Pin::new(&mut self.data).poll_read(cx, buf)
    }
}

impl rt::io::AsyncSeek for CountingReader {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> std::io::Result<()> {
        Pin::new(&mut self.data).start_seek(pos)
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<u64>> {
        Pin::new(&mut self.data).poll_complete(cx)
    }
}

#[test]
fn buf_reader_serves_small_reads_from_its_buffer_and_bypasses_it_for_large_ones() {
    in_task(async {
        let reads = Arc::new(AtomicUsize::new(0));
        let inner = CountingReader {
            data: Cursor::new((0..100u8).collect()),
            reads: reads.clone(),
        };
        let mut r = BufReader::with_capacity(16, inner);
        let mut small = [0; 4];
        r.read_exact(&mut small).await.unwrap();
        assert_eq!(small, [0, 1, 2, 3]);
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        assert_eq!(r.buffer(), &(4..16u8).collect::<Vec<_>>()[..]);
        r.read_exact(&mut small).await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 1, "served from the buffer");

        // Seeking discards the buffer; `Current` counts from the logical position (8).
        assert_eq!(r.seek(SeekFrom::Current(2)).await.unwrap(), 10);
        assert!(r.buffer().is_empty());
        assert_eq!(r.read_u8().await.unwrap(), 10);
        assert_eq!(r.stream_position().await.unwrap(), 11);
        assert_eq!(r.seek(SeekFrom::End(-1)).await.unwrap(), 99);
        r.rewind().await.unwrap();

        // An empty buffer and a read at least its size: one read straight into the caller's.
        let before = reads.load(Ordering::SeqCst);
        let mut big = [0; 32];
        assert_eq!(r.read(&mut big).await.unwrap(), 32);
        assert_eq!(big[31], 31);
        assert_eq!(reads.load(Ordering::SeqCst), before + 1);
        assert!(r.buffer().is_empty());
    });
}

#[test]
fn buf_writer_holds_small_writes_until_flush_and_passes_large_ones() {
    in_task(async {
        let mut w = BufWriter::with_capacity(8, Vec::new());
        w.write_all(b"abc").await.unwrap();
        w.write_all(b"de").await.unwrap();
        assert!(w.get_ref().is_empty(), "nothing reaches the writer yet");
        assert_eq!(w.buffer(), b"abcde");
        // Would overflow: the buffer goes out first, then the new bytes are buffered.
        w.write_all(b"fghi").await.unwrap();
        assert_eq!(w.get_ref(), b"abcde");
        assert_eq!(w.buffer(), b"fghi");
        // At least the capacity: straight to the writer, after the buffer.
        w.write_all(b"0123456789").await.unwrap();
        assert_eq!(w.get_ref(), b"abcdefghi0123456789");
        assert!(w.buffer().is_empty());
        let bufs = [IoSlice::new(b"x"), IoSlice::new(b"yz")];
        assert_eq!(w.write_vectored(&bufs).await.unwrap(), 3);
        w.flush().await.unwrap();
        assert_eq!(w.into_inner(), b"abcdefghi0123456789xyz");

        // Seeking writes the buffer out first.
        let mut w = BufWriter::new(Cursor::new(Vec::new()));
        w.write_all(b"hello").await.unwrap();
        assert_eq!(w.seek(SeekFrom::Start(1)).await.unwrap(), 1);
        w.write_all(b"E").await.unwrap();
        w.shutdown().await.unwrap();
        assert_eq!(w.into_inner().into_inner(), b"hEllo");
    });
}

#[test]
fn buf_stream_buffers_both_ways() {
    in_task(async {
        let (a, mut b) = rt::io::duplex(64);
        let mut s = BufStream::new(a);
        s.write_all(b"ping\n").await.unwrap();
        let mut got = [0; 5];
        // Not flushed: the peer sees nothing until the flush.
        assert!(support::poll_once(&mut Box::pin(b.read_exact(&mut got))).is_pending());
        s.flush().await.unwrap();
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"ping\n");
        b.write_all(b"pong\n").await.unwrap();
        let mut line = String::new();
        s.read_line(&mut line).await.unwrap();
        assert_eq!(line, "pong\n");
    });
}

#[test]
fn cursor_and_file_seek() {
    in_task(async {
        let mut c = Cursor::new(b"0123456789".to_vec());
        assert_eq!(c.seek(SeekFrom::End(-3)).await.unwrap(), 7);
        assert_eq!(c.read_u8().await.unwrap(), b'7');
        assert_eq!(c.stream_position().await.unwrap(), 8);
        c.rewind().await.unwrap();
        assert_eq!(c.read_u8().await.unwrap(), b'0');

        let path = std::env::temp_dir().join(format!("rt-io-toolkit-{}", std::process::id()));
        let mut f = rt::fs::File::create(&path).await.unwrap();
        // A vectored write to a file takes every buffer.
        let bufs = [
            IoSlice::new(b"ab"),
            IoSlice::new(b"cd"),
            IoSlice::new(b"ef"),
        ];
        assert_eq!(f.write_vectored(&bufs).await.unwrap(), 6);
        f.flush().await.unwrap();
        assert_eq!(f.seek(SeekFrom::Start(2)).await.unwrap(), 2);
        f.write_all(b"XY").await.unwrap();
        f.rewind().await.unwrap();
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), b"abXYef");
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn split_join_simplex_take_chain() {
    in_task(async {
        let (a, mut b) = rt::io::duplex(64);
        let (mut r, mut w) = rt::io::split(a);
        assert!(r.is_pair_of(&w) && w.is_pair_of(&r));
        w.write_all(b"out").await.unwrap();
        let mut got = [0; 3];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"out");
        b.write_all(b"in").await.unwrap();
        let mut got = [0; 2];
        r.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"in");
        let (_, w2) = rt::io::split(rt::io::duplex(1).0);
        assert!(!r.is_pair_of(&w2));
        let _a: rt::io::DuplexStream = r.unsplit(w);

        let (mut sr, mut sw) = rt::io::simplex(4);
        let mut joined = rt::io::join(&b"read side"[..], Vec::new());
        joined.write_all(b"written").await.unwrap();
        let mut s = String::new();
        joined.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "read side");
        assert_eq!(joined.writer(), b"written");
        sw.write_all(b"abcd").await.unwrap();
        sw.shutdown().await.unwrap();
        let mut v = Vec::new();
        sr.read_to_end(&mut v).await.unwrap();
        assert_eq!(v, b"abcd");

        let mut t = (&b"0123456789"[..]).take(4);
        let mut v = Vec::new();
        t.read_to_end(&mut v).await.unwrap();
        assert_eq!(v, b"0123");
        assert_eq!(t.limit(), 0);
        let mut c = (&b"ab"[..]).chain(&b"cd"[..]);
        let mut s = String::new();
        c.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "abcd");
    });
}

#[test]
fn read_buf_tracks_filled_and_initialised_parts() {
    let mut storage = [std::mem::MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut storage);
    assert_eq!((buf.capacity(), buf.remaining()), (8, 8));
    assert!(buf.initialized().is_empty());
    buf.put_slice(b"ab");
    assert_eq!(buf.filled(), b"ab");
    assert_eq!(buf.initialize_unfilled_to(3), &[0, 0, 0]);
    assert_eq!(buf.initialized().len(), 5);
    buf.advance(1);
    assert_eq!(buf.filled(), b"ab\0");
    {
        let mut sub = buf.take(2);
        sub.put_slice(b"xy");
    }
    // What the sub-buffer filled is not reflected until advanced.
    assert_eq!(buf.filled().len(), 3);
    buf.clear();
    assert_eq!(buf.remaining(), 8);
    assert_eq!(
        buf.initialized().len(),
        5,
        "clearing keeps the initialised part"
    );
    let mut v = Vec::with_capacity(4);
    let n = in_task(async move {
        let n = (&b"xyz"[..]).read_buf(&mut v).await.unwrap();
        assert_eq!(v, b"xyz");
        n
    });
    assert_eq!(n, 3);
}

/// A reader that fails with `Interrupted` before each chunk of its data.
struct Interrupting {
    chunks: Vec<&'static [u8]>,
    interrupt_next: bool,
}

impl AsyncRead for Interrupting {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.chunks.is_empty() {
            return Poll::Ready(Ok(()));
        }
        let interrupt = self.interrupt_next;
        self.interrupt_next = !interrupt;
        if interrupt {
            return Poll::Ready(Err(ErrorKind::Interrupted.into()));
        }
        let chunk = self.chunks.remove(0);
        buf.put_slice(chunk);
        Poll::Ready(Ok(()))
    }
}

fn interrupting() -> Interrupting {
    Interrupting {
        chunks: vec![b"ab", b"cd", b"ef"],
        interrupt_next: true,
    }
}

#[test]
fn interrupted_reads_are_retried() {
    in_task(async {
        let mut buf = [0; 6];
        interrupting().read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"abcdef");
        let mut v = Vec::new();
        assert_eq!(interrupting().read_to_end(&mut v).await.unwrap(), 6);
        assert_eq!(v, b"abcdef");
        assert_eq!(interrupting().read_u16().await.unwrap(), 0x6162);
        let mut out = Vec::new();
        assert_eq!(
            rt::io::copy(&mut interrupting(), &mut out).await.unwrap(),
            6
        );
        assert_eq!(out, b"abcdef");
        let mut line = String::new();
        BufReader::new(interrupting())
            .read_line(&mut line)
            .await
            .unwrap();
        assert_eq!(line, "abcdef");
    });
}

#[test]
fn read_to_end_grows_only_when_the_data_does_not_fit() {
    in_task(async {
        // Exactly the capacity: a probe read finds the end, no reallocation.
        let data = [7u8; 40];
        let mut v = Vec::with_capacity(40);
        (&data[..]).read_to_end(&mut v).await.unwrap();
        assert_eq!((v.len(), v.capacity()), (40, 40));
        // More than the capacity: the vector grows and takes everything.
        let mut v = Vec::with_capacity(36);
        (&data[..]).read_to_end(&mut v).await.unwrap();
        assert_eq!(v, data);
        assert!(v.capacity() > 36);
    });
}

#[test]
#[should_panic(expected = "`a_to_b_buf_size` must be greater than 0")]
fn copy_bidirectional_rejects_a_zero_buffer() {
    let rt = support::current_thread();
    rt.block_on(async {
        let (mut a, mut b) = rt::io::duplex(8);
        let _ = rt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 0, 8).await;
    });
}
