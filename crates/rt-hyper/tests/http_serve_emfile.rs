//! `rt_hyper::serve` under file-descriptor exhaustion: the `EMFILE` accept error is
//! logged through `tracing` and backed off from, never fatal; once descriptors are free the
//! waiting client is served. A test binary of its own: it lowers RLIMIT_NOFILE.

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::sync::mpsc;
use std::sync::Mutex;

use hyper::service::service_fn;
use tracing::{span, Event, Level, Metadata, Subscriber};

/// Sends the level of every event to the test.
struct Events(Mutex<mpsc::Sender<Level>>);

impl Subscriber for Events {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, event: &Event<'_>) {
        let _ = self.0.lock().unwrap().send(*event.metadata().level());
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}

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
fn serve_survives_emfile() {
    let (tx, events) = mpsc::channel();
    tracing::subscriber::set_global_default(Events(Mutex::new(tx))).unwrap();
    support::deadline(move || {
        let runtime = support::multi_thread(2);
        let listener = runtime
            .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        // Connected before the limit drops: it waits in the backlog, needing no new fd.
        let mut client = std::net::TcpStream::connect(addr).unwrap();

        let original = nofile();
        let restore = Restore(original);
        let limit = {
            let probe = std::fs::File::open("/dev/null").unwrap();
            use std::os::fd::AsRawFd;
            probe.as_raw_fd() as libc::rlim_t + 1
        };
        set_nofile(&libc::rlimit {
            rlim_cur: limit,
            rlim_max: original.rlim_max,
        });
        let mut fillers = Vec::new();
        while let Ok(f) = std::fs::File::open("/dev/null") {
            fillers.push(f);
        }

        let server = runtime.spawn(rt_hyper::serve(
            listener,
            service_fn(http_support::echo_path),
        ));
        // The accept loop reports EMFILE as an error event and backs off.
        while events.recv().unwrap() != Level::ERROR {}
        assert!(!server.is_finished(), "serve returned on EMFILE");

        drop(fillers);
        drop(restore);
        client
            .write_all(b"GET /after HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        client.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
        assert!(response.ends_with("GET /after"), "{response}");
        assert!(!server.is_finished());
    });
}
