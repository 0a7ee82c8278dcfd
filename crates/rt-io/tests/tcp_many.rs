//! Many concurrent connections through one reactor: 200 clients, each echoing 20 messages.

mod support;

use rt_io::net::{TcpListener, TcpStream};
use support::{run, spawn};

const CONNECTIONS: usize = 200;
const MESSAGES: usize = 20;

#[test]
fn two_hundred_concurrent_connections() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = spawn(async move {
            let mut conns = Vec::new();
            for _ in 0..CONNECTIONS {
                let (mut s, _) = listener.accept().await.unwrap();
                conns.push(spawn(async move {
                    let mut buf = [0u8; 64];
                    let mut echoed = 0;
                    loop {
                        let n = s.read(&mut buf).await.unwrap();
                        if n == 0 {
                            return echoed;
                        }
                        s.write_all(&buf[..n]).await.unwrap();
                        echoed += n;
                    }
                }));
            }
            let mut total = 0;
            for c in conns {
                total += c.await;
            }
            total
        });

        let clients: Vec<_> = (0..CONNECTIONS)
            .map(|id| {
                spawn(async move {
                    let mut c = TcpStream::connect(addr).await.unwrap();
                    c.set_nodelay(true).unwrap();
                    for m in 0..MESSAGES {
                        let msg = [(id + m) as u8; 64];
                        c.write_all(&msg).await.unwrap();
                        let mut back = [0u8; 64];
                        c.read_exact(&mut back).await.unwrap();
                        assert_eq!(back, msg, "connection {id} message {m}");
                    }
                })
            })
            .collect();
        for c in clients {
            c.await;
        }
        assert_eq!(server.await, CONNECTIONS * MESSAGES * 64);
    });
}
