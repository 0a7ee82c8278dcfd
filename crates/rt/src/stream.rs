//! `futures_core::Stream` wrappers under tokio-stream's names (`tokio_stream::wrappers::*`
//! becomes `rt::stream::*`): listeners as streams of connections, an interval as a stream of
//! ticks, broadcast and watch receivers as streams of values.
//!
//! ```
//! use futures_core::Stream;
//! use rt::stream::BroadcastStream;
//! use std::pin::Pin;
//!
//! # rt::Runtime::new()?.block_on(async {
//! let (tx, rx) = rt::sync::broadcast::channel(4);
//! let mut values = BroadcastStream::new(rx);
//! tx.send(1).unwrap();
//! drop(tx);
//! let next = std::future::poll_fn(|cx| Pin::new(&mut values).poll_next(cx));
//! assert_eq!(next.await, Some(Ok(1)));
//! let next = std::future::poll_fn(|cx| Pin::new(&mut values).poll_next(cx));
//! assert_eq!(next.await, None);
//! # });
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures_core::Stream;

use crate::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use crate::sync::{broadcast, watch};
use crate::time::{Instant, Interval};

/// The connections a [`TcpListener`] accepts, as a stream. An accept error is an item; the
/// stream goes on after it (see `TcpListener::accept`).
#[derive(Debug)]
pub struct TcpListenerStream {
    inner: TcpListener,
}

impl TcpListenerStream {
    /// Wraps `listener`.
    pub fn new(listener: TcpListener) -> TcpListenerStream {
        TcpListenerStream { inner: listener }
    }

    /// The listener back.
    pub fn into_inner(self) -> TcpListener {
        self.inner
    }
}

impl Stream for TcpListenerStream {
    type Item = io::Result<TcpStream>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let (stream, _) = ready!(self.inner.poll_accept(cx))?;
        Poll::Ready(Some(Ok(stream)))
    }
}

impl AsRef<TcpListener> for TcpListenerStream {
    fn as_ref(&self) -> &TcpListener {
        &self.inner
    }
}

/// The connections a [`UnixListener`] accepts, as a stream (see [`TcpListenerStream`]).
#[derive(Debug)]
pub struct UnixListenerStream {
    inner: UnixListener,
}

impl UnixListenerStream {
    /// Wraps `listener`.
    pub fn new(listener: UnixListener) -> UnixListenerStream {
        UnixListenerStream { inner: listener }
    }

    /// The listener back.
    pub fn into_inner(self) -> UnixListener {
        self.inner
    }
}

impl Stream for UnixListenerStream {
    type Item = io::Result<UnixStream>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let (stream, _) = ready!(self.inner.poll_accept(cx))?;
        Poll::Ready(Some(Ok(stream)))
    }
}

impl AsRef<UnixListener> for UnixListenerStream {
    fn as_ref(&self) -> &UnixListener {
        &self.inner
    }
}

/// The ticks of an [`Interval`], as a never-ending stream of their instants.
#[derive(Debug)]
pub struct IntervalStream {
    inner: Interval,
}

impl IntervalStream {
    /// Wraps `interval`.
    pub fn new(interval: Interval) -> IntervalStream {
        IntervalStream { inner: interval }
    }

    /// The interval back.
    pub fn into_inner(self) -> Interval {
        self.inner
    }
}

impl Stream for IntervalStream {
    type Item = Instant;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Instant>> {
        self.inner.poll_tick(cx).map(Some)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// Errors of the stream wrappers (tokio-stream's `wrappers::errors`).
pub mod errors {
    use std::fmt;

    /// Why a [`BroadcastStream`](super::BroadcastStream) item is not a value.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum BroadcastStreamRecvError {
        /// The receiver fell behind: this many values were overwritten unread. The stream goes
        /// on with the oldest value kept.
        Lagged(u64),
    }

    impl fmt::Display for BroadcastStreamRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                BroadcastStreamRecvError::Lagged(n) => write!(f, "channel lagged by {n}"),
            }
        }
    }

    impl std::error::Error for BroadcastStreamRecvError {}
}

pub use errors::BroadcastStreamRecvError;

/// A receive in flight: it owns the receiver and hands it back with the result, so the stream
/// needs no self-reference (tokio-stream's shape).
type Pending<R, O> = Pin<Box<dyn Future<Output = (O, R)> + Send>>;

/// The values of a broadcast channel, as a stream: `Ok(value)`, or
/// `Err(BroadcastStreamRecvError::Lagged(n))` when `n` values were missed; it ends when every
/// sender is gone and every value was read.
pub struct BroadcastStream<T> {
    next: Option<Pending<broadcast::Receiver<T>, Result<T, broadcast::RecvError>>>,
}

async fn recv_owned<T: Clone>(
    mut rx: broadcast::Receiver<T>,
) -> (Result<T, broadcast::RecvError>, broadcast::Receiver<T>) {
    let r = rx.recv().await;
    (r, rx)
}

impl<T: Clone + Send + 'static> BroadcastStream<T> {
    /// Wraps `rx`.
    pub fn new(rx: broadcast::Receiver<T>) -> BroadcastStream<T> {
        BroadcastStream {
            next: Some(Box::pin(recv_owned(rx))),
        }
    }
}

impl<T: Clone + Send + 'static> Stream for BroadcastStream<T> {
    type Item = Result<T, BroadcastStreamRecvError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let Some(fut) = &mut self.next else {
            return Poll::Ready(None);
        };
        let (res, rx) = ready!(fut.as_mut().poll(cx));
        match res {
            Ok(v) => {
                self.next = Some(Box::pin(recv_owned(rx)));
                Poll::Ready(Some(Ok(v)))
            }
            Err(broadcast::RecvError::Lagged(n)) => {
                self.next = Some(Box::pin(recv_owned(rx)));
                Poll::Ready(Some(Err(BroadcastStreamRecvError::Lagged(n))))
            }
            Err(broadcast::RecvError::Closed) => {
                self.next = None;
                Poll::Ready(None)
            }
        }
    }
}

impl<T> fmt::Debug for BroadcastStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastStream")
            .field("ended", &self.next.is_none())
            .finish()
    }
}

/// The values of a watch channel, as a stream: [`WatchStream::new`] yields the current value
/// first, then each new one; [`WatchStream::from_changes`] only the new ones. Values that change
/// faster than the stream is polled are skipped (only the latest is seen). It ends when the
/// sender is gone.
pub struct WatchStream<T> {
    next: Option<Pending<watch::Receiver<T>, Result<(), watch::RecvError>>>,
}

async fn changed_owned<T>(
    mut rx: watch::Receiver<T>,
    wait: bool,
) -> (Result<(), watch::RecvError>, watch::Receiver<T>) {
    let r = if wait { rx.changed().await } else { Ok(()) };
    (r, rx)
}

impl<T: Clone + Send + Sync + 'static> WatchStream<T> {
    /// Wraps `rx`: the first item is the current value.
    pub fn new(rx: watch::Receiver<T>) -> WatchStream<T> {
        WatchStream {
            next: Some(Box::pin(changed_owned(rx, false))),
        }
    }

    /// Wraps `rx`: the first item is the first value sent after this call (or not yet seen).
    pub fn from_changes(rx: watch::Receiver<T>) -> WatchStream<T> {
        WatchStream {
            next: Some(Box::pin(changed_owned(rx, true))),
        }
    }
}

impl<T: Clone + Send + Sync + 'static> Stream for WatchStream<T> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let Some(fut) = &mut self.next else {
            return Poll::Ready(None);
        };
        let (res, mut rx) = ready!(fut.as_mut().poll(cx));
        match res {
            Ok(()) => {
                let value = rx.borrow_and_update().clone();
                self.next = Some(Box::pin(changed_owned(rx, true)));
                Poll::Ready(Some(value))
            }
            Err(_) => {
                self.next = None;
                Poll::Ready(None)
            }
        }
    }
}

impl<T> fmt::Debug for WatchStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchStream")
            .field("ended", &self.next.is_none())
            .finish()
    }
}
