//! [`serve`] and [`serve_with_shutdown`]: the accept loop, one task per connection.

use std::error::Error as StdError;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use hyper::body::{Body, Incoming};
use hyper::service::Service;
use hyper::{Request, Response};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;

use crate::{HyperExecutor, HyperIo, HyperTimer};
use rt::net::{TcpListener, TcpStream};

/// How long the loop waits after an accept error that says the process ran out of a resource
/// (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`) before accepting again: long enough for
/// connections to close, short enough not to be noticed.
const RESOURCE_BACKOFF: Duration = Duration::from_millis(50);

/// Serves HTTP/1.1 and HTTP/2 (detected from each connection's first bytes) on `listener`,
/// one rt task per connection, each request answered by a clone of `service`.
///
/// `service` is a hyper `Service` (`hyper::service::service_fn(handler)`, or a tower service
/// such as an axum `Router` through `hyper_util::service::TowerToHyperService`). The
/// connections get [`HyperExecutor`] and [`HyperTimer`], so hyper's timeouts (HTTP/1's
/// header-read timeout, on by default) fire instead of panicking for want of a timer.
///
/// Runs until accepting fails for good (the returned error). An accept error that passes —
/// a connection aborted before it was accepted, or the process out of file descriptors or
/// memory — is logged with `tracing` and, for the latter, backed off from for 50 ms; it is
/// never fatal. Connection errors (a client that vanished) are logged at debug level.
///
/// Must be polled inside an rt runtime.
pub async fn serve<S, B>(listener: TcpListener, service: S) -> io::Result<()>
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    accept_loop(listener, service, std::future::pending::<()>(), None).await
}

/// Like [`serve`], until `signal` completes (any future: `rt::signal::ctrl_c()`, a oneshot
/// receiver…). Then it stops accepting and closes the listener, asks every open connection to
/// shut down gracefully (hyper's `graceful_shutdown`: in-flight requests finish, HTTP/1
/// keep-alive ends, HTTP/2 sends GOAWAY) and returns once every connection has closed.
pub async fn serve_with_shutdown<S, B, F>(
    listener: TcpListener,
    service: S,
    signal: F,
) -> io::Result<()>
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
    F: Future,
{
    let graceful = GracefulShutdown::new();
    accept_loop(listener, service, signal, Some(&graceful)).await?;
    graceful.shutdown().await;
    Ok(())
}

/// hyper-util's auto builder with rt's executor and timer on both protocols.
fn builder() -> Builder<HyperExecutor> {
    let mut b = Builder::new(HyperExecutor::new());
    b.http1().timer(HyperTimer::new());
    b.http2().timer(HyperTimer::new());
    b
}

/// Accepts until `signal` completes (`Ok`) or accepting fails for good (`Err`). The listener is
/// dropped on return, so no connection waits in its backlog during a graceful shutdown.
async fn accept_loop<S, B, F>(
    listener: TcpListener,
    service: S,
    signal: F,
    graceful: Option<&GracefulShutdown>,
) -> io::Result<()>
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
    F: Future,
{
    let builder = Arc::new(builder());
    let mut signal = pin!(signal);
    loop {
        let accepted = poll_fn(|cx| {
            if signal.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            listener.poll_accept(cx).map(Some)
        })
        .await;
        match accepted {
            None => return Ok(()),
            Some(Ok((stream, _peer))) => {
                spawn_connection(stream, &builder, service.clone(), graceful)
            }
            Some(Err(e)) if is_connection_error(&e) => {
                tracing::debug!(error = %e, "rt_hyper::serve: accept error (connection gone)");
            }
            Some(Err(e)) if is_resource_error(&e) => {
                tracing::error!(error = %e, backoff = ?RESOURCE_BACKOFF, "rt_hyper::serve: accept error, backing off");
                let mut backoff = pin!(rt::time::sleep(RESOURCE_BACKOFF));
                let stop = poll_fn(|cx| {
                    if signal.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(true);
                    }
                    backoff.as_mut().poll(cx).map(|()| false)
                })
                .await;
                if stop {
                    return Ok(());
                }
            }
            Some(Err(e)) => return Err(e),
        }
    }
}

fn spawn_connection<S, B>(
    stream: TcpStream,
    builder: &Arc<Builder<HyperExecutor>>,
    service: S,
    graceful: Option<&GracefulShutdown>,
) where
    S: Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    // Small responses go out at once rather than waiting on Nagle; failure changes nothing.
    let _ = stream.set_nodelay(true);
    let io = HyperIo::new(stream);
    let builder = builder.clone();
    let watcher = graceful.map(|g| g.watcher());
    drop(rt::spawn(async move {
        let conn = builder.serve_connection_with_upgrades(io, service);
        let res = match watcher {
            Some(w) => w.watch(conn).await,
            None => conn.await,
        };
        if let Err(e) = res {
            tracing::debug!(error = %e, "rt_hyper::serve: connection error");
        }
    }));
}

/// The peer gave up before the connection was accepted: nothing to do but accept the next.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
    )
}

/// The process is out of something (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`): back off.
fn is_resource_error(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}
