//! tokio-tungstenite on rt: `accept_async` and `connect_async`, an echo over loopback.

use futures::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_echo() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
        while let Some(message) = ws.next().await {
            let message = message.unwrap();
            if message.is_close() {
                break;
            }
            ws.send(message).await.unwrap();
        }
    });
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/echo"))
        .await
        .unwrap();
    for text in ["one", "two"] {
        ws.send(Message::text(text)).await.unwrap();
        assert_eq!(ws.next().await.unwrap().unwrap(), Message::text(text));
    }
    ws.close(None).await.unwrap();
    server.await.unwrap();
}
