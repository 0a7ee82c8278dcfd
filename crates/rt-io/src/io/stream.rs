//! The byte-stream methods every stream type shares (`TcpStream`, `UnixStream` and the halves),
//! written once as two macros over a type's way of reaching its underlying stream.
//!
//! `impl_stream_read!([generics] Type, s => expr)` gives `Type` the inherent async `read` and
//! `read_exact` and implements both `futures_io::AsyncRead` and rt's own `crate::io::AsyncRead`;
//! `impl_stream_write!` gives `write`, `write_all`, `flush`, `shutdown` and both
//! `futures_io::AsyncWrite` and `crate::io::AsyncWrite`, so code generic over either family of
//! traits takes an rt stream. `expr` names, in terms of
//! `s: &Type`, a stream with the crate-private `poll_read_priv` / `poll_write_priv` /
//! `poll_write_vectored_priv` / `shutdown_write_priv` methods. A vectored write is one syscall
//! (`is_write_vectored` is true, as for tokio's sockets): a `send` from one buffer when the
//! slices add up to at most 4 KiB (`raw_socket::send_vectored`), else a `writev`.
//!
//! Two more macros give the socket types their shared non-stream methods:
//! `impl_socket_readiness!(Type)` (`ready`, `readable`, `writable`, `try_io`, `async_io`, for
//! `TcpStream`, `UnixStream` and `UdpSocket`) and `impl_stream_try_rw!(Type)` (`try_read`,
//! `try_write` and their vectored forms, for the two stream types).

macro_rules! impl_stream_read {
    ([$($gen:tt)*] $ty:ty, $s:ident => $stream:expr) => {
        impl<$($gen)*> $ty {
            /// Reads into `buf`, waiting until some data is available. Returns the number of bytes
            /// read; 0 means the peer closed its write side (or `buf` is empty).
            ///
            /// # Cancel safety
            /// Cancel safe: if dropped before it completes, no data was read.
            pub async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let $s = &*self;
                let stream = $stream;
                std::future::poll_fn(|cx| stream.poll_read_priv(cx, buf)).await
            }

            /// Reads exactly `buf.len()` bytes. Fails with `UnexpectedEof` if the stream ends first.
            ///
            /// # Cancel safety
            /// Not cancel safe: bytes read before the future is dropped are lost.
            pub async fn read_exact(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let $s = &*self;
                let stream = $stream;
                let mut filled = 0;
                while filled < buf.len() {
                    let n = std::future::poll_fn(|cx| stream.poll_read_priv(cx, &mut buf[filled..]))
                        .await?;
                    if n == 0 {
                        return Err(std::io::ErrorKind::UnexpectedEof.into());
                    }
                    filled += n;
                }
                Ok(filled)
            }
        }

        impl<$($gen)*> futures_io::AsyncRead for $ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $s = &*self;
                $stream.poll_read_priv(cx, buf)
            }
        }

        impl<$($gen)*> $crate::io::AsyncRead for $ty {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut $crate::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let $s = &*self;
                // SAFETY: the unfilled part is handed to `read(2)`/`recv(2)` only, which write
                // into it and never read it, so no uninitialised byte is ever read; it is not
                // zeroed first (the point of `ReadBuf`). Only the `n` bytes the kernel reported
                // written are then marked initialised and filled.
                let unfilled = unsafe {
                    &mut *(buf.unfilled_mut() as *mut [std::mem::MaybeUninit<u8>] as *mut [u8])
                };
                let n = std::task::ready!($stream.poll_read_priv(cx, unfilled))?;
                // SAFETY: the kernel wrote `n` bytes at the start of the unfilled part.
                unsafe { buf.assume_init(n) };
                buf.advance(n);
                std::task::Poll::Ready(Ok(()))
            }
        }
    };
}

macro_rules! impl_stream_write {
    ([$($gen:tt)*] $ty:ty, $s:ident => $stream:expr) => {
        impl<$($gen)*> $ty {
            /// Writes some of `buf`, waiting until the socket accepts data. Returns the number of
            /// bytes written.
            ///
            /// # Cancel safety
            /// Cancel safe: if dropped before it completes, no data was written.
            pub async fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let $s = &*self;
                let stream = $stream;
                std::future::poll_fn(|cx| stream.poll_write_priv(cx, buf)).await
            }

            /// Writes all of `buf`.
            ///
            /// # Cancel safety
            /// Not cancel safe: if dropped, an unknown prefix of the buffer may have been written.
            pub async fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
                let $s = &*self;
                let stream = $stream;
                let mut done = 0;
                while done < buf.len() {
                    let n = std::future::poll_fn(|cx| stream.poll_write_priv(cx, &buf[done..]))
                        .await?;
                    if n == 0 {
                        return Err(std::io::ErrorKind::WriteZero.into());
                    }
                    done += n;
                }
                Ok(())
            }

            /// Flushes: a no-op, writes go straight to the socket.
            ///
            /// # Cancel safety
            /// Cancel safe.
            pub async fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }

            /// Shuts down the write side: the peer reads end-of-stream once it has read
            /// everything written before.
            ///
            /// # Cancel safety
            /// Cancel safe.
            pub async fn shutdown(&mut self) -> std::io::Result<()> {
                let $s = &*self;
                $stream.shutdown_write_priv()
            }
        }

        impl<$($gen)*> futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $s = &*self;
                $stream.poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $s = &*self;
                $stream.poll_write_vectored_priv(cx, bufs)
            }

            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let $s = &*self;
                std::task::Poll::Ready($stream.shutdown_write_priv())
            }
        }

        impl<$($gen)*> $crate::io::AsyncWrite for $ty {
            fn poll_write(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $s = &*self;
                $stream.poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $s = &*self;
                $stream.poll_write_vectored_priv(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                std::task::Poll::Ready(Ok(()))
            }

            fn poll_shutdown(
                self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let $s = &*self;
                std::task::Poll::Ready($stream.shutdown_write_priv())
            }
        }
    };
}

/// The readiness methods every socket type shares (`TcpStream`, `UnixStream`, `UdpSocket`):
/// `ready`, `readable`, `writable`, and `try_io`/`async_io` for the caller's own syscalls.
/// `Type` has a `PollEvented` field `io`.
macro_rules! impl_socket_readiness {
    ($ty:ty) => {
        impl $ty {
            /// Waits until the socket is ready for any of `interest`, and says what it is
            /// ready for.
            ///
            /// # Cancel safety
            /// Cancel safe.
            pub async fn ready(
                &self,
                interest: $crate::io::Interest,
            ) -> std::io::Result<$crate::io::Ready> {
                Ok(self.io.registration().ready(interest).await?.ready)
            }

            /// Waits until a read (receive) may not block; then use the `try_*` methods.
            ///
            /// # Cancel safety
            /// Cancel safe.
            pub async fn readable(&self) -> std::io::Result<()> {
                self.ready($crate::io::Interest::READABLE).await.map(drop)
            }

            /// Waits until a write (send) may not block; then use the `try_*` methods.
            ///
            /// # Cancel safety
            /// Cancel safe.
            pub async fn writable(&self) -> std::io::Result<()> {
                self.ready($crate::io::Interest::WRITABLE).await.map(drop)
            }

            /// Runs `f` (your own non-blocking syscall on this socket's fd, e.g. `sendmsg`)
            /// if the socket is ready for `interest`; a `WouldBlock` from `f` clears the
            /// readiness.
            pub fn try_io<R>(
                &self,
                interest: $crate::io::Interest,
                f: impl FnOnce() -> std::io::Result<R>,
            ) -> std::io::Result<R> {
                self.io.registration().try_io(interest, f)
            }

            /// Waits for `interest` and runs `f` until it does not return `WouldBlock`.
            ///
            /// # Cancel safety
            /// Cancel safe if `f` is.
            pub async fn async_io<R>(
                &self,
                interest: $crate::io::Interest,
                f: impl FnMut() -> std::io::Result<R>,
            ) -> std::io::Result<R> {
                self.io.registration().async_io(interest, f).await
            }
        }
    };
}

/// The non-waiting reads and writes of the stream sockets (`TcpStream`, `UnixStream`):
/// `try_read`, `try_write` and their vectored forms. `Type` has a `PollEvented` field `io`.
macro_rules! impl_stream_try_rw {
    ($ty:ty) => {
        impl $ty {
            /// Reads without waiting: `WouldBlock` when no data is known to be available.
            pub fn try_read(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                let mut sys = self.io.get_ref();
                self.io
                    .registration()
                    .try_io($crate::io::Interest::READABLE, || {
                        std::io::Read::read(&mut sys, buf)
                    })
            }

            /// Writes without waiting: `WouldBlock` when the socket is not known to be
            /// writable.
            pub fn try_write(&self, buf: &[u8]) -> std::io::Result<usize> {
                let mut sys = self.io.get_ref();
                self.io
                    .registration()
                    .try_io($crate::io::Interest::WRITABLE, || {
                        std::io::Write::write(&mut sys, buf)
                    })
            }

            /// Reads into the spare capacity of `buf` without waiting, advancing it by the
            /// bytes read: `WouldBlock` when no data is known to be available (tokio's
            /// `try_read_buf`).
            pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> std::io::Result<usize> {
                let fd = std::os::fd::AsRawFd::as_raw_fd(self.io.get_ref());
                self.io
                    .registration()
                    .try_io($crate::io::Interest::READABLE, || {
                        let dst = buf.chunk_mut();
                        // SAFETY: `UninitSlice` is a `[MaybeUninit<u8>]` in a wrapper; the
                        // bytes are only written (by `recv`), never read, through it.
                        let dst = unsafe { dst.as_uninit_slice_mut() };
                        let n = $crate::net::raw_socket::recv_uninit(fd, dst)?;
                        // SAFETY: `recv` initialised the first `n` bytes of `chunk_mut`.
                        unsafe { buf.advance_mut(n) };
                        Ok(n)
                    })
            }

            /// Polls for read readiness (tokio's `poll_read_ready`): `Ready(Ok(()))` once a
            /// read may not block. Only the last task to call it (or `poll_read`) is woken;
            /// for many waiting tasks use [`readable`](Self::readable).
            pub fn poll_read_ready(
                &self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.io
                    .registration()
                    .poll_ready(cx, $crate::scheduled_io::Direction::Read)
                    .map_ok(drop)
            }

            /// Polls for write readiness (tokio's `poll_write_ready`): `Ready(Ok(()))` once a
            /// write may not block. Only the last task to call it (or `poll_write`) is woken.
            pub fn poll_write_ready(
                &self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.io
                    .registration()
                    .poll_ready(cx, $crate::scheduled_io::Direction::Write)
                    .map_ok(drop)
            }

            /// Reads into `bufs` (one `readv`) without waiting: `WouldBlock` when no data is
            /// known to be available.
            pub fn try_read_vectored(
                &self,
                bufs: &mut [std::io::IoSliceMut<'_>],
            ) -> std::io::Result<usize> {
                let mut sys = self.io.get_ref();
                self.io
                    .registration()
                    .try_io($crate::io::Interest::READABLE, || {
                        std::io::Read::read_vectored(&mut sys, bufs)
                    })
            }

            /// Writes `bufs` (one `writev`) without waiting: `WouldBlock` when the socket is
            /// not known to be writable.
            pub fn try_write_vectored(
                &self,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::io::Result<usize> {
                let fd = std::os::fd::AsRawFd::as_raw_fd(self.io.get_ref());
                self.io
                    .registration()
                    .try_io($crate::io::Interest::WRITABLE, || {
                        $crate::net::raw_socket::send_vectored(fd, bufs)
                    })
            }
        }
    };
}
