//! The halves of a [`UnixStream`]: borrowed ([`ReadHalf`], [`WriteHalf`]) and owned
//! ([`OwnedReadHalf`], [`OwnedWriteHalf`]); defined by `net/halves.rs`.

use crate::net::unix::UnixStream;

stream_halves!(UnixStream, std::os::unix::net::SocketAddr);
