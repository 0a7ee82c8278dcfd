//! The halves of a [`TcpStream`]: borrowed ([`ReadHalf`], [`WriteHalf`]) and owned
//! ([`OwnedReadHalf`], [`OwnedWriteHalf`]); defined by `net/halves.rs`.

use crate::net::tcp::TcpStream;

stream_halves!(TcpStream, std::net::SocketAddr);

/// `peek` and `poll_peek` on the read halves, as tokio's: the stream's own, through the half.
macro_rules! half_peek {
    ([$($gen:tt)*] $ty:ty, $h:ident => $stream:expr) => {
        impl<$($gen)*> $ty {
            /// Reads into `buf` without removing the data from the socket, waiting until there
            /// is some ([`TcpStream::peek`]).
            ///
            /// # Cancel safety
            /// Cancel safe.
            pub async fn peek(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let $h = &*self;
                $stream.peek(buf).await
            }

            /// Polls peeking into `buf`'s unfilled part ([`TcpStream::poll_peek`]).
            pub fn poll_peek(
                &mut self,
                cx: &mut std::task::Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $h = &*self;
                $stream.poll_peek(cx, buf)
            }
        }
    };
}

half_peek!(['a] ReadHalf<'a>, h => h.0);
half_peek!([] OwnedReadHalf, h => h.inner);
