//! The socket calls neither std nor mio offers (creating an unconnected TCP socket, `SO_REUSEPORT`,
//! `SO_LINGER`, `TCP_INQ` reads, vectored writes as one `send`), through libc, with the
//! `sockaddr` conversions they need.

use std::io::{self, IoSlice};
use std::mem::{self, MaybeUninit};
use std::net::{SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

use crate::syscall::cvt;

/// A new non-blocking, close-on-exec TCP socket of `domain` (`AF_INET` or `AF_INET6`).
pub(crate) fn tcp_socket(domain: libc::c_int) -> io::Result<OwnedFd> {
    let ty = libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: `socket` takes no pointers; any argument values are sound.
    let fd = cvt(unsafe { libc::socket(domain, ty, 0) })?;
    // SAFETY: `fd` was just returned by `socket` and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `recv` into memory that may be uninitialised (the `*_buf` reads, whose `BufMut` hands out
/// such memory): the kernel only writes to `buf`, never reads it.
pub(crate) fn recv_uninit(fd: RawFd, buf: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the call; `recv` writes at most
    // that many and reads none.
    let n = cvt(unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) })?;
    Ok(n as usize)
}

/// `recvfrom` into memory that may be uninitialised, with `flags` (`MSG_PEEK`); returns the
/// bytes read and the sender. With an empty `buf` and `MSG_PEEK` it reads the next datagram's
/// sender without taking the datagram.
pub(crate) fn recv_from_uninit(
    fd: RawFd,
    buf: &mut [MaybeUninit<u8>],
    flags: libc::c_int,
) -> io::Result<(usize, SocketAddr)> {
    // SAFETY: all-zero is a valid `sockaddr_storage`.
    let mut storage: libc::sockaddr_storage = unsafe { mem::zeroed() };
    let mut len = mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes, `storage` and `len` are live, for
    // the whole call; the kernel writes at most that much into each and reads none of `buf`.
    let n = cvt(unsafe {
        libc::recvfrom(
            fd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            flags,
            (&mut storage as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    })?;
    Ok((n as usize, from_raw(&storage)?))
}

/// `recv` on a socket with `TCP_INQ` set: returns the bytes read and whether the receive queue
/// is empty afterwards (the kernel's `TCP_CM_INQ` control message). One syscall, like `recv`.
pub(crate) fn recv_inq(fd: std::os::fd::RawFd, buf: &mut [u8]) -> io::Result<(usize, bool)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Room for one `int` control message, aligned for `cmsghdr`.
    let mut control = [0u64; 4];
    // SAFETY: `msghdr` is plain data; all-zero is a valid (empty) value.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = mem::size_of_val(&control) as _;
    // SAFETY: `msg` points at `iov` (describing `buf`) and `control`, all live for the call.
    let n = cvt(unsafe { libc::recvmsg(fd, &mut msg, 0) })?;
    let mut drained = false;
    // SAFETY: the CMSG_* walk stays inside `control`, as filled and bounded by the kernel
    // through `msg.msg_controllen`.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::IPPROTO_TCP && (*cmsg).cmsg_type == libc::TCP_CM_INQ {
                let inq = libc::CMSG_DATA(cmsg).cast::<libc::c_int>().read_unaligned();
                drained = inq == 0;
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    Ok((n as usize, drained))
}

pub(crate) use crate::tuning::SEND_GATHER_MAX;

/// Writes `bufs` to the connected stream socket `fd` with one syscall, and never raises
/// `SIGPIPE` for the small ones (a closed peer is an `EPIPE` error).
///
/// A write of at most [`SEND_GATHER_MAX`] bytes goes out with `send(2)`: from its one non-empty
/// slice as it is, or from a stack buffer the slices are copied into. Larger writes are one
/// `writev(2)` (at most `UIO_MAXIOV` slices), as `std`'s `write_vectored` makes them. What `send`
/// accepts is a prefix of the slices' bytes either way, so the count returned means the same.
pub(crate) fn send_vectored(fd: RawFd, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
    let total = bufs.iter().map(|b| b.len()).sum::<usize>();
    if total == 0 || total > SEND_GATHER_MAX {
        let n = bufs.len().min(libc::UIO_MAXIOV as usize);
        // SAFETY: `IoSlice` is ABI-compatible with `iovec` (std guarantees it on Unix), and
        // the first `n` slices are live, readable memory for the whole call.
        let r = cvt(unsafe { libc::writev(fd, bufs.as_ptr().cast(), n as libc::c_int) })?;
        return Ok(r as usize);
    }
    let mut gathered = MaybeUninit::<[u8; SEND_GATHER_MAX]>::uninit();
    let first = bufs
        .iter()
        .find(|b| !b.is_empty())
        .expect("`total` is not 0");
    let (ptr, len) = if first.len() == total {
        // One non-empty slice: send it as it is.
        (first.as_ptr(), total)
    } else {
        let dst = gathered.as_mut_ptr().cast::<u8>();
        let mut at = 0;
        for b in bufs {
            // SAFETY: the slices add up to `total <= SEND_GATHER_MAX` bytes, so
            // `at + b.len()` stays within `gathered`; a caller's slice cannot overlap this
            // stack buffer.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(at), b.len()) };
            at += b.len();
        }
        (dst.cast_const(), total)
    };
    // SAFETY: `ptr` and `len` describe initialised, live memory (one of `bufs`, or the first
    // `len` bytes of `gathered`, all written above) for the whole call.
    let r = cvt(unsafe { libc::send(fd, ptr.cast(), len, libc::MSG_NOSIGNAL) })?;
    Ok(r as usize)
}

/// Sets an `int` socket option.
pub(crate) fn set_int_opt(
    fd: &impl AsRawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    // SAFETY: the pointer and length describe `value`, a live `c_int`, for the whole call.
    cvt(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (&value as *const libc::c_int).cast(),
            mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })?;
    Ok(())
}

/// Reads an `int` socket option.
pub(crate) fn int_opt(
    fd: &impl AsRawFd,
    level: libc::c_int,
    name: libc::c_int,
) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut len = mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the pointers describe `value` and `len`, both live for the whole call.
    cvt(unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (&mut value as *mut libc::c_int).cast(),
            &mut len,
        )
    })?;
    Ok(value)
}

/// The CPU that last processed a packet for this socket (`SO_INCOMING_CPU`), if the kernel
/// knows one.
pub(crate) fn incoming_cpu(fd: std::os::fd::RawFd) -> Option<usize> {
    let cpu = int_opt(&fd, libc::SOL_SOCKET, libc::SO_INCOMING_CPU).ok()?;
    usize::try_from(cpu).ok()
}

/// Sets `SO_LINGER`: `Some(d)` makes `close` wait up to `d` for unsent data (`Some(0)` resets the
/// connection instead), `None` restores the default background close.
pub(crate) fn set_linger(fd: &impl AsRawFd, linger: Option<Duration>) -> io::Result<()> {
    let value = libc::linger {
        l_onoff: linger.is_some() as libc::c_int,
        l_linger: linger.map_or(0, |d| {
            d.as_secs().min(libc::c_int::MAX as u64) as libc::c_int
        }),
    };
    // SAFETY: the pointer and length describe `value`, a live `linger`, for the whole call.
    cvt(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&value as *const libc::linger).cast(),
            mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    })?;
    Ok(())
}

/// Reads `SO_LINGER`: `None` when off.
pub(crate) fn linger(fd: &impl AsRawFd) -> io::Result<Option<Duration>> {
    let mut value = libc::linger {
        l_onoff: 0,
        l_linger: 0,
    };
    let mut len = mem::size_of::<libc::linger>() as libc::socklen_t;
    // SAFETY: the pointers describe `value` and `len`, both live for the whole call.
    cvt(unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&mut value as *mut libc::linger).cast(),
            &mut len,
        )
    })?;
    Ok((value.l_onoff != 0).then(|| Duration::from_secs(value.l_linger.max(0) as u64)))
}

/// `addr` as a `sockaddr_storage` and the length of the part in use.
fn to_raw(addr: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: `sockaddr_storage` is plain old data; all-zero is a valid (unspecified) value.
    let mut storage: libc::sockaddr_storage = unsafe { mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(a.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: `sockaddr_storage` is larger than and aligned for every sockaddr type.
            unsafe {
                (&mut storage as *mut libc::sockaddr_storage)
                    .cast::<libc::sockaddr_in>()
                    .write(sin)
            };
            mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: a.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: a.ip().octets(),
                },
                sin6_scope_id: a.scope_id(),
            };
            // SAFETY: as above.
            unsafe {
                (&mut storage as *mut libc::sockaddr_storage)
                    .cast::<libc::sockaddr_in6>()
                    .write(sin6)
            };
            mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (storage, len as libc::socklen_t)
}

/// The inverse of [`to_raw`].
fn from_raw(storage: &libc::sockaddr_storage) -> io::Result<SocketAddr> {
    match storage.ss_family as libc::c_int {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a `sockaddr_in`; storage is aligned for it.
            let sin =
                unsafe { &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
            Ok(SocketAddr::V4(SocketAddrV4::new(
                sin.sin_addr.s_addr.to_ne_bytes().into(),
                u16::from_be(sin.sin_port),
            )))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a `sockaddr_in6`; storage is aligned for it.
            let sin6 = unsafe {
                &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>()
            };
            Ok(SocketAddr::V6(SocketAddrV6::new(
                sin6.sin6_addr.s6_addr.into(),
                u16::from_be(sin6.sin6_port),
                sin6.sin6_flowinfo,
                sin6.sin6_scope_id,
            )))
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not an IP socket address",
        )),
    }
}

/// `bind(2)`.
pub(crate) fn bind(fd: &impl AsRawFd, addr: &SocketAddr) -> io::Result<()> {
    let (storage, len) = to_raw(addr);
    // SAFETY: `storage` holds a valid sockaddr of `len` bytes, live for the whole call.
    cvt(unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&storage as *const libc::sockaddr_storage).cast(),
            len,
        )
    })?;
    Ok(())
}

/// `connect(2)` on a non-blocking socket: `Ok` also when the connection is in progress.
pub(crate) fn connect(fd: &impl AsRawFd, addr: &SocketAddr) -> io::Result<()> {
    let (storage, len) = to_raw(addr);
    // SAFETY: `storage` holds a valid sockaddr of `len` bytes, live for the whole call.
    let r = unsafe {
        libc::connect(
            fd.as_raw_fd(),
            (&storage as *const libc::sockaddr_storage).cast(),
            len,
        )
    };
    match cvt(r) {
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => Ok(()),
        r => r.map(drop),
    }
}

/// `listen(2)`.
pub(crate) fn listen(fd: &impl AsRawFd, backlog: u32) -> io::Result<()> {
    let backlog = backlog.min(libc::c_int::MAX as u32) as libc::c_int;
    // SAFETY: `listen` takes no pointers.
    cvt(unsafe { libc::listen(fd.as_raw_fd(), backlog) })?;
    Ok(())
}

/// `getsockname(2)`.
pub(crate) fn local_addr(fd: &impl AsRawFd) -> io::Result<SocketAddr> {
    // SAFETY: all-zero is a valid `sockaddr_storage`.
    let mut storage: libc::sockaddr_storage = unsafe { mem::zeroed() };
    let mut len = mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: the pointers describe `storage` and `len`, both live for the whole call.
    cvt(unsafe {
        libc::getsockname(
            fd.as_raw_fd(),
            (&mut storage as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    })?;
    from_raw(&storage)
}
