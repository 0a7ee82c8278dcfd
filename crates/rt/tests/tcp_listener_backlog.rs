//! `TcpListener::bind` listens with a backlog of 1024 (capped by the kernel's
//! `net.core.somaxconn`), as its docs say, not the 128 of `std`/mio's `bind`. The kernel reports
//! a listening socket's backlog through `sock_diag` netlink (`ss -lt` shows it as Send-Q).

use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLMSG_DONE: u16 = 3;
const NLMSG_ERROR: u16 = 2;
const TCP_LISTEN: u32 = 10;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct NlMsgHdr {
    len: u32,
    kind: u16,
    flags: u16,
    seq: u32,
    pid: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct SockId {
    sport: [u8; 2],
    dport: [u8; 2],
    src: [u32; 4],
    dst: [u32; 4],
    interface: u32,
    cookie: [u32; 2],
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Request {
    hdr: NlMsgHdr,
    family: u8,
    protocol: u8,
    ext: u8,
    pad: u8,
    states: u32,
    id: SockId,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct DiagMsg {
    family: u8,
    state: u8,
    timer: u8,
    retrans: u8,
    id: SockId,
    expires: u32,
    rqueue: u32,
    wqueue: u32,
    uid: u32,
    inode: u32,
}

/// The backlog of the IPv4 TCP socket listening on `port`, as the kernel reports it.
fn listen_backlog(port: u16) -> io::Result<Option<u32>> {
    // SAFETY: plain socket(2) call; the result is checked before use.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let req = Request {
        hdr: NlMsgHdr {
            len: size_of::<Request>() as u32,
            kind: SOCK_DIAG_BY_FAMILY,
            flags: (libc::NLM_F_REQUEST | libc::NLM_F_DUMP) as u16,
            seq: 1,
            pid: 0,
        },
        family: libc::AF_INET as u8,
        protocol: libc::IPPROTO_TCP as u8,
        states: 1 << TCP_LISTEN,
        ..Default::default()
    };
    // SAFETY: sends `size_of::<Request>()` bytes from a live, initialised `Request`.
    let sent = unsafe {
        libc::send(
            fd.as_raw_fd(),
            (&req as *const Request).cast(),
            size_of::<Request>(),
            0,
        )
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut found = None;
    loop {
        // SAFETY: receives into `buf`, which is valid for `buf.len()` bytes.
        let n = unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut at = 0usize;
        while at + size_of::<NlMsgHdr>() <= n as usize {
            // SAFETY: `at + size_of::<NlMsgHdr>()` bytes of `buf` are initialised; the read is
            // unaligned-safe.
            let hdr: NlMsgHdr = unsafe { buf.as_ptr().add(at).cast::<NlMsgHdr>().read_unaligned() };
            match hdr.kind {
                NLMSG_DONE => return Ok(found),
                NLMSG_ERROR => return Err(io::Error::other("sock_diag answered an error")),
                _ => {
                    let body = at + size_of::<NlMsgHdr>();
                    assert!(
                        body + size_of::<DiagMsg>() <= n as usize,
                        "short sock_diag reply"
                    );
                    // SAFETY: the reply holds a whole `DiagMsg` after the header (checked).
                    let msg: DiagMsg =
                        unsafe { buf.as_ptr().add(body).cast::<DiagMsg>().read_unaligned() };
                    if u16::from_be_bytes(msg.id.sport) == port {
                        found = Some(msg.wqueue);
                    }
                }
            }
            // Messages are 4-byte aligned.
            at += (hdr.len as usize + 3) & !3;
        }
    }
}

fn somaxconn() -> u32 {
    std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4096)
}

#[test]
fn bind_listens_with_a_backlog_of_1024() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let backlog = listen_backlog(port).unwrap();
        assert_eq!(backlog, Some(1024.min(somaxconn())));
        // The check itself tells 1024 from std's 128: a std listener reads 128.
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let std_port = std_listener.local_addr().unwrap().port();
        assert_eq!(
            listen_backlog(std_port).unwrap(),
            Some(128.min(somaxconn()))
        );
    });
}
