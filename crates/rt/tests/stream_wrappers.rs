//! `rt::stream`: tokio-stream's wrappers — listeners as streams of connections, an interval as a
//! stream of ticks, broadcast (with `Lagged`) and watch receivers as streams of values.

mod support;

use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;
use rt::io::AsyncReadExt;
use rt::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use rt::stream::{
    BroadcastStream, BroadcastStreamRecvError, IntervalStream, TcpListenerStream,
    UnixListenerStream, WatchStream,
};

async fn next<S: Stream + Unpin>(s: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| Pin::new(&mut *s).poll_next(cx)).await
}

#[test]
fn listener_streams_yield_connections() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut incoming = TcpListenerStream::new(listener);
            for i in 0..3u8 {
                let client = rt::spawn(async move {
                    let mut s = TcpStream::connect(addr).await.unwrap();
                    s.write_all(&[i]).await.unwrap();
                });
                let mut conn = next(&mut incoming).await.unwrap().unwrap();
                assert_eq!(conn.read_u8().await.unwrap(), i);
                client.await.unwrap();
            }

            let path = std::env::temp_dir().join(format!("rt-stream-{}", std::process::id()));
            let _ = std::fs::remove_file(&path);
            let mut incoming = UnixListenerStream::new(UnixListener::bind(&path).unwrap());
            let p = path.clone();
            let client = rt::spawn(async move {
                let mut s = UnixStream::connect(&p).await.unwrap();
                s.write_all(b"u").await.unwrap();
            });
            let mut conn = next(&mut incoming).await.unwrap().unwrap();
            assert_eq!(conn.read_u8().await.unwrap(), b'u');
            client.await.unwrap();
            std::fs::remove_file(&path).unwrap();
        })
    });
}

#[test]
fn interval_stream_ticks_in_order() {
    support::deadline(|| {
        support::current_thread().block_on(async {
            let mut ticks = IntervalStream::new(rt::time::interval(Duration::from_millis(2)));
            let first = next(&mut ticks).await.unwrap();
            let second = next(&mut ticks).await.unwrap();
            let third = next(&mut ticks).await.unwrap();
            assert_eq!(second - first, Duration::from_millis(2));
            assert_eq!(third - second, Duration::from_millis(2));
        })
    });
}

#[test]
fn broadcast_stream_reports_lag_then_ends() {
    support::deadline(|| {
        support::current_thread().block_on(async {
            let (tx, rx) = rt::sync::broadcast::channel(2);
            let mut values = BroadcastStream::new(rx);
            for v in 0..5 {
                tx.send(v).unwrap();
            }
            drop(tx);
            assert_eq!(
                next(&mut values).await,
                Some(Err(BroadcastStreamRecvError::Lagged(3)))
            );
            assert_eq!(next(&mut values).await, Some(Ok(3)));
            assert_eq!(next(&mut values).await, Some(Ok(4)));
            assert_eq!(next(&mut values).await, None);
            assert_eq!(next(&mut values).await, None);
        })
    });
}

#[test]
fn watch_stream_yields_current_then_changes() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let (tx, rx) = rt::sync::watch::channel("a");
            let mut all = WatchStream::new(rx.clone());
            let mut changes = WatchStream::from_changes(rx);
            assert_eq!(next(&mut all).await, Some("a"));
            let sender = rt::spawn(async move {
                tx.send("b").unwrap();
                tx
            });
            assert_eq!(next(&mut all).await, Some("b"));
            assert_eq!(next(&mut changes).await, Some("b"));
            drop(sender.await.unwrap());
            assert_eq!(next(&mut all).await, None);
            assert_eq!(next(&mut changes).await, None);
        })
    });
}
