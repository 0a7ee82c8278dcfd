//! The halves of a [`TcpStream`]: borrowed ([`ReadHalf`], [`WriteHalf`]) and owned
//! ([`OwnedReadHalf`], [`OwnedWriteHalf`]).
//!
//! Reader and writer use separate waker slots of the registration, so a task blocked reading and
//! another blocked writing never displace each other's wakers.

use std::io;
use std::net::SocketAddr;

use rt_core::sync::Arc;

use crate::net::tcp::TcpStream;

/// The read half of [`TcpStream::split`].
#[derive(Debug)]
pub struct ReadHalf<'a>(&'a TcpStream);

/// The write half of [`TcpStream::split`].
#[derive(Debug)]
pub struct WriteHalf<'a>(&'a TcpStream);

/// The read half of [`TcpStream::into_split`].
#[derive(Debug)]
pub struct OwnedReadHalf {
    inner: Arc<TcpStream>,
}

/// The write half of [`TcpStream::into_split`]. Dropping it shuts down the write side (the peer
/// reads end-of-stream), as in tokio.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    inner: Arc<TcpStream>,
}

pub(crate) fn borrowed(s: &mut TcpStream) -> (ReadHalf<'_>, WriteHalf<'_>) {
    (ReadHalf(s), WriteHalf(s))
}

pub(crate) fn owned(s: Arc<TcpStream>) -> (OwnedReadHalf, OwnedWriteHalf) {
    (
        OwnedReadHalf { inner: s.clone() },
        OwnedWriteHalf { inner: s },
    )
}

macro_rules! half_addrs {
    ([$($gen:tt)*] $ty:ty, $s:ident => $stream:expr) => {
        impl<$($gen)*> $ty {
            /// The remote address.
            pub fn peer_addr(&self) -> io::Result<SocketAddr> {
                let $s = self;
                $stream.peer_addr()
            }

            /// The local address.
            pub fn local_addr(&self) -> io::Result<SocketAddr> {
                let $s = self;
                $stream.local_addr()
            }
        }
    };
}

half_addrs!(['a] ReadHalf<'a>, h => h.0);
half_addrs!(['a] WriteHalf<'a>, h => h.0);
half_addrs!([] OwnedReadHalf, h => &*h.inner);
half_addrs!([] OwnedWriteHalf, h => &*h.inner);

impl_stream_read!(['a] ReadHalf<'a>, h => h.0);
impl_stream_write!(['a] WriteHalf<'a>, h => h.0);
impl_stream_read!([] OwnedReadHalf, h => &*h.inner);
impl_stream_write!([] OwnedWriteHalf, h => &*h.inner);

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        // Fails only if the connection is already gone.
        let _ = self.inner.shutdown_write_priv();
    }
}
