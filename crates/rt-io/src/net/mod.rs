//! Sockets on the reactor: TCP, UDP and Unix-domain, shaped like tokio's.
//!
//! Every socket is non-blocking and registered (edge-triggered) with the reactor of the runtime it
//! is created in; creating one outside an rt runtime panics. Operations that wait spend the
//! cooperative budget.
//!
//! Addresses are anything implementing rt's sealed [`ToSocketAddrs`] (tokio's shape). Literal
//! addresses (`"127.0.0.1:8080"`, a `SocketAddr`, `(IpAddr, u16)`, `&[SocketAddr]`) are parsed
//! without any lookup. A host *name* (`"localhost:80"`, `("localhost", 80)`) is resolved with
//! std's resolver (`getaddrinfo`) on the runtime's blocking pool, never on a worker; `connect`
//! tries each resolved address in turn and returns the last error; [`lookup_host`] gives the
//! addresses themselves.

mod addr;
#[cfg(feature = "test-hooks")]
pub use addr::TestResolver;
pub use addr::{lookup_host, ToSocketAddrs};
#[macro_use]
mod halves;
mod conv;
pub(crate) mod raw_socket;
pub mod tcp;
mod udp;
pub mod unix;
mod unwind;

pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
pub use unix::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
