//! The halves of a stream socket, written once for [`TcpStream`](super::TcpStream) and
//! [`UnixStream`](super::UnixStream): borrowed (`ReadHalf`, `WriteHalf`) and owned
//! (`OwnedReadHalf`, `OwnedWriteHalf`).
//!
//! Reader and writer use separate waker slots of the registration, so a task blocked reading and
//! another blocked writing never displace each other's wakers.

/// `peer_addr` and `local_addr` for a half, forwarded to its stream.
macro_rules! half_addrs {
    ([$($gen:tt)*] $ty:ty, $addr:ty, $s:ident => $stream:expr) => {
        impl<$($gen)*> $ty {
            /// The remote address.
            pub fn peer_addr(&self) -> std::io::Result<$addr> {
                let $s = self;
                $stream.peer_addr()
            }

            /// The local address.
            pub fn local_addr(&self) -> std::io::Result<$addr> {
                let $s = self;
                $stream.local_addr()
            }
        }
    };
}

/// Defines the four half types for `$stream` (whose addresses are `$addr`) in the calling module,
/// with `borrowed` and `owned` constructors for the stream's `split` and `into_split`.
macro_rules! stream_halves {
    ($stream:ident, $addr:ty) => {
        use rt_core::sync::Arc;

        #[doc = concat!("The read half of [`", stringify!($stream), "::split`].")]
        #[derive(Debug)]
        pub struct ReadHalf<'a>(&'a $stream);

        #[doc = concat!("The write half of [`", stringify!($stream), "::split`].")]
        #[derive(Debug)]
        pub struct WriteHalf<'a>(&'a $stream);

        #[doc = concat!("The read half of [`", stringify!($stream), "::into_split`].")]
        #[derive(Debug)]
        pub struct OwnedReadHalf {
            inner: Arc<$stream>,
        }

        #[doc = concat!("The write half of [`", stringify!($stream), "::into_split`]. ")]
        /// Dropping it shuts down the write side (the peer reads end-of-stream), as in tokio.
        #[derive(Debug)]
        pub struct OwnedWriteHalf {
            inner: Arc<$stream>,
            /// Cleared by `forget` and `reunite`: the write side stays open.
            shutdown_on_drop: bool,
        }

        #[doc = concat!("`reunite` was given halves of two different [`", stringify!($stream), "`]s; they come back.")]
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("tried to reunite halves that are not from the same socket")
            }
        }

        impl std::error::Error for ReuniteError {}

        /// Both halves of one stream back into the stream (the write half's drop does not shut
        /// the write side), or both back in the error.
        fn reunite(
            read: OwnedReadHalf,
            mut write: OwnedWriteHalf,
        ) -> Result<$stream, ReuniteError> {
            if !Arc::ptr_eq(&read.inner, &write.inner) {
                return Err(ReuniteError(read, write));
            }
            write.shutdown_on_drop = false;
            drop(write);
            Ok(Arc::try_unwrap(read.inner)
                .unwrap_or_else(|_| unreachable!("only the two halves hold the stream")))
        }

        impl OwnedReadHalf {
            #[doc = concat!("Puts the halves back together into the [`", stringify!($stream), "`] they were split from; fails, returning both, if `other` is not this one's other half.")]
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
                reunite(self, other)
            }
        }

        impl OwnedWriteHalf {
            #[doc = concat!("Puts the halves back together into the [`", stringify!($stream), "`] they were split from; fails, returning both, if `other` is not this one's other half.")]
            pub fn reunite(self, other: OwnedReadHalf) -> Result<$stream, ReuniteError> {
                reunite(other, self)
            }

            /// Drops the write half without shutting the write side (tokio's `forget`): the
            /// peer sees end-of-stream only when the read half is dropped too.
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
            }
        }

        pub(crate) fn borrowed(s: &mut $stream) -> (ReadHalf<'_>, WriteHalf<'_>) {
            (ReadHalf(s), WriteHalf(s))
        }

        pub(crate) fn owned(s: Arc<$stream>) -> (OwnedReadHalf, OwnedWriteHalf) {
            (
                OwnedReadHalf { inner: s.clone() },
                OwnedWriteHalf {
                    inner: s,
                    shutdown_on_drop: true,
                },
            )
        }

        half_addrs!(['a] ReadHalf<'a>, $addr, h => h.0);
        half_addrs!(['a] WriteHalf<'a>, $addr, h => h.0);
        half_addrs!([] OwnedReadHalf, $addr, h => &*h.inner);
        half_addrs!([] OwnedWriteHalf, $addr, h => &*h.inner);

        impl_stream_read!(['a] ReadHalf<'a>, h => h.0);
        impl_stream_write!(['a] WriteHalf<'a>, h => h.0);
        impl_stream_read!([] OwnedReadHalf, h => &*h.inner);
        impl_stream_write!([] OwnedWriteHalf, h => &*h.inner);

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if !self.shutdown_on_drop {
                    return;
                }
                // Fails only if the connection is already gone.
                let _ = self.inner.shutdown_write_priv();
            }
        }
    };
}
