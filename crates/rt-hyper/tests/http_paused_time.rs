//! `HyperTimer` under paused time: hyper adds its timeouts to `Timer::now`, which reads rt's
//! clock (as hyper-util's `TokioTimer` reads tokio's). With std's clock there, an `advance`
//! would put every new header-read deadline in the paused clock's past, and each keep-alive
//! connection would time out at its first wait for a request head.

mod http_support;
#[path = "../../rt/tests/support/mod.rs"]
mod support;

use std::task::{Context, Waker};
use std::time::Duration;

use hyper::rt::Timer;
use hyper::service::service_fn;
use rt_hyper::HyperTimer;

const HOUR: Duration = Duration::from_secs(3600);

fn paused(workers: usize) -> rt::Runtime {
    let mut b = if workers == 0 {
        rt::Builder::new_current_thread()
    } else {
        let mut b = rt::Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    };
    b.enable_all().start_paused(true).build().unwrap()
}

#[test]
fn timer_now_reads_the_paused_clock() {
    paused(0).block_on(async {
        rt::time::advance(HOUR).await;
        let timer = HyperTimer::new();
        let now = timer.now();
        assert_eq!(
            now,
            rt::time::Instant::now().into_std(),
            "the paused clock stands still, so both read the same instant"
        );
        // A deadline ten seconds ahead of the timer's now is ahead of rt's clock too.
        let mut sleep = timer.sleep_until(now + Duration::from_secs(10));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(
            sleep.as_mut().poll(&mut cx).is_pending(),
            "a sleep ten seconds ahead is not due at once"
        );
        let start = rt::time::Instant::now();
        sleep.await;
        let moved = rt::time::Instant::now() - start;
        assert!(
            moved >= Duration::from_secs(10) && moved < Duration::from_secs(11),
            "auto-advance ran the paused clock to the deadline (within its tick): {moved:?}"
        );
    });
}

/// Requests on one keep-alive connection after an hour of paused time: hyper's header-read
/// timeout (30 s by default) starts at each wait for a head, from rt's clock.
fn keep_alive_after_advance(rt: rt::Runtime) {
    support::deadline(move || {
        rt.block_on(async {
            rt::time::advance(HOUR).await;
            let addr = http_support::start(service_fn(http_support::echo_path)).await;
            let mut client = http_support::http1_client(addr).await;
            for path in ["/a", "/b", "/c"] {
                client.ready().await.unwrap();
                let resp = client
                    .send_request(http_support::get(path))
                    .await
                    .unwrap_or_else(|e| panic!("request {path} after the advance failed: {e}"));
                assert_eq!(http_support::body_string(resp).await, format!("GET {path}"));
            }
        })
    });
}

#[test]
fn keep_alive_after_an_advance_current_thread() {
    keep_alive_after_advance(paused(0));
}

#[test]
fn keep_alive_after_an_advance_multi_thread() {
    keep_alive_after_advance(paused(2));
}

#[test]
fn a_stalled_head_times_out_on_the_paused_clock() {
    support::deadline(|| {
        paused(0).block_on(async {
            rt::time::advance(HOUR).await;
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = rt::spawn(async move {
                let (stream, _) = listener.accept().await.unwrap();
                let mut builder = hyper_util::server::conn::auto::Builder::new(
                    rt_hyper::HyperExecutor::new(),
                );
                builder
                    .http1()
                    .timer(HyperTimer::new())
                    .header_read_timeout(Duration::from_secs(30));
                let started = rt::time::Instant::now();
                let r = builder
                    .serve_connection(
                        rt_hyper::HyperIo::new(stream),
                        service_fn(http_support::echo_path),
                    )
                    .await;
                (r, started.elapsed())
            });
            let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
            client.write_all(b"GET / HTTP/1.1\r\nHost: lo").await.unwrap();
            let (r, waited) = server.await.unwrap();
            let err = r.expect_err("the stalled head must time out");
            let hyper_err = err
                .downcast_ref::<hyper::Error>()
                .unwrap_or_else(|| panic!("expected a hyper::Error, got {err}"));
            assert!(hyper_err.is_timeout(), "expected a timeout, got {hyper_err}");
            assert!(
                waited >= Duration::from_secs(30),
                "the timeout counted 30 s of the paused clock, not a deadline an hour back: {waited:?}"
            );
            drop(client);
        })
    });
}
