//! [`UCred`]: the credentials of a Unix-domain socket's peer (`SO_PEERCRED`).

use std::io;
use std::mem;
use std::os::fd::AsRawFd;

use crate::syscall::cvt;

/// The peer's process, user and group when it connected (tokio's `tokio::net::unix::UCred`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UCred {
    pid: Option<libc::pid_t>,
    uid: libc::uid_t,
    gid: libc::gid_t,
}

impl UCred {
    /// The peer's effective user id.
    pub fn uid(&self) -> libc::uid_t {
        self.uid
    }

    /// The peer's effective group id.
    pub fn gid(&self) -> libc::gid_t {
        self.gid
    }

    /// The peer's process id (always known on Linux; an `Option` as in tokio).
    pub fn pid(&self) -> Option<libc::pid_t> {
        self.pid
    }
}

/// Reads `SO_PEERCRED` of the connected Unix socket `fd`.
pub(crate) fn peer_cred(fd: &impl AsRawFd) -> io::Result<UCred> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the pointers describe `cred` and `len`, both live for the whole call.
    cvt(unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    })?;
    Ok(UCred {
        pid: Some(cred.pid),
        uid: cred.uid,
        gid: cred.gid,
    })
}
