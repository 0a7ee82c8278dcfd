//! [`MaybeDone`]: a future and, once it finished, its output, for `join!` and `try_join!`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future that keeps its output once ready, so a macro can poll several to completion and
/// collect their outputs afterwards. Not part of the public API.
#[doc(hidden)]
pub enum MaybeDone<F: Future> {
    /// Not finished yet.
    Future(F),
    /// Finished; the output waits to be taken.
    Done(F::Output),
    /// The output was taken.
    Gone,
}

impl<F: Future> MaybeDone<F> {
    /// Wraps `future`.
    pub fn new(future: F) -> Self {
        MaybeDone::Future(future)
    }

    /// Polls the inner future unless it finished; `Ready` once it has.
    pub fn poll_done(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: the inner future is never moved out while pinned: it is only polled in
        // place here and dropped in place when the variant is overwritten below.
        let this = unsafe { self.get_unchecked_mut() };
        match this {
            MaybeDone::Future(f) => {
                // SAFETY: `f` lives inside the pinned `MaybeDone` and is not moved (see above).
                let f = unsafe { Pin::new_unchecked(f) };
                match f.poll(cx) {
                    Poll::Ready(out) => {
                        *this = MaybeDone::Done(out);
                        Poll::Ready(())
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
            MaybeDone::Done(_) | MaybeDone::Gone => Poll::Ready(()),
        }
    }

    /// The output, if it is there and was not taken yet.
    pub fn output_mut(self: Pin<&mut Self>) -> Option<&mut F::Output> {
        // SAFETY: only the output is exposed, never the pinned future.
        match unsafe { self.get_unchecked_mut() } {
            MaybeDone::Done(out) => Some(out),
            _ => None,
        }
    }

    /// Takes the output.
    ///
    /// # Panics
    /// If the future has not finished or the output was taken already.
    pub fn take_output(self: Pin<&mut Self>) -> F::Output {
        // SAFETY: the value is replaced only when it is `Done`, so no pinned future moves.
        let this = unsafe { self.get_unchecked_mut() };
        assert!(
            matches!(this, MaybeDone::Done(_)),
            "MaybeDone::take_output: the output is not there"
        );
        match std::mem::replace(this, MaybeDone::Gone) {
            MaybeDone::Done(out) => out,
            _ => unreachable!("checked above"),
        }
    }
}

impl<F: Future> std::fmt::Debug for MaybeDone<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MaybeDone::Future(_) => "MaybeDone::Future",
            MaybeDone::Done(_) => "MaybeDone::Done",
            MaybeDone::Gone => "MaybeDone::Gone",
        })
    }
}
