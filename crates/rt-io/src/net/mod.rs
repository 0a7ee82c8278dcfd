//! Sockets on the reactor: TCP, UDP and Unix-domain, shaped like tokio's.
//!
//! Every socket is non-blocking and registered (edge-triggered) with the reactor of the runtime it
//! is created in; creating one outside an rt runtime panics. Operations that wait spend the
//! cooperative budget.
//!
//! Addresses are anything implementing [`std::net::ToSocketAddrs`]. Literal addresses
//! (`"127.0.0.1:8080"`, a `SocketAddr`, `(IpAddr, u16)`) are parsed without any lookup. A host
//! *name* is resolved with std's resolver (`getaddrinfo`), which blocks the calling worker for the
//! duration of the lookup: resolve names up front, or in `rt::spawn_blocking`, where that matters.

mod addr;
#[macro_use]
mod halves;
pub(crate) mod raw_socket;
pub mod tcp;
mod udp;
pub mod unix;

pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
pub use unix::{UnixDatagram, UnixListener, UnixStream};
