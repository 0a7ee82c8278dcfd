//! A hyper HTTP/1.1 client on rt. Without an address it starts a local server first and fetches
//! from it, so it runs on its own; with one (`http_hello`'s, say) it fetches from there.
//!
//! Run: `cargo run --release --example http_client [ADDR] [PATH]`.

use std::convert::Infallible;

use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::net::{TcpListener, TcpStream};
use rt_hyper::HyperIo;

async fn local(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let text = format!("hello from the local server, you asked for {}\n", req.uri());
    Ok(Response::new(Full::new(Bytes::from(text))))
}

#[rt::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let addr = match args.next() {
        Some(addr) => addr,
        None => {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let addr = listener.local_addr()?.to_string();
            rt::spawn(rt_hyper::serve(listener, service_fn(local)));
            addr
        }
    };
    let path = args.next().unwrap_or_else(|| "/".to_string());

    let stream = TcpStream::connect(addr.as_str()).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(HyperIo::new(stream)).await?;
    rt::spawn(async move {
        if let Err(e) = conn.await {
            eprintln!("connection error: {e}");
        }
    });

    let req = Request::get(path.as_str())
        .header("host", addr.as_str())
        .body(Empty::<Bytes>::new())?;
    let resp = sender.send_request(req).await?;
    println!("{} {:?}", resp.status(), resp.version());
    let body = resp.into_body().collect().await?.to_bytes();
    print!("{}", String::from_utf8_lossy(&body));
    Ok(())
}
