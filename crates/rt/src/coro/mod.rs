//! Lua-style coroutines: create, resume with a value, yield a value back, `is_alive`.
//!
//! ```
//! use rt::coro::{Co, Coroutine, Resumed};
//! let mut co: Coroutine<&str, &str, u32> = Coroutine::new(|co: Co<&str, &str>, first: &str| async move {
//!     assert_eq!(first, "start");            // the first resume's argument is the body's parameter
//!     let got = co.yield_("one").await;      // later resume arguments are what yield_ returns
//!     assert_eq!(got, "again");
//!     7
//! });
//! assert!(co.is_alive());
//! assert!(matches!(co.resume("start"), Ok(Resumed::Yield("one"))));
//! assert!(matches!(co.resume("again"), Ok(Resumed::Return(7))));
//! assert!(!co.is_alive());
//! assert!(co.resume("x").unwrap_err().is_dead());
//! ```
//!
//! A coroutine is *stackless*: its body is an `async` block, and [`Co::yield_`] is a future
//! that hands its value to the resumer through a slot and suspends the body; a resume polls the
//! body once. No stack switching, so no `unsafe` stack tricks and nothing tied to a thread:
//! [`Coroutine`] is `Send` when its types are, may be resumed on a different thread each time,
//! and needs no runtime at all. The shape is nightly Rust's `Coroutine` trait
//! (`resume(arg) -> Yielded(y) | Complete(r)`), with Lua's rule for the first resume: its
//! argument is the body's parameter.
//!
//! Unlike a plain generator, a body may await anything between yields (timers, IO, channels):
//! [`Coroutine::resume_async`] then waits for it like any future; the synchronous
//! [`Coroutine::resume`] blocks the thread until it is ready (and panics, with a message, on a
//! thread that drives an rt runtime, where blocking would stall it).
//!
//! # Memory
//!
//! The body and its future live in one block of `rt-core`'s frame pool (up to 4 KiB; a larger
//! body comes from the global allocator), so creating and dropping coroutines in a loop
//! allocates nothing from the global allocator once the pool is warm, and
//! [`reset`](Coroutine::reset) gives a dead coroutine a new body in the same block when it
//! fits.
//!
//! # Nesting, and the deep-recursion pitfall
//!
//! A body may create and resume another coroutine. Each nested resume holds a native stack frame
//! (the outer resume, polling the outer body, calling the inner resume, ...) until the inner
//! one yields or returns, so nesting depth is bounded by the thread's stack: about 1,000 deep
//! fits a 2 MiB thread stack in a release build, much less in a debug build. Recursion that
//! goes deeper (a tree walk, a recursive-descent parser) should not nest resumes: let each
//! coroutine *yield a request* for its child, and drive them all from one loop with an explicit
//! stack, which grows on the heap instead:
//!
//! ```
//! use rt::coro::{Co, Coroutine, Resumed};
//!
//! // Yields the depth of the child it wants run; is resumed with that child's result.
//! fn node(depth: u32) -> Coroutine<u32, u64, u64> {
//!     Coroutine::new(move |co: Co<u32, u64>, _first: u64| async move {
//!         if depth == 0 {
//!             return 1;
//!         }
//!         let below = co.yield_(depth - 1).await;
//!         below + 1
//!     })
//! }
//!
//! let mut stack = vec![node(100_000)]; // far deeper than nested resumes could go
//! let mut arg = 0;
//! let total = loop {
//!     let top = stack.last_mut().expect("the stack empties only at the end");
//!     match top.resume(arg).unwrap() {
//!         Resumed::Yield(child_depth) => {
//!             stack.push(node(child_depth));
//!             arg = 0;
//!         }
//!         Resumed::Return(value) => {
//!             stack.pop();
//!             if stack.is_empty() {
//!                 break value;
//!             }
//!             arg = value; // the parent's `yield_` returns the child's result
//!         }
//!     }
//! };
//! assert_eq!(total, 100_001);
//! ```
//!
//! # Rules for the body
//!
//! - A [`Co`] works only inside the body it was given to, while its coroutine is being resumed:
//!   polled anywhere else (moved into a spawned task, another thread or another coroutine, or
//!   kept past a [`reset`](Coroutine::reset)) its `yield_` panics with a message; it never
//!   touches another coroutine's state.
//! - One `yield_` at a time: two of one body pending in the same poll (both in a `join!`)
//!   panic with a message. A `yield_` dropped before it returns (a `select!` loser) gives up
//!   the resume argument meant for it.
//! - A panic in the body is caught, returned once by the resume as an error
//!   ([`ResumeError::is_panic`]), and leaves the coroutine dead.
//!
//! Implementation: `frame.rs` (the frame, its stages, the slot protocol and its rules),
//! `block.rs` (the blocking `resume`), `coroutine.rs` (the public types).
//!
//! # Coroutines (`rt::coro`)
//!
//! Lua-style coroutines in stable Rust: create one from an `async` body, resume it with a value,
//! get a yielded value back. The first resume's argument is the body's parameter; later ones are
//! what `yield_` returns.
//!
//! ```rust
//! use rt::coro::{Co, Coroutine, Resumed};
//!
//! let mut co: Coroutine<&str, &str, u32> = Coroutine::new(|co: Co<&str, &str>, first: &str| async move {
//!     assert_eq!(first, "start");
//!     let got = co.yield_("one").await;
//!     assert_eq!(got, "again");
//!     7
//! });
//! assert!(matches!(co.resume("start"), Ok(Resumed::Yield("one"))));
//! assert!(matches!(co.resume("again"), Ok(Resumed::Return(7))));
//! assert!(co.resume("x").unwrap_err().is_dead());
//!
//! // A generator (`Coroutine<Y, (), ()>`) is an Iterator, and `into_stream()` a Stream.
//! let squares: Coroutine<u32> = Coroutine::new(|co: Co<u32>, ()| async move {
//!     for i in 1..=4 {
//!         co.yield_(i * i).await;
//!     }
//! });
//! assert_eq!(squares.collect::<Vec<_>>(), [1, 4, 9, 16]);
//!
//! // Between yields a body may await anything; `resume_async` waits for it without blocking.
//! let rt = rt::Builder::new_current_thread().build()?;
//! let out = rt.block_on(async {
//!     let mut co: Coroutine<(), (), &str> = Coroutine::new(|_co: Co<()>, ()| async move {
//!         rt::time::sleep(std::time::Duration::from_millis(1)).await;
//!         "done"
//!     });
//!     co.resume_async(()).await
//! });
//! assert!(matches!(out, Ok(Resumed::Return("done"))));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Stackless: the body is a future polled once per resume, so a `Coroutine` is `Send` when its
//! types are (resume it on any thread), needs no runtime, and its frame comes from the frame pool
//! (creating and dropping coroutines allocates nothing once warm; `reset(body)` reuses a dead one's
//! frame). `LocalCoroutine` takes a `!Send` body. A panic in the body comes back once as a
//! `ResumeError` (`is_panic`, `into_panic`) and leaves the coroutine dead. The synchronous `resume`
//! of a body that awaits something not ready blocks the thread, and panics with a message on a
//! runtime thread (use `resume_async` there); a `Co` used outside its body panics with a message.
//! Each nested resume holds a native stack frame: the `rt::coro` docs show the iterative pattern
//! for deep recursion.

mod block;
mod coroutine;
mod frame;

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

pub use coroutine::{Coroutine, LocalCoroutine};

use frame::{Payload, Shared, Slot};

/// The handle a coroutine's body yields through; given to the body as its first parameter.
///
/// It works only inside that body while its coroutine is being resumed (see the module docs);
/// it is just an id, so moving it around is cheap and never unsafe.
pub struct Co<Y, R = ()> {
    /// The id of the body this `Co` was made for (`frame.rs`, rule 2).
    id: u64,
    _types: PhantomData<fn(Y) -> R>,
}

impl<Y, R> Co<Y, R> {
    pub(crate) fn new(id: u64) -> Co<Y, R> {
        Co {
            id,
            _types: PhantomData,
        }
    }

    /// Suspends the body, handing `y` to the resumer (whose `resume` returns
    /// [`Resumed::Yield(y)`](Resumed::Yield)); completes with the argument of the next resume.
    ///
    /// # Panics
    /// When polled outside this `Co`'s body or while its coroutine is not being resumed, and
    /// when another `yield_` of the same body is pending in the same poll.
    ///
    /// # Cancel safety
    /// Dropped before it completes, the value it yielded stays yielded and the resume argument
    /// meant for it is dropped.
    pub fn yield_(&self, y: Y) -> impl Future<Output = R> {
        Yield::<Y, R> {
            id: self.id,
            value: Some(y),
            _resume: PhantomData,
        }
    }
}

impl<Y, R> fmt::Debug for Co<Y, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Co").field("id", &self.id).finish()
    }
}

/// The future of [`Co::yield_`].
struct Yield<Y, R> {
    id: u64,
    /// `Some` until the first poll has put it in the slot.
    value: Option<Y>,
    _resume: PhantomData<fn() -> R>,
}

// The value is never pinned: it is moved into the slot.
impl<Y, R> Unpin for Yield<Y, R> {}

impl<Y, R> Future for Yield<Y, R> {
    type Output = R;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let this = self.get_mut();
        let current = frame::current();
        // SAFETY: a non-null `CURRENT_COROUTINE` points at the `Shared` of a coroutine inside
        // `poll_resume` on this thread (rule 1 in `frame.rs`): live, and its first field is the
        // `u64` id, which nobody writes during the poll.
        if current.is_null() || unsafe { *current } != this.id {
            panic!(
                "Co::yield_ polled outside its coroutine's body: a Co works only inside the body \
                 it was given to, while that coroutine is being resumed (this one was moved out \
                 of its body — into a spawned task, another thread or another coroutine — or \
                 its coroutine was reset); yield from the body itself"
            );
        }
        // SAFETY: the ids match, so per rules 1 and 2 in `frame.rs` `current` points at the
        // `Shared<Y, R>` of this `Co`'s coroutine, which is inside `poll_resume` on this thread,
        // polling the body that polls us: it is live, of these types, and only shared (its
        // slot is a `Cell`) for the duration of this call.
        let slot = unsafe { &(*current.cast::<Shared<Y, R>>()).slot };
        match this.value.take() {
            Some(y) => match slot.replace(Slot::Empty) {
                Slot::Yielded(other) => {
                    slot.set(Slot::Yielded(other));
                    panic!(
                        "two Co::yield_ futures of one coroutine are pending at once (e.g. both \
                         in a join!): await each yield_ before starting the next"
                    );
                }
                // Rule 3: a stale resume argument (its `yield_` was dropped) goes.
                Slot::Empty | Slot::Resumed(_) => {
                    slot.set(Slot::Yielded(y));
                    Poll::Pending
                }
            },
            None => match slot.replace(Slot::Empty) {
                Slot::Resumed(r) => Poll::Ready(r),
                other => {
                    slot.set(other);
                    Poll::Pending
                }
            },
        }
    }
}

/// What a resume gave back: a yielded value, or the body's return value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resumed<Y, T> {
    /// The body yielded this value and is suspended.
    Yield(Y),
    /// The body returned this value; the coroutine is dead.
    Return(T),
}

/// Whether a coroutine can be resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Can be resumed: suspended at a yield, or not started yet.
    Suspended,
    /// Returned or panicked: a resume fails with [`ResumeError::is_dead`]; `reset` revives it.
    Dead,
}

/// Why a resume failed: the coroutine was dead already, or its body panicked.
///
/// `Send + Sync`: the panic payload is kept behind a lock, as in tokio's `JoinError`.
pub struct ResumeError {
    repr: Repr,
}

enum Repr {
    Dead,
    /// Boxed: keeps `ResumeError` one word, so a resume's result stays small on the hot path.
    Panic(Box<Payload>),
}

impl ResumeError {
    pub(crate) fn dead() -> ResumeError {
        ResumeError { repr: Repr::Dead }
    }

    pub(crate) fn panic(payload: Box<dyn Any + Send + 'static>) -> ResumeError {
        ResumeError {
            repr: Repr::Panic(Box::new(Payload::new(payload))),
        }
    }

    /// Whether the coroutine was resumed after it had returned or panicked.
    pub fn is_dead(&self) -> bool {
        matches!(self.repr, Repr::Dead)
    }

    /// Whether the body panicked during this resume (the coroutine is dead now).
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload, to inspect or pass to `std::panic::resume_unwind`.
    ///
    /// # Panics
    /// If the error is not a panic; check [`is_panic`](Self::is_panic) or use
    /// [`try_into_panic`](Self::try_into_panic).
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic().unwrap_or_else(|_| {
            panic!(
                "ResumeError::into_panic on an error that is not a panic (the coroutine was \
                 dead): check is_panic() first, or use try_into_panic"
            )
        })
    }

    /// The panic payload, or the error back when it is not a panic.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, ResumeError> {
        match self.repr {
            Repr::Panic(p) => Ok(p.into_inner()),
            Repr::Dead => Err(self),
        }
    }
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Dead => f.write_str("cannot resume a dead coroutine (it returned or panicked)"),
            Repr::Panic(p) => match p.message() {
                Some(msg) => write!(f, "coroutine panicked: {msg}"),
                None => f.write_str("coroutine panicked"),
            },
        }
    }
}

impl fmt::Debug for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Dead => f.write_str("ResumeError::Dead"),
            Repr::Panic(p) => match p.message() {
                Some(msg) => write!(f, "ResumeError::Panic({msg:?})"),
                None => f.write_str("ResumeError::Panic(..)"),
            },
        }
    }
}

impl std::error::Error for ResumeError {}
