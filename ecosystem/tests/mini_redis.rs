//! The `mini-redis` crate (tokio's example service) on rt: its server and its async and
//! blocking clients, unmodified.

use std::time::Duration;

use bytes::Bytes;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_and_client() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(mini_redis::server::run(listener, stop_rx));

    let mut client = mini_redis::client::connect(addr).await.unwrap();
    client.set("hello", Bytes::from("world")).await.unwrap();
    assert_eq!(
        client.get("hello").await.unwrap().as_deref(),
        Some(&b"world"[..])
    );
    client
        .set_expires("brief", Bytes::from("x"), Duration::from_millis(50))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(client.get("brief").await.unwrap(), None);

    let subscriber = mini_redis::client::connect(addr).await.unwrap();
    let mut subscriber = subscriber.subscribe(vec!["news".into()]).await.unwrap();
    assert_eq!(client.publish("news", Bytes::from("rt")).await.unwrap(), 1);
    let message = subscriber.next_message().await.unwrap().unwrap();
    assert_eq!(
        (message.channel.as_str(), &message.content[..]),
        ("news", &b"rt"[..])
    );

    // The blocking client runs its own runtime on this thread: rt's, under the patch.
    let got = tokio::task::spawn_blocking(move || {
        let mut blocking = mini_redis::blocking_client::connect(addr).unwrap();
        blocking.get("hello").unwrap()
    })
    .await
    .unwrap();
    assert_eq!(got.as_deref(), Some(&b"world"[..]));

    drop(stop_tx);
    server.await.unwrap().unwrap();
    assert!(rt_ecosystem::rt_spawned_tasks() >= 3);
}
