//! Unix-domain sockets: [`UnixListener`], [`UnixStream`], [`UnixDatagram`].

mod datagram;
mod listener;
mod split;
mod stream;
mod ucred;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
pub use ucred::UCred;
