//! Running tokio-only futures on rt (cargo feature `tokio-compat`).
//!
//! A future that uses tokio's reactor or timers (`tokio::net`, `tokio::time`, a client library
//! built on them) panics outside a tokio runtime. [`Compat`] runs it inside an rt task: each poll
//! (and the drop) of the wrapped future happens inside the context of one lazily started,
//! single-thread tokio runtime shared by the whole process, whose own thread (`rt-tokio-compat`)
//! drives tokio's IO and timers and wakes the rt task. This is what smol users do with
//! `async-compat`. The rt task itself stays on rt's workers; only tokio's driver runs on the
//! extra thread.
//!
//! Only the polls and the drop are inside tokio's context, not the construction: a tokio timer
//! or socket created outside it panics ("there is no reactor running"), so wrap the `async`
//! block that creates it — `async { tokio::time::sleep(d).await }.compat()` — not the tokio
//! future itself.
//!
//! ```
//! use rt::compat::tokio::CompatExt;
//! use std::time::Duration;
//!
//! # rt::Runtime::new()?.block_on(async {
//! let t = rt::spawn(async {
//!     tokio::time::sleep(Duration::from_millis(1)).await;
//!     7
//! }.compat());
//! assert_eq!(t.await.unwrap(), 7);
//! # });
//! # Ok::<(), std::io::Error>(())
//! ```

use std::future::Future;
use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

/// The handle of the process's tokio runtime, started on first use. The runtime lives on its
/// own thread, which blocks in it for ever so that its IO and timer drivers run.
fn tokio_handle() -> &'static tokio::runtime::Handle {
    static HANDLE: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("rt-tokio-compat".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match runtime {
                    Ok(runtime) => {
                        let _ = tx.send(Ok(runtime.handle().clone()));
                        runtime.block_on(std::future::pending::<()>());
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            })
            .expect("rt::compat::tokio: could not start the tokio driver thread");
        match rx.recv() {
            Ok(Ok(handle)) => handle,
            Ok(Err(e)) => panic!("rt::compat::tokio: could not start the tokio runtime: {e}"),
            Err(_) => panic!("rt::compat::tokio: the tokio driver thread died while starting"),
        }
    })
}

/// A future run inside the shared tokio runtime's context: see the [module docs](self).
/// Made by [`Compat::new`] or [`CompatExt::compat`].
#[derive(Debug)]
pub struct Compat<T> {
    /// Dropped by hand in `Drop`, inside the tokio context.
    inner: ManuallyDrop<T>,
}

impl<T> Compat<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Compat<T> {
        Compat {
            inner: ManuallyDrop::new(inner),
        }
    }

    /// The wrapped value.
    pub fn get_ref(&self) -> &T {
        &self.inner
    }
}

impl<T: Future> Future for Compat<T> {
    type Output = T::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T::Output> {
        let _enter = tokio_handle().enter();
        // SAFETY: `inner` is structurally pinned: it is never moved out of a pinned `Compat`
        // (there is no method that does), and `Drop` drops it in place.
        let inner = unsafe { self.map_unchecked_mut(|c| &mut *c.inner) };
        inner.poll(cx)
    }
}

impl<T> Drop for Compat<T> {
    fn drop(&mut self) {
        // Tokio resources may need the context to deregister.
        let _enter = tokio_handle().enter();
        // SAFETY: `inner` is dropped exactly once, here, in place, and never used after.
        unsafe { ManuallyDrop::drop(&mut self.inner) };
    }
}

/// `.compat()` for every future: wraps it in a [`Compat`].
pub trait CompatExt: Future + Sized {
    /// Runs `self` inside the shared tokio runtime's context (see [`Compat`]).
    fn compat(self) -> Compat<Self> {
        Compat::new(self)
    }
}

impl<T: Future> CompatExt for T {}
