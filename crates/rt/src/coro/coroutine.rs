//! [`Coroutine`] (a `Send` body) and [`LocalCoroutine`] (a `!Send` one): the same API over
//! `frame::Raw`, differing only in their bounds.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;

use super::frame::{Local, Raw, Sendable};
use super::{block, Co, ResumeError, Resumed, Status};

/// A Lua-style coroutine with a `Send` body: yields `Y`, is resumed with `R`, returns `T`.
///
/// See the [module docs](super) for an example, the rules for the body and the nesting
/// pitfall. `Coroutine` is `Send` when `Y`, `R` and `T` are, so it may be resumed on a different
/// thread each time; it needs no runtime.
///
/// `Coroutine<Y, (), ()>` is a generator: an [`Iterator`] of its yields, and a
/// [`Stream`] through [`into_stream`](Coroutine::into_stream).
pub struct Coroutine<Y, R = (), T = ()> {
    raw: Raw<Y, R, T, Sendable>,
}

/// A Lua-style coroutine whose body need not be `Send` (it may hold an `Rc` or a `RefCell` of
/// local state): the same API as [`Coroutine`], and `!Send` itself.
///
/// ```compile_fail
/// fn assert_send<T: Send>(_: T) {}
/// let co: rt::coro::LocalCoroutine<u32> =
///     rt::coro::LocalCoroutine::new(|_co, ()| async move {});
/// assert_send(co);
/// ```
pub struct LocalCoroutine<Y, R = (), T = ()> {
    raw: Raw<Y, R, T, Local>,
}

/// One resume, to its end, as a future (see `resume_async`).
struct ResumeAsync<'a, Y, R, T, K> {
    raw: &'a mut Raw<Y, R, T, K>,
    /// Taken by the first poll.
    arg: Option<R>,
}

// The argument is never pinned: it is moved into the body or the slot.
impl<Y, R, T, K> Unpin for ResumeAsync<'_, Y, R, T, K> {}

impl<Y, R, T, K> Future for ResumeAsync<'_, Y, R, T, K> {
    type Output = Result<Resumed<Y, T>, ResumeError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.raw.poll_resume(&mut this.arg, cx)
    }
}

/// A generator's yields as a [`Stream`] (see `into_stream`).
struct GenStream<Y, K> {
    raw: Raw<Y, (), (), K>,
    /// A resume has started and not finished (the body awaits something that is not ready).
    in_flight: bool,
}

// Nothing in it is pinned: the body's future lives in its own pool block.
impl<Y, K> Unpin for GenStream<Y, K> {}

impl<Y, K> Stream for GenStream<Y, K> {
    type Item = Y;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Y>> {
        let this = self.get_mut();
        let mut arg = if this.in_flight { None } else { Some(()) };
        this.in_flight = true;
        let out = std::task::ready!(this.raw.poll_resume(&mut arg, cx));
        this.in_flight = false;
        Poll::Ready(next_item(out))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, (!self.raw.is_alive()).then_some(0))
    }
}

/// A generator's resume result as an `Iterator`/`Stream` item: a panic in the body goes on
/// unwinding in the caller, as it would in any iterator.
fn next_item<Y>(out: Result<Resumed<Y, ()>, ResumeError>) -> Option<Y> {
    match out {
        Ok(Resumed::Yield(y)) => Some(y),
        Ok(Resumed::Return(())) => None,
        Err(e) => match e.try_into_panic() {
            Ok(payload) => std::panic::resume_unwind(payload),
            Err(_dead) => None,
        },
    }
}

macro_rules! common_api {
    ($name:ident) => {
        impl<Y, R, T> $name<Y, R, T> {
            /// Resumes the coroutine with `arg` (the body's parameter on the first resume, what
            /// the pending `yield_` returns after that) and runs it until it yields or returns.
            ///
            /// If the body awaits something else that is not ready (a timer, a channel), this
            /// blocks the calling thread until it is.
            ///
            /// # Errors
            /// [`ResumeError::is_dead`] when the coroutine had returned or panicked before;
            /// [`ResumeError::is_panic`] when the body panicked now (it is dead afterwards).
            ///
            /// # Panics
            /// On a thread that drives an rt runtime (a worker, or inside `block_on`), when the
            /// body awaits something that is not ready, since blocking would stall the runtime:
            /// use [`resume_async`](Self::resume_async) there.
            #[track_caller]
            pub fn resume(&mut self, arg: R) -> Result<Resumed<Y, T>, ResumeError> {
                block::resume(&mut self.raw, arg, concat!(stringify!($name), "::resume"))
            }

            /// Resumes the coroutine with `arg`, as a future: the same as
            /// [`resume`](Self::resume), but while the body awaits something that is not ready
            /// (timers, IO, channels), this future is pending instead of blocking the thread.
            ///
            /// # Cancel safety
            /// Not cancel safe: dropped while pending, the body stays inside whatever it was
            /// awaiting (it is still alive); the next resume continues it from there, and that
            /// resume's argument is discarded, since no `yield_` was waiting for it.
            pub fn resume_async(
                &mut self,
                arg: R,
            ) -> impl Future<Output = Result<Resumed<Y, T>, ResumeError>> + '_ {
                ResumeAsync {
                    raw: &mut self.raw,
                    arg: Some(arg),
                }
            }

            /// Whether the coroutine can be resumed: suspended, or not started yet.
            pub fn is_alive(&self) -> bool {
                self.raw.is_alive()
            }

            /// [`Status::Suspended`] (not started yet, or at a yield) or [`Status::Dead`]
            /// (returned or panicked).
            pub fn status(&self) -> Status {
                if self.raw.is_alive() {
                    Status::Suspended
                } else {
                    Status::Dead
                }
            }

            #[track_caller]
            fn assert_dead_for_reset(&self) {
                if self.raw.is_alive() {
                    panic!(concat!(
                        stringify!($name),
                        "::reset called on a live coroutine (status Suspended): reset only \
                             a dead one (check is_alive()), or drop this one and create a new \
                             one to abandon its body"
                    ));
                }
            }
        }

        impl<Y> $name<Y, (), ()> {
            /// The generator's yields as a [`Stream`], driven by `resume_async`: the body may
            /// await anything between yields. The stream ends when the body returns; a panic
            /// in the body unwinds out of `poll_next`.
            pub fn into_stream(self) -> impl Stream<Item = Y> + Unpin {
                GenStream {
                    raw: self.raw,
                    in_flight: false,
                }
            }
        }

        /// A generator: each `next` resumes it once (blocking as [`resume`](Self::resume)
        /// does); `None` once the body has returned. A panic in the body unwinds out of `next`.
        impl<Y> Iterator for $name<Y, (), ()> {
            type Item = Y;

            fn next(&mut self) -> Option<Y> {
                if !self.raw.is_alive() {
                    return None;
                }
                next_item(block::resume(
                    &mut self.raw,
                    (),
                    concat!(stringify!($name), " as Iterator: next"),
                ))
            }
        }

        /// `None` for good once the body has returned (or panicked).
        impl<Y> std::iter::FusedIterator for $name<Y, (), ()> {}

        impl<Y, R, T> fmt::Debug for $name<Y, R, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("status", &self.status())
                    .finish_non_exhaustive()
            }
        }
    };
}

common_api!(Coroutine);
common_api!(LocalCoroutine);

impl<Y, R, T> Coroutine<Y, R, T> {
    /// Creates a coroutine that will run `body(co, first_arg)` on its first resume.
    ///
    /// The body's frame comes from `rt-core`'s frame pool (no global allocation once warm, for
    /// frames up to 4 KiB).
    pub fn new<F, Fut>(body: F) -> Self
    where
        F: FnOnce(Co<Y, R>, R) -> Fut + Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
    {
        Coroutine {
            raw: Raw::new(body),
        }
    }

    /// Gives a dead coroutine a new body (as the seeds' fiber `reset`), reusing its frame
    /// block when the new body fits it. A `Co` of the old body stays dead.
    ///
    /// # Panics
    /// If the coroutine is alive: reset only a dead one.
    #[track_caller]
    pub fn reset<F, Fut>(&mut self, body: F)
    where
        F: FnOnce(Co<Y, R>, R) -> Fut + Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
    {
        self.assert_dead_for_reset();
        self.raw.reset(body);
    }
}

impl<Y, R, T> LocalCoroutine<Y, R, T> {
    /// Creates a coroutine that will run `body(co, first_arg)` on its first resume; the body
    /// need not be `Send`.
    pub fn new<F, Fut>(body: F) -> Self
    where
        F: FnOnce(Co<Y, R>, R) -> Fut + 'static,
        Fut: Future<Output = T> + 'static,
    {
        LocalCoroutine {
            raw: Raw::new(body),
        }
    }

    /// Gives a dead coroutine a new body, reusing its frame block when the new body fits it.
    ///
    /// # Panics
    /// If the coroutine is alive: reset only a dead one.
    #[track_caller]
    pub fn reset<F, Fut>(&mut self, body: F)
    where
        F: FnOnce(Co<Y, R>, R) -> Fut + 'static,
        Fut: Future<Output = T> + 'static,
    {
        self.assert_dead_for_reset();
        self.raw.reset(body);
    }
}
