//! [`TcpStream`].

use std::io;
use std::net::{Shutdown, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::task::{Context, Poll};
use std::time::Duration;

use rt_core::sync::{Arc, AtomicU8, Ordering::Relaxed};

use crate::io::poll_evented::PollEvented;
use crate::io::Interest;
use crate::net::tcp::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::net::{addr, raw_socket, ToSocketAddrs};

/// A TCP connection.
///
/// Reads and writes have inherent async methods (`read`, `read_exact`, `write`, `write_all`,
/// `flush`, `shutdown`) and `futures_io::AsyncRead`/`AsyncWrite`; [`TcpStream::split`] and
/// [`TcpStream::into_split`] give halves that two tasks may use at once.
#[derive(Debug)]
pub struct TcpStream {
    io: PollEvented<mio::net::TcpStream>,
    /// How reads are made: one of the `READS_*` states below.
    reads: AtomicU8,
}

/// Reads are plain `recv`s and `TCP_INQ` is off: no two reads in a row have filled their
/// buffers yet. A short read already tells that the receive queue is empty, and with `TCP_INQ`
/// on the kernel works out the queue's length for every read (`tcp_inq_hint`, `put_cmsg`: 0.4 %
/// of a hyper server's CPU per request, whose reads are short), so the option waits for reads
/// that need it: two full ones in a row, as `read_exact` loops make (one alone is often the
/// last few bytes of room in a buffer that a short read would otherwise have left).
const READS_PLAIN: u8 = 0;
/// `TCP_INQ` is still off, and the last read filled its buffer.
const READS_PLAIN_FULL: u8 = 4;
/// `TCP_INQ` is on and the last read filled its buffer exactly (as `read_exact` loops do), so
/// the next one probably will too: it goes through `recvmsg`, which also says whether it
/// drained the receive queue (see [`raw_socket::recv_inq`]), so a read that fills its buffer
/// exactly need not be followed by one that returns `WouldBlock`.
const READS_FULL: u8 = 1;
/// `TCP_INQ` is on, and the last read was short: a plain `recv` (the `recvmsg` path costs a
/// little more and pays off only for full reads).
const READS_SHORT: u8 = 2;
/// The kernel refused `TCP_INQ` (before 4.18): plain reads for good.
const READS_NO_INQ: u8 = 3;

impl TcpStream {
    /// Connects to `addr`, trying each of its addresses in turn.
    pub async fn connect(addr: impl ToSocketAddrs) -> io::Result<TcpStream> {
        let addrs = addr::resolve(addr).await?;
        addr::first_ok(addrs, |a| async move {
            TcpStream::connected(mio::net::TcpStream::connect(a)?).await
        })
        .await
    }

    /// Registers a socket whose non-blocking `connect` was issued and waits for the outcome.
    pub(crate) async fn connected(sys: mio::net::TcpStream) -> io::Result<TcpStream> {
        let stream = TcpStream::from_mio(sys)?;
        let reg = stream.io.registration();
        loop {
            let ev = reg.ready(Interest::WRITABLE).await?;
            let sys = stream.io.get_ref();
            if let Some(e) = sys.take_error()? {
                return Err(e);
            }
            match sys.peer_addr() {
                Ok(_) => return Ok(stream),
                // Woken before the handshake finished: wait for the next event.
                Err(e) if e.kind() == io::ErrorKind::NotConnected => reg.clear_readiness(ev),
                Err(e) => return Err(e),
            }
        }
    }

    #[track_caller]
    pub(crate) fn from_mio(sys: mio::net::TcpStream) -> io::Result<TcpStream> {
        TcpStream::from_mio_near_cpu(sys, None)
    }

    /// A stream `accept` returned: registered near the CPU that received its packets
    /// (`SO_INCOMING_CPU`, see `Handle::shard_near_cpu`), and assumed readable and writable,
    /// so its first read and write try the socket (the peer may have sent before the accept)
    /// instead of waiting for the reactor's first event.
    #[track_caller]
    pub(crate) fn from_accepted(sys: mio::net::TcpStream) -> io::Result<TcpStream> {
        let cpu = raw_socket::incoming_cpu(sys.as_raw_fd());
        let stream = TcpStream::from_mio_near_cpu(sys, cpu)?;
        stream
            .io
            .registration()
            .assume_ready(crate::io::Ready::READABLE | crate::io::Ready::WRITABLE);
        Ok(stream)
    }

    #[track_caller]
    fn from_mio_near_cpu(sys: mio::net::TcpStream, cpu: Option<usize>) -> io::Result<TcpStream> {
        Ok(TcpStream {
            io: PollEvented::new_near_cpu(sys, Interest::READABLE | Interest::WRITABLE, cpu)?,
            reads: AtomicU8::new(READS_PLAIN),
        })
    }

    /// Wraps a connected std stream (made non-blocking here).
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        stream.set_nonblocking(true)?;
        TcpStream::from_mio(mio::net::TcpStream::from_std(stream))
    }

    /// Deregisters the stream and returns it as a std stream (still non-blocking).
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        Ok(self.io.into_inner()?.into())
    }

    /// The remote address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// The local address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// Sets `TCP_NODELAY` (disables Nagle's algorithm when `true`).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.io.get_ref().set_nodelay(nodelay)
    }

    /// Whether `TCP_NODELAY` is set.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.io.get_ref().nodelay()
    }

    /// Sets `IP_TTL`, the time-to-live of the packets this socket sends.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_ttl(ttl)
    }

    /// The `IP_TTL` of this socket.
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.get_ref().ttl()
    }
    /// Takes the socket's pending error (`SO_ERROR`), clearing it.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }

    /// Sets `SO_LINGER`. `Some(Duration::ZERO)` makes dropping the stream reset the connection.
    pub fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        raw_socket::set_linger(self, linger)
    }

    /// Sets `TCP_QUICKACK` (tokio's `set_quickack`): on, the next acknowledgements go out at
    /// once instead of being delayed. Linux may turn it off again by itself.
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        raw_socket::set_int_opt(
            self,
            libc::IPPROTO_TCP,
            libc::TCP_QUICKACK,
            libc::c_int::from(quickack),
        )
    }

    /// Whether `TCP_QUICKACK` is on.
    pub fn quickack(&self) -> io::Result<bool> {
        raw_socket::int_opt(self, libc::IPPROTO_TCP, libc::TCP_QUICKACK).map(|v| v != 0)
    }

    /// Sets `SO_LINGER` to zero (tokio's `set_zero_linger`): dropping the stream then resets
    /// the connection instead of closing it gracefully.
    pub fn set_zero_linger(&self) -> io::Result<()> {
        raw_socket::set_linger(self, Some(Duration::ZERO))
    }

    /// The `SO_LINGER` of this stream (`None`: off).
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        raw_socket::linger(self)
    }

    /// Polls reading into `buf`'s unfilled part without removing the data from the socket;
    /// returns how many bytes were copied. Only the last task to poll is woken.
    pub fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut crate::io::ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        let sys = self.io.get_ref();
        let n = std::task::ready!(self.io.poll_read_io(cx, || {
            // SAFETY: only `recv(2)` (MSG_PEEK) writes into the unfilled part, never reads it;
            // only the `n` bytes it reports written are then marked initialised.
            let unfilled = unsafe {
                &mut *(buf.unfilled_mut() as *mut [std::mem::MaybeUninit<u8>] as *mut [u8])
            };
            sys.peek(unfilled)
        }))?;
        // SAFETY: the kernel wrote `n` bytes at the start of the unfilled part.
        unsafe { buf.assume_init(n) };
        buf.advance(n);
        Poll::Ready(Ok(n))
    }

    /// Reads into `buf` without removing the data from the socket, waiting until there is some.
    ///
    /// # Cancel safety
    /// Cancel safe.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        let sys = self.io.get_ref();
        self.io
            .registration()
            .async_io(Interest::READABLE, || sys.peek(buf))
            .await
    }

    /// Borrowed halves, usable from two tasks at once (e.g. under a scoped join).
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        split::borrowed(self)
    }

    /// Owned halves, each movable to its own task. Dropping the write half shuts the write side.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        split::owned(Arc::new(self))
    }

    pub(crate) fn poll_read_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let reads = self.reads.load(Relaxed);
        let res = if reads == READS_FULL {
            let fd = self.io.get_ref().as_raw_fd();
            self.io
                .poll_read_with(cx, buf, |buf| raw_socket::recv_inq(fd, buf))
        } else {
            self.io.poll_read(cx, buf)
        };
        if let Poll::Ready(Ok(n)) = res {
            let full = n == buf.len();
            let next = match reads {
                _ if n == 0 => reads,
                READS_PLAIN if full => READS_PLAIN_FULL,
                READS_PLAIN_FULL if !full => READS_PLAIN,
                READS_PLAIN_FULL => {
                    // Best effort: kernels before 4.18 lack TCP_INQ, and then reads stay plain.
                    let sys = self.io.get_ref();
                    match raw_socket::set_int_opt(sys, libc::IPPROTO_TCP, libc::TCP_INQ, 1) {
                        Ok(()) => READS_FULL,
                        Err(_) => READS_NO_INQ,
                    }
                }
                READS_FULL | READS_SHORT if full => READS_FULL,
                READS_FULL => READS_SHORT,
                _ => reads,
            };
            if next != reads {
                self.reads.store(next, Relaxed);
            }
        }
        res
    }

    pub(crate) fn poll_write_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write(cx, buf)
    }

    pub(crate) fn poll_write_vectored_priv(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_send_vectored(cx, bufs)
    }

    pub(crate) fn shutdown_write_priv(&self) -> io::Result<()> {
        match self.io.get_ref().shutdown(Shutdown::Write) {
            // Already shut down, or the peer is gone: nothing left to shut.
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            r => r,
        }
    }
}

use crate::net::tcp::split;

impl_socket_readiness!(TcpStream);
impl_stream_try_rw!(TcpStream);
impl_stream_read!([] TcpStream, s => s);
impl_stream_write!([] TcpStream, s => s);

impl AsRawFd for TcpStream {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}
