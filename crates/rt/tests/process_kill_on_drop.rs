//! `kill_on_drop(true)`: dropping the `Child` kills the process (seen through a pidfd of our
//! own becoming readable); without it the process runs on after the drop.

mod support;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use rt::process::Command;

fn pidfd(pid: u32) -> OwnedFd {
    // SAFETY: pidfd_open takes a pid and flags; no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    assert!(fd >= 0, "pidfd_open: {}", std::io::Error::last_os_error());
    // SAFETY: a new fd nothing else owns.
    unsafe { OwnedFd::from_raw_fd(fd as i32) }
}

/// Whether the process behind `fd` has exited, waiting at most `ms` (a hang guard, not a bound).
fn exited(fd: &OwnedFd, ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let n = unsafe { libc::poll(&mut p, 1, ms) };
    n == 1
}

#[test]
fn kill_on_drop_kills_the_child() {
    for (name, rt) in support::runtimes() {
        let (killed, kept) = rt.block_on(async {
            let child = Command::new("sleep")
                .arg("1000")
                .kill_on_drop(true)
                .spawn()
                .unwrap();
            let killed = pidfd(child.id().unwrap());
            drop(child);
            let kept_child = Command::new("sleep").arg("1000").spawn().unwrap();
            let kept = pidfd(kept_child.id().unwrap());
            assert!(!Command::new("true").kill_on_drop(false).get_kill_on_drop());
            let pid = kept_child.id().unwrap();
            drop(kept_child);
            (killed, (kept, pid))
        });
        assert!(
            exited(&killed, 30_000),
            "{name}: kill_on_drop left the child running"
        );
        let (kept, pid) = kept;
        // Not killed: still running (poll without waiting).
        assert!(!exited(&kept, 0), "{name}: a plain drop killed the child");
        // SAFETY: kill(2) on our own child's pid, which is not reaped (a zombie at worst).
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        assert!(exited(&kept, 30_000));
    }
}
