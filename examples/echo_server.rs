//! A TCP echo server on rt: serves until killed.
//!
//! Run: `cargo run --release --example echo_server [ADDR]` (default 127.0.0.1:7878), then e.g.
//! `nc 127.0.0.1 7878`.

use std::io;

use rt::net::{TcpListener, TcpStream};

async fn echo(mut stream: TcpStream) -> io::Result<()> {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        stream.write_all(&buf[..n]).await?;
    }
}

fn main() -> io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:7878".to_string());
    let runtime = rt::Runtime::new()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(addr.as_str()).await?;
        println!("echo server listening on {}", listener.local_addr()?);
        loop {
            match listener.accept().await {
                Ok((stream, peer)) => {
                    stream.set_nodelay(true)?;
                    rt::spawn(async move {
                        if let Err(e) = echo(stream).await {
                            eprintln!("{peer}: {e}");
                        }
                    });
                }
                // Out of file descriptors, say: report it and keep serving the others.
                Err(e) => eprintln!("accept: {e}"),
            }
        }
    })
}
