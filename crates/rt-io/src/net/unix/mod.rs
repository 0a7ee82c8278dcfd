//! Unix-domain sockets: [`UnixListener`], [`UnixStream`], [`UnixDatagram`], [`UnixSocket`]
//! (an unbound socket, to bind before it listens or connects).

mod datagram;
mod listener;
pub mod pipe;
mod socket;
mod split;
mod stream;
mod ucred;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use socket::UnixSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
pub use ucred::UCred;

/// The abstract-socket address `path` names, if it starts with a NUL byte (Linux's abstract
/// namespace: the rest of the path is the name, and no file is involved); `None` for a path
/// of the file system.
fn abstract_addr(path: &std::path::Path) -> std::io::Result<Option<SocketAddr>> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::ffi::OsStrExt;
    match path.as_os_str().as_bytes().strip_prefix(b"\0") {
        Some(name) => SocketAddr::from_abstract_name(name).map(Some),
        None => Ok(None),
    }
}
