//! What rt does differently under its `tokio-face` feature (the `tokio` face's): the builder's
//! `enable_io` / `enable_time` are honoured as in tokio, with tokio's panics at the caller, and
//! the panics of calls made outside a runtime say what tokio's say.
//!
//! `cargo test -p rt --features tokio-face --test tokio_face`.
#![cfg(feature = "tokio-face")]

use std::time::Duration;

mod support;
use support::panic_of;

const NO_RUNTIME: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";
const IO_DISABLED: &str = "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` \
     on the runtime builder to enable IO.";
const TIME_DISABLED: &str = "A Tokio 1.x context was found, but timers are disabled. Call \
     `enable_time` on the runtime builder to enable timers.";

/// A runtime built as tokio's `Builder::new_current_thread().build()`: neither IO nor timers.
fn bare() -> rt::Runtime {
    rt::Builder::new_current_thread().build().unwrap()
}

fn std_listener() -> std::net::TcpListener {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    l
}

#[test]
fn disabled_drivers_and_missing_runtimes_panic_at_the_caller_with_tokios_words() {
    let here = file!().to_string();

    // IO off: each way a source registers.
    let rt = bare();
    let listener = std_listener();
    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::net::TcpListener::from_std(listener)) });
    });
    assert_eq!(
        got,
        (here.clone(), line, IO_DISABLED.to_string()),
        "TcpListener"
    );

    let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::net::UnixStream::from_std(a)) });
    });
    assert_eq!(
        got,
        (here.clone(), line, IO_DISABLED.to_string()),
        "UnixStream"
    );

    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::net::UdpSocket::from_std(udp)) });
    });
    assert_eq!(
        got,
        (here.clone(), line, IO_DISABLED.to_string()),
        "UdpSocket"
    );

    let (fd, _other) = std::os::unix::net::UnixStream::pair().unwrap();
    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::io::unix::AsyncFd::new(fd)) });
    });
    assert_eq!(
        got,
        (here.clone(), line, IO_DISABLED.to_string()),
        "AsyncFd"
    );

    // A signal checks for IO before it looks at the signal number, as tokio's.
    let line = line!() + 3;
    let got = panic_of(|| {
        rt.block_on(async {
            drop(rt::signal::unix::signal(
                rt::signal::unix::SignalKind::from_raw(-1),
            ))
        });
    });
    assert_eq!(got, (here.clone(), line, IO_DISABLED.to_string()), "signal");

    // Timers off: where the timer is created, not where it is awaited.
    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::time::timeout(Duration::from_secs(1), async {})) });
    });
    assert_eq!(
        got,
        (here.clone(), line, TIME_DISABLED.to_string()),
        "timeout"
    );

    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::time::sleep(Duration::from_secs(1))) });
    });
    assert_eq!(
        got,
        (here.clone(), line, TIME_DISABLED.to_string()),
        "sleep"
    );

    let line = line!() + 2;
    let got = panic_of(|| {
        rt.block_on(async { drop(rt::time::interval(Duration::from_secs(1))) });
    });
    assert_eq!(
        got,
        (here.clone(), line, TIME_DISABLED.to_string()),
        "interval"
    );

    // `enable_io` alone leaves timers off, and the other way round.
    let io_only = rt::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    io_only.block_on(async { drop(rt::net::TcpListener::from_std(std_listener()).unwrap()) });
    let line = line!() + 2;
    let got = panic_of(|| {
        io_only.block_on(async { drop(rt::time::sleep(Duration::from_secs(1))) });
    });
    assert_eq!(
        got,
        (here.clone(), line, TIME_DISABLED.to_string()),
        "io only"
    );
    let time_only = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_time()
        .build()
        .unwrap();
    time_only.block_on(async { rt::time::sleep(Duration::from_millis(1)).await });
    let listener = std_listener();
    let line = line!() + 2;
    let got = panic_of(|| {
        time_only.block_on(async { drop(rt::net::TcpListener::from_std(listener)) });
    });
    assert_eq!(
        got,
        (here.clone(), line, IO_DISABLED.to_string()),
        "time only"
    );

    // Outside every runtime: tokio's message, wherever the call needs one.
    let listener = std_listener();
    let line = line!() + 2;
    let got = panic_of(|| {
        drop(rt::net::TcpListener::from_std(listener));
    });
    assert_eq!(got, (here.clone(), line, NO_RUNTIME.to_string()), "no IO");
    let line = line!() + 2;
    let got = panic_of(|| {
        drop(rt::spawn(async {}));
    });
    assert_eq!(got, (here.clone(), line, NO_RUNTIME.to_string()), "spawn");
    let line = line!() + 2;
    let got = panic_of(|| {
        drop(rt::spawn_blocking(|| {}));
    });
    assert_eq!(
        got,
        (here.clone(), line, NO_RUNTIME.to_string()),
        "blocking"
    );
    let line = line!() + 2;
    let got = panic_of(|| {
        drop(rt::runtime::Handle::current());
    });
    assert_eq!(got, (here.clone(), line, NO_RUNTIME.to_string()), "Handle");
    let line = line!() + 2;
    let got = panic_of(|| {
        drop(rt::time::sleep(Duration::from_secs(1)));
    });
    assert_eq!(got, (here.clone(), line, NO_RUNTIME.to_string()), "sleep");
    let line = line!() + 2;
    let got = panic_of(|| {
        drop(rt::process::Command::new("true").spawn());
    });
    assert_eq!(got, (here, line, NO_RUNTIME.to_string()), "process");
}

#[test]
fn enable_all_and_the_default_constructors_turn_io_and_timers_on() {
    let built = [
        rt::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        rt::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap(),
        rt::Runtime::new().unwrap(),
    ];
    for rt in built {
        rt.block_on(async {
            let l = rt::net::TcpListener::from_std(std_listener()).unwrap();
            let addr = l.local_addr().unwrap();
            let (accepted, connected) = rt::join!(l.accept(), rt::net::TcpStream::connect(addr));
            accepted.unwrap();
            connected.unwrap();
            rt::time::sleep(Duration::from_millis(1)).await;
        });
    }
    let local = rt::runtime::LocalRuntime::new().unwrap();
    local.block_on(async {
        drop(rt::net::TcpListener::from_std(std_listener()).unwrap());
        rt::time::sleep(Duration::from_millis(1)).await;
    });
}

#[test]
fn try_current_error_says_what_tokios_says() {
    let err = rt::runtime::Handle::try_current().unwrap_err();
    assert_eq!(err.to_string(), NO_RUNTIME);
}

#[test]
fn file_debug_names_tokios_type() {
    let rt = rt::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let std = std::fs::File::open("/dev/null").unwrap();
    let file = rt.block_on(async { rt::fs::File::from_std(std) });
    let text = format!("{file:?}");
    assert!(
        text.starts_with("tokio::fs::File { std: File { fd:"),
        "{text}"
    );
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn a_send_timeout_outside_a_runtime_says_what_tokios_says() {
    use std::future::Future;
    let (tx, _rx) = rt::sync::mpsc::channel(1);
    let send = tx.send_timeout(1, Duration::from_secs(1));
    let mut send = std::pin::pin!(send);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let _ = send.as_mut().poll(&mut cx);
}
