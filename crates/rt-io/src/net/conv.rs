//! Conversions every socket type has, as tokio's: `TryFrom` the matching std socket (the same
//! as `from_std`) and `AsFd` (a borrow of the descriptor, for APIs that take `impl AsFd`).

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use super::{TcpListener, TcpSocket, TcpStream, UdpSocket, UnixDatagram, UnixListener, UnixStream};

macro_rules! try_from_std {
    ($($std:ty => $ours:ty),* $(,)?) => {
        $(
            impl TryFrom<$std> for $ours {
                type Error = io::Error;

                #[doc = concat!("[`", stringify!($ours), "::from_std`]: the socket must be in non-blocking mode.")]
                fn try_from(socket: $std) -> io::Result<$ours> {
                    <$ours>::from_std(socket)
                }
            }
        )*
    };
}

try_from_std!(
    std::net::TcpStream => TcpStream,
    std::net::TcpListener => TcpListener,
    std::net::UdpSocket => UdpSocket,
    std::os::unix::net::UnixStream => UnixStream,
    std::os::unix::net::UnixListener => UnixListener,
    std::os::unix::net::UnixDatagram => UnixDatagram,
);

macro_rules! as_fd {
    ($($ty:ty),*) => {
        $(
            impl AsFd for $ty {
                fn as_fd(&self) -> BorrowedFd<'_> {
                    // SAFETY: the descriptor belongs to `self` and stays open while `self` is
                    // borrowed, which bounds the returned `BorrowedFd`.
                    unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
                }
            }
        )*
    };
}

as_fd!(
    TcpListener,
    TcpSocket,
    TcpStream,
    UdpSocket,
    UnixDatagram,
    UnixListener,
    UnixStream
);
