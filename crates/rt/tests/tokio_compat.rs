//! `rt::compat::tokio`: futures that need tokio's reactor and timers (`tokio::net`,
//! `tokio::time`) run inside rt tasks, on rt's workers, wrapped in `Compat` / `.compat()`.

mod support;

use std::time::{Duration, Instant};

use rt::compat::tokio::{Compat, CompatExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn tokio_net_and_time_inside_rt_tasks() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            // A tokio listener (tokio's reactor) serving from an rt task.
            let listener =
                Compat::new(async { tokio::net::TcpListener::bind("127.0.0.1:0").await })
                    .await
                    .unwrap();
            let addr = listener.local_addr().unwrap();
            let server = rt::spawn(
                async move {
                    let (mut s, _) = listener.accept().await.unwrap();
                    let mut buf = [0u8; 4];
                    s.read_exact(&mut buf).await.unwrap();
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    s.write_all(&buf).await.unwrap();
                }
                .compat(),
            );
            // A tokio client, with a tokio timer, in another rt task.
            let client = rt::spawn(
                async move {
                    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
                    s.write_all(b"ping").await.unwrap();
                    let mut buf = [0u8; 4];
                    s.read_exact(&mut buf).await.unwrap();
                    let start = Instant::now();
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    (buf, start.elapsed())
                }
                .compat(),
            );
            let (buf, slept) = client.await.unwrap();
            server.await.unwrap();
            assert_eq!(&buf, b"ping");
            assert!(
                slept >= Duration::from_millis(10),
                "tokio's sleep ended early"
            );
        })
    });
}

#[test]
fn tokio_timeout_inside_rt_task() {
    support::deadline(|| {
        support::current_thread().block_on(async {
            // The tokio timer is created inside the compat context, by the async block.
            let r = async {
                tokio::time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await
            }
            .compat()
            .await;
            assert!(r.is_err(), "tokio's timeout fired on rt");
        })
    });
}
