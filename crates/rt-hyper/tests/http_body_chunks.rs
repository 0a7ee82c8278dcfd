//! A response body streamed in chunks through hyper on rt: each chunk reaches the client while
//! the server still holds back the next one (the client's acknowledgement releases it), so the
//! body really travels piece by piece, not buffered whole.

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use std::convert::Infallible;

use futures_util::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};

const CHUNKS: usize = 4;

#[test]
fn response_body_arrives_chunk_by_chunk() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            // The client acknowledges each chunk on `ack`; the server sends the next one only
            // after that.
            let (ack_tx, ack_rx) = rt::sync::channel::unbounded::<()>();
            let service = service_fn(move |_req: Request<Incoming>| {
                let ack_rx = ack_rx.clone();
                async move {
                    let (tx, rx) = rt::sync::channel::bounded::<Bytes>(1);
                    drop(rt::spawn(async move {
                        for i in 0..CHUNKS {
                            tx.send(Bytes::from(format!("chunk{i};"))).await.unwrap();
                            if i + 1 < CHUNKS {
                                ack_rx.recv().await.unwrap();
                            }
                        }
                    }));
                    let body = StreamBody::new(rx.map(|b| Ok::<_, Infallible>(Frame::data(b))));
                    Ok::<_, Infallible>(Response::new(body))
                }
            });
            let addr = http_support::start(service).await;
            let mut client = http_support::http1_client(addr).await;
            let resp = client
                .send_request(http_support::get("/stream"))
                .await
                .unwrap();
            let mut body = resp.into_body();
            let mut got = String::new();
            let mut frames = 0;
            while let Some(frame) = body.frame().await {
                let data = frame.unwrap().into_data().unwrap();
                got.push_str(std::str::from_utf8(&data).unwrap());
                frames += 1;
                // Release the next chunk only now: had the server needed the whole body before
                // sending, this would deadlock (and the deadline fail the test).
                ack_tx.send(()).await.unwrap();
            }
            assert_eq!(frames, CHUNKS, "one frame per chunk");
            let want: String = (0..CHUNKS).map(|i| format!("chunk{i};")).collect();
            assert_eq!(got, want);
        })
    });
}
