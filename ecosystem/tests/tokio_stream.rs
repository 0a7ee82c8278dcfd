//! tokio-stream on rt: the wrappers and `StreamMap`.

use std::time::Duration;

use tokio_stream::wrappers::{IntervalStream, ReceiverStream, TcpListenerStream, WatchStream};
use tokio_stream::{StreamExt, StreamMap};

#[tokio::test(start_paused = true)]
async fn interval_and_channel_wrappers() {
    let ticks = IntervalStream::new(tokio::time::interval(Duration::from_millis(10)));
    assert_eq!(ticks.take(3).collect::<Vec<_>>().await.len(), 3);

    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tokio::spawn(async move {
        for i in 0..3 {
            tx.send(i).await.unwrap();
        }
    });
    assert_eq!(ReceiverStream::new(rx).collect::<Vec<_>>().await, [0, 1, 2]);

    let (wtx, wrx) = tokio::sync::watch::channel(1);
    let mut values = WatchStream::new(wrx);
    assert_eq!(values.next().await, Some(1));
    wtx.send(2).unwrap();
    assert_eq!(values.next().await, Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_map_and_listener_stream() {
    let mut map = StreamMap::new();
    map.insert("a", tokio_stream::iter(vec![1, 2]));
    map.insert("b", tokio_stream::iter(vec![10]));
    let mut got = map.collect::<Vec<_>>().await;
    got.sort();
    assert_eq!(got, [("a", 1), ("a", 2), ("b", 10)]);

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut incoming = TcpListenerStream::new(listener);
    let connect = tokio::spawn(tokio::net::TcpStream::connect(addr));
    let accepted = incoming.next().await.unwrap().unwrap();
    let connected = connect.await.unwrap().unwrap();
    assert_eq!(
        accepted.peer_addr().unwrap(),
        connected.local_addr().unwrap()
    );
}
