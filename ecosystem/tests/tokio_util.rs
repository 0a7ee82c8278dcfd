//! tokio-util on rt: codecs over a TCP stream, `DelayQueue`, `TaskTracker`, `CancellationToken`.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Framed, LinesCodec};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tokio_util::time::DelayQueue;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_codec_echo_over_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut framed = Framed::new(stream, LinesCodec::new());
        while let Some(line) = framed.next().await {
            let line = line.unwrap();
            framed.send(line.to_uppercase()).await.unwrap();
        }
    });
    let mut client = Framed::new(TcpStream::connect(addr).await.unwrap(), LinesCodec::new());
    for word in ["one", "two", "three"] {
        client.send(word).await.unwrap();
        assert_eq!(client.next().await.unwrap().unwrap(), word.to_uppercase());
    }
    drop(client);
    server.await.unwrap();
    assert!(rt_ecosystem::rt_spawned_tasks() >= 1);
}

#[tokio::test(start_paused = true)]
async fn delay_queue_yields_in_deadline_order() {
    let mut queue = DelayQueue::new();
    queue.insert("late", Duration::from_secs(3));
    let early = queue.insert("early", Duration::from_secs(1));
    queue.insert("middle", Duration::from_secs(2));
    queue.reset(&early, Duration::from_millis(500));
    let start = tokio::time::Instant::now();
    let mut order = Vec::new();
    while let Some(expired) = queue.next().await {
        order.push((expired.into_inner(), start.elapsed()));
    }
    assert_eq!(
        order,
        [
            ("early", Duration::from_millis(500)),
            ("middle", Duration::from_secs(2)),
            ("late", Duration::from_secs(3)),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_tracker_waits_for_its_tasks_and_token_cancels_them() {
    let tracker = TaskTracker::new();
    let token = CancellationToken::new();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for i in 0..8 {
        let token = token.clone();
        let tx = tx.clone();
        tracker.spawn(async move {
            tokio::select! {
                _ = token.cancelled() => tx.send(i).unwrap(),
                _ = tokio::time::sleep(Duration::from_secs(3600)) => unreachable!(),
            }
        });
    }
    tracker.close();
    assert_eq!(tracker.len(), 8);
    token.cancel();
    tracker.wait().await;
    drop(tx);
    let mut seen = Vec::new();
    while let Some(i) = rx.recv().await {
        seen.push(i);
    }
    seen.sort();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
    assert!(rt_ecosystem::rt_spawned_tasks() >= 8);
}
