//! Networking: TCP, UDP and Unix-domain sockets, with tokio's types and methods.
//!
//! Every socket is non-blocking and registered with the reactor of the runtime it is created
//! in; creating one outside an rt runtime panics. Operations that wait spend the cooperative
//! budget. Addresses are anything implementing rt's sealed [`ToSocketAddrs`] (tokio's shape):
//! literal addresses are parsed without a lookup; a host name resolves on the runtime's blocking
//! pool, never on a worker, and `connect` tries each resolved address in turn.
//!
//! # Host names (`rt::net::lookup_host`)
//!
//! ```rust
//! let rt = rt::Runtime::new()?;
//! rt.block_on(async {
//!     let addrs: Vec<std::net::SocketAddr> = rt::net::lookup_host("localhost:8080").await?.collect();
//!     assert!(addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 8080));
//!     Ok::<(), std::io::Error>(())
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! `bind`/`connect`/`send_to` take rt's sealed `rt::net::ToSocketAddrs` (tokio's): literal
//! addresses resolve inline; a host name resolves on the runtime's blocking pool, never on a
//! worker, and `TcpStream::connect("host:port")` tries each address in turn (the last error if all
//! fail).
//!
//! # With the IO toolkit
//!
//!
//! `rt::io` is tokio's toolkit under tokio's names, working on rt's sockets:
//!
//! ```rust
//! use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
//! use rt::net::{TcpListener, TcpStream};
//!
//! # rt::Runtime::new()?.block_on(async {
//! let listener = TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! rt::spawn(async move {
//!     let (stream, _) = listener.accept().await?;
//!     let (reader, mut writer) = rt::io::split(stream);
//!     let mut lines = BufReader::new(reader).lines();
//!     while let Some(line) = lines.next_line().await? {
//!         writer.write_all(format!("{}\n", line.len()).as_bytes()).await?;
//!     }
//!     rt::io::Result::Ok(())
//! });
//! let mut stream = TcpStream::connect(addr).await?;
//! stream.write_all(b"hello\nrt\n").await?;
//! stream.shutdown().await?;
//! let mut answer = String::new();
//! stream.read_to_string(&mut answer).await?;
//! assert_eq!(answer, "5\n2\n");
//! # rt::io::Result::Ok(())
//! # })?;
//! # Ok::<(), std::io::Error>(())
//! ```

pub use rt_io::net::{
    lookup_host, TcpListener, TcpSocket, TcpStream, ToSocketAddrs, UdpSocket, UnixDatagram,
    UnixListener, UnixSocket, UnixStream,
};

/// TCP stream halves: [`TcpStream::split`] and [`TcpStream::into_split`].
pub mod tcp {
    pub use rt_io::net::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
}

/// Unix-domain sockets: stream halves, addresses and peer credentials, and pipes and FIFOs
/// ([`unix::pipe`]).
pub mod unix {
    pub use rt_io::net::unix::{
        pipe, OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, SocketAddr, UCred, WriteHalf,
    };
}
