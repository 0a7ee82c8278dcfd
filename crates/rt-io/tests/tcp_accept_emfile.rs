//! `accept` under file-descriptor exhaustion (`EMFILE`) returns the error, and the listener keeps
//! working once descriptors are free again. A test binary of its own: it lowers RLIMIT_NOFILE.

mod support;

use rt_io::net::{TcpListener, TcpStream};
use support::run;

fn nofile() -> libc::rlimit {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid `rlimit` for getrlimit to fill.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
    lim
}

fn set_nofile(lim: &libc::rlimit) {
    // SAFETY: `lim` is a valid `rlimit`; lowering or restoring the soft limit is always allowed.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, lim) }, 0);
}

/// Restores the original limit even if the test fails.
struct Restore(libc::rlimit);
impl Drop for Restore {
    fn drop(&mut self) {
        set_nofile(&self.0);
    }
}

#[test]
fn accept_reports_emfile_and_recovers() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Client sockets made before the limit drops: connecting needs no new fd later.
        let clients: Vec<_> = (0..2)
            .map(|_| std::net::TcpStream::connect(addr).unwrap())
            .collect();

        let original = nofile();
        let _restore = Restore(original);
        // Fill the fd table up to a low limit, so accept has no fd left to return.
        let mut fillers = Vec::new();
        let limit = {
            let probe = std::fs::File::open("/dev/null").unwrap();
            use std::os::fd::AsRawFd;
            probe.as_raw_fd() as libc::rlim_t + 1
        };
        set_nofile(&libc::rlimit {
            rlim_cur: limit,
            rlim_max: original.rlim_max,
        });
        loop {
            match std::fs::File::open("/dev/null") {
                Ok(f) => fillers.push(f),
                Err(e) => {
                    assert_eq!(e.raw_os_error(), Some(libc::EMFILE));
                    break;
                }
            }
        }

        let e = listener.accept().await.unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EMFILE), "{e}");
        // Still out of fds: the error repeats rather than the listener hanging.
        let e = listener.accept().await.unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EMFILE), "{e}");

        drop(fillers);
        set_nofile(&original);
        for _ in 0..clients.len() {
            let (mut s, _) = listener.accept().await.unwrap();
            s.write_all(b"ok").await.unwrap();
        }
        for mut c in clients {
            let mut buf = [0u8; 2];
            std::io::Read::read_exact(&mut c, &mut buf).unwrap();
            assert_eq!(&buf, b"ok");
        }
        // And new connections still arrive.
        let c = TcpStream::connect(addr).await.unwrap();
        let (s, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, c.local_addr().unwrap());
        drop(s);
    });
}
