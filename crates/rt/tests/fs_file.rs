//! `rt::fs::File` with tokio's buffering: write + flush + seek + read through rt's IO traits and
//! futures-io's, a read-ahead given back before a write, `set_len`, `sync_all`/`sync_data`,
//! `metadata`, `into_std`/`from_std`.

mod fs_support;
mod support;

use std::io::SeekFrom;

use fs_support::Scratch;
use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

#[test]
fn write_flush_seek_read() {
    for (name, rt) in support::runtimes() {
        let dir = Scratch::new(&format!("fs-file-{name}"));
        let path = dir.join("f");
        rt.block_on(async {
            let mut f = rt::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            f.write_all(b"hello ").await.unwrap();
            f.write_all(b"world").await.unwrap();
            f.flush().await.unwrap();
            // The writes reached the file: another handle sees them.
            assert_eq!(std::fs::read(&path).unwrap(), b"hello world", "{name}");

            assert_eq!(f.seek(SeekFrom::Start(6)).await.unwrap(), 6);
            let mut s = String::new();
            f.read_to_string(&mut s).await.unwrap();
            assert_eq!(s, "world");

            // A read fetches ahead; a write after it goes where the caller left off.
            f.seek(SeekFrom::Start(0)).await.unwrap();
            let mut two = [0u8; 2];
            f.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"he");
            f.write_all(b"XY").await.unwrap();
            f.flush().await.unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"heXYo world");
            // And a relative seek counts from there too.
            f.seek(SeekFrom::Start(1)).await.unwrap();
            f.read_exact(&mut two).await.unwrap();
            assert_eq!(f.seek(SeekFrom::Current(1)).await.unwrap(), 4);
            let mut one = [0u8; 1];
            f.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"o");

            f.sync_all().await.unwrap();
            f.sync_data().await.unwrap();
            assert_eq!(f.metadata().await.unwrap().len(), 11);

            let std = f.into_std().await;
            let mut f = rt::fs::File::from_std(std);
            // `into_std` kept the position: right after the "o".
            let mut rest = String::new();
            f.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, " world");
        });
    }
}

#[test]
fn set_len_truncates_and_extends() {
    for (name, rt) in support::runtimes() {
        let dir = Scratch::new(&format!("fs-set-len-{name}"));
        let path = dir.join("f");
        rt.block_on(async {
            let mut f = rt::fs::File::create(&path).await.unwrap();
            f.write_all(&[7u8; 1000]).await.unwrap();
            // The write is still in flight: set_len waits for it, then truncates.
            f.set_len(10).await.unwrap();
            assert_eq!(f.metadata().await.unwrap().len(), 10, "{name}");
            f.set_len(4096).await.unwrap();
            let data = rt::fs::read(&path).await.unwrap();
            assert_eq!(data.len(), 4096);
            assert!(data[..10].iter().all(|&b| b == 7));
            assert!(data[10..].iter().all(|&b| b == 0));
        });
    }
}

#[test]
fn futures_io_traits() {
    use futures_io::{AsyncRead, AsyncSeek, AsyncWrite};
    use std::future::poll_fn;
    use std::pin::Pin;

    let rt = support::multi_thread(2);
    let dir = Scratch::new("fs-file-futures-io");
    let path = dir.join("f");
    rt.block_on(async {
        let mut f = rt::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .await
            .unwrap();
        let n = poll_fn(|cx| Pin::new(&mut f).poll_write(cx, b"abcdef"))
            .await
            .unwrap();
        assert_eq!(n, 6);
        poll_fn(|cx| Pin::new(&mut f).poll_flush(cx)).await.unwrap();
        let pos = poll_fn(|cx| Pin::new(&mut f).poll_seek(cx, SeekFrom::Start(2)))
            .await
            .unwrap();
        assert_eq!(pos, 2);
        let mut buf = [0u8; 16];
        let n = poll_fn(|cx| Pin::new(&mut f).poll_read(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"cdef");
        poll_fn(|cx| Pin::new(&mut f).poll_close(cx)).await.unwrap();
    });
}

#[test]
fn a_write_error_surfaces_at_the_next_call() {
    let rt = support::current_thread();
    let dir = Scratch::new("fs-file-write-error");
    let path = dir.join("f");
    std::fs::write(&path, b"x").unwrap();
    rt.block_on(async {
        // Opened read-only: the write is accepted into the buffer, fails on the pool, and the
        // failure comes back from flush.
        let mut f = rt::fs::File::open(&path).await.unwrap();
        assert_eq!(f.write(b"abc").await.unwrap(), 3);
        let err = f.flush().await.unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EBADF));
        // Reported once.
        f.flush().await.unwrap();
    });
}
