//! Adapters that turn callback-style and blocking APIs into futures.
//!
//! - [`callback`]: a future completed by a callback, from any thread (a C library's callback
//!   thread included), with [`Abandoned`] when the callback side gives up, and
//!   [`Completer::is_cancelled`] telling the callback side that nobody waits any more.
//! - [`blocking`]: a blocking closure on the runtime's blocking pool, as a future.
//!
//! ```
//! use rt::adapt::{callback, Completer};
//!
//! // A callback API of the usual shape: it calls `cb` later, on a thread of its own.
//! fn register(cb: impl FnOnce(u32) + Send + 'static) {
//!     std::thread::spawn(move || cb(42));
//! }
//!
//! let rt = rt::Builder::new_multi_thread().worker_threads(1).build()?;
//! let got = rt.block_on(callback(|done: Completer<u32>| register(move |v| done.complete(v))));
//! assert_eq!(got, Ok(42));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Adapters for callback and blocking APIs (`rt::adapt`)
//!
//! ```rust
//! use rt::adapt::{callback, Abandoned, Completer};
//!
//! // A callback API that calls back on a thread of its own (as a C library might).
//! fn fetch(key: u32, cb: impl FnOnce(String) + Send + 'static) {
//!     std::thread::spawn(move || cb(format!("value of {key}")));
//! }
//!
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! rt.block_on(async {
//!     let v = callback(|done: Completer<String>| fetch(7, move |v| done.complete(v))).await;
//!     assert_eq!(v.as_deref(), Ok("value of 7"));
//!
//!     // A Completer dropped without completing: the callback will never come.
//!     let lost = callback(|done: Completer<u32>| drop(done)).await;
//!     assert_eq!(lost, Err(Abandoned));
//!
//!     // A blocking call on the blocking pool; a panic in it is the JoinError.
//!     let n = rt::adapt::blocking(|| 6 * 7).await.unwrap();
//!     assert_eq!(n, 42);
//! });
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! `Completer<T>` is `Send + 'static` and may complete from any thread; dropping the `callback`
//! future makes `Completer::is_cancelled()` true so the callback side can stop. `blocking(f)` is
//! exactly `spawn_blocking(f)` under a name that says what it is for.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use rt_sync::oneshot;

use crate::task::JoinHandle;

/// Makes a future out of a callback API: calls `register` at once with a [`Completer`], whose
/// [`complete`](Completer::complete) resolves the future.
///
/// The future resolves to `Ok(value)`, or to `Err(Abandoned)` when the `Completer` is dropped
/// without completing (the callback will never come). Dropping the future makes
/// [`Completer::is_cancelled`] true, so the callback side can stop its work.
///
/// No runtime is needed: the `Completer` wakes whatever polls the future, from any thread.
pub fn callback<T, F>(register: F) -> Callback<T>
where
    F: FnOnce(Completer<T>),
    T: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    register(Completer { tx });
    Callback { rx }
}

/// The future of [`callback`].
///
/// # Cancel safety
/// Cancel safe in the sense that dropping it loses only a value not yet delivered; the
/// `Completer` then reports [`is_cancelled`](Completer::is_cancelled).
#[must_use = "futures do nothing unless awaited; dropping this one cancels the callback"]
pub struct Callback<T> {
    rx: oneshot::Receiver<T>,
}

impl<T> Future for Callback<T> {
    type Output = Result<T, Abandoned>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.rx)
            .poll(cx)
            .map(|r| r.map_err(|_| Abandoned))
    }
}

impl<T> fmt::Debug for Callback<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callback").finish_non_exhaustive()
    }
}

/// The completing side of [`callback`]: `Send + 'static`, usable from any thread.
pub struct Completer<T> {
    tx: oneshot::Sender<T>,
}

impl<T> Completer<T> {
    /// Resolves the future with `value`. If the future was dropped meanwhile, the value is
    /// dropped.
    pub fn complete(self, value: T) {
        let _ = self.tx.send(value);
    }

    /// Whether the future was dropped: nobody waits for the value any more, so the callback
    /// side may stop its work.
    pub fn is_cancelled(&self) -> bool {
        self.tx.is_closed()
    }
}

impl<T> fmt::Debug for Completer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completer")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// The error of a [`callback`] future whose [`Completer`] was dropped without completing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Abandoned;

impl fmt::Display for Abandoned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the callback was abandoned: its Completer was dropped without completing")
    }
}

impl std::error::Error for Abandoned {}

/// Runs the blocking closure `f` on the current runtime's blocking pool; the returned handle
/// resolves to `Ok(f())`, or to `Err(JoinError)` when `f` panicked
/// ([`JoinError::is_panic`](crate::task::JoinError::is_panic)).
///
/// The seeds' "wrap a blocking call in a future": a thin, named shape over
/// [`spawn_blocking`](crate::spawn_blocking), which it is exactly (so it may also be aborted
/// before it starts through the handle, and keeps running if the handle is dropped).
///
/// ```
/// let rt = rt::Builder::new_multi_thread().worker_threads(1).build()?;
/// let n = rt.block_on(async { rt::adapt::blocking(|| 6 * 7).await })?;
/// assert_eq!(n, 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Panics
/// Outside a runtime (as `spawn_blocking`).
#[track_caller]
pub fn blocking<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    crate::spawn_blocking(f)
}
