//! The halves of a [`TcpStream`]: borrowed ([`ReadHalf`], [`WriteHalf`]) and owned
//! ([`OwnedReadHalf`], [`OwnedWriteHalf`]); defined by `net/halves.rs`.

use crate::net::tcp::TcpStream;

stream_halves!(TcpStream, std::net::SocketAddr);
