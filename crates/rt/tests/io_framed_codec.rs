//! A `tokio-util` codec (`Framed` with `LinesCodec`) over an rt `TcpStream`: tokio's ecosystem
//! runs on rt's sockets unchanged, through tokio's IO traits.

mod support;

use futures_util::{SinkExt, StreamExt};
use rt::net::{TcpListener, TcpStream};
use tokio_util::codec::{Framed, LinesCodec};

#[test]
fn lines_codec_round_trip() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            // Server: answers each line with its upper-case form.
            let server = rt::spawn(async move {
                let (stream, _) = listener.accept().await.unwrap();
                let mut framed = Framed::new(stream, LinesCodec::new());
                let mut served = 0;
                while let Some(line) = framed.next().await {
                    framed.send(line.unwrap().to_uppercase()).await.unwrap();
                    served += 1;
                }
                served
            });
            let stream = TcpStream::connect(addr).await.unwrap();
            let mut framed = Framed::new(stream, LinesCodec::new());
            for word in ["alpha", "beta", "gamma"] {
                framed.send(word).await.unwrap();
                let reply = framed.next().await.unwrap().unwrap();
                assert_eq!(reply, word.to_uppercase());
            }
            drop(framed);
            assert_eq!(server.await.unwrap(), 3);
        })
    });
}
