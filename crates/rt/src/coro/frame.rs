//! One coroutine's frame and its resume slot: the machinery under
//! [`Coroutine`](super::Coroutine) and [`LocalCoroutine`](super::LocalCoroutine), which differ
//! only in their `Send` bound (the `K` parameter).
//!
//! # The frame
//!
//! The body closure, and once started the future it returned, live in one block from the
//! `rt-core` frame pool (`rt_core::pool::alloc`), type-erased behind a [`VTable`] of three
//! functions (`start`, `poll`, `drop`). The block never moves while the coroutine lives, so the
//! future in it is pinned. A block is allocated with the layout the pool really hands out for the
//! request ([`pool::block_layout`]: its size class, 64 B to 4 KiB in steps of 8, then 16, then
//! powers of two), so `reset` can tell whether a new body fits the old block and reuse it;
//! larger frames come from the global allocator (the pool's own rule), and are reused by `reset`
//! in the same way.
//!
//! # Stages
//!
//! ```text
//!   new, reset      first resume: body(co, arg)       a poll: Ready(T), or a panic
//!  ------------> Fresh ---------------------------> Running ----------------------------> Dead
//!                  |                                                                      ^
//!                  +------------------- the body's call panicked ------------------------+
//!
//!   reset (only from Dead): Dead -> Fresh, in the same block when the new body fits
//! ```
//!
//! - `Fresh`: the block holds `Content::Body(F)`. Public status `Suspended` (not started yet).
//! - `Running`: the block holds `Content::Future(Fut)`, pinned. Public status `Suspended`
//!   between resumes.
//! - `Dead`: the block holds nothing (its contents were dropped when the body returned or
//!   panicked); it stays allocated for `reset`. The stage is set to `Dead` *before* the block's
//!   contents are moved out or dropped, so a panic half-way never leaves a stage that claims
//!   contents the block no longer has.
//!
//! # The slot
//!
//! The coroutine and the `yield_` futures of its body talk through one slot, a
//! `Cell<Slot<Y, R>>` in the coroutine's [`Shared`] (beside the body's id; not in the frame):
//!
//! ```text
//!              resume(arg) before polling a Running body
//!   Empty ------------------------------------------------> Resumed(R)
//!   Empty / Resumed(R) (stale) --- yield_, first poll ----> Yielded(Y)
//!   Resumed(R) --- the waiting yield_, polled again ------> Empty      (yield_ returns R)
//!   Yielded(Y) --- resume, after the poll returned Pending -> Empty    (resume returns Yield(Y))
//! ```
//!
//! Rules, cited by number in the code:
//!
//! 1. **Only inside a poll.** The slot is touched only on the thread that is polling the
//!    coroutine's body, while `poll_resume` is on its stack: by `poll_resume` itself, and by a
//!    `yield_` future, which reaches it through the thread-local [`CURRENT_COROUTINE`] (the address of
//!    the running coroutine's [`Shared`]: its id, then its slot), set for exactly the duration
//!    of the body's poll and restored after it (also on unwind), so nested coroutines see their
//!    own. Hence no atomics:
//!    the slot is never shared between threads at the same time, and `Coroutine: Send` moves it
//!    whole.
//! 2. **Ids are unique.** Every body (each `new` and each `reset`) gets a fresh id, never reused
//!    in the process; its `Co` carries that id. A `yield_` future compares its id with
//!    `CURRENT_COROUTINE`'s before touching anything and panics with a message on a mismatch (a `Co` moved
//!    out of its body, polled in a spawned task, in another coroutine, or after a `reset`). Equal
//!    ids therefore mean: this slot is the one of the body the `Co` was made for, of the same
//!    `Y` and `R`, and it is live (its coroutine is inside `poll_resume`).
//! 3. **One yield at a time.** A `yield_` whose first poll finds `Yielded` (another `yield_` of
//!    the same body yielded in this same poll, e.g. both in a `join!`) panics with a message. A
//!    stale `Resumed(R)` (its `yield_` was dropped, e.g. by `select!`, before taking it) is
//!    dropped by the next yield.
//! 4. **Resume arguments.** The first resume's argument is the body's parameter (Lua's rule;
//!    genawaiter#35 dropped it); every later one is put in the slot as `Resumed(R)` for the
//!    `yield_` that suspended the body. A poll that returns `Pending` with `Yielded(y)` in the
//!    slot is a yield; with anything else the body awaits something else (a timer, a socket) and
//!    the resume waits for its waker: `resume_async` returns `Pending`, the synchronous `resume`
//!    parks the thread.

use std::alloc::Layout;
use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::{self, NonNull};
use std::task::{Context, Poll};

use rt_core::pool;
// An id source outside every protocol (`rt_core::sync`, exception 2).
use rt_core::sync::unmodelled::{AtomicU64, Ordering::Relaxed};

use super::{Co, ResumeError, Resumed};

/// Marks a frame whose contents are `Send` (built by `Coroutine::new`/`reset`).
#[derive(Debug)]
pub(crate) enum Sendable {}

/// Marks a frame whose contents may be `!Send` (built by `LocalCoroutine`).
#[derive(Debug)]
pub(crate) struct Local(PhantomData<*const ()>);

rt_core::sync::thread_local! {
    /// The [`Shared`] of the coroutine whose body this thread is polling (null when none).
    /// Rule 1. One pointer, so entering and leaving a poll are one 8-byte store each.
    static CURRENT_COROUTINE: Cell<*const u64> = const { Cell::new(ptr::null()) };
}

/// A fresh coroutine id, never 0, never reused (rule 2). Handed out in per-thread blocks so a
/// `new` costs no shared atomic.
fn next_id() -> u64 {
    rt_core::sync::thread_local! {
        static BLOCK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    }
    static NEXT: AtomicU64 = AtomicU64::new(1);
    const BLOCK_LEN: u64 = 1024;
    let take = || {
        let start = NEXT.fetch_add(BLOCK_LEN, Relaxed);
        (start, start + BLOCK_LEN)
    };
    BLOCK
        .try_with(|b| {
            let (mut next, mut end) = b.get();
            if next == end {
                (next, end) = take();
            }
            b.set((next + 1, end));
            next
        })
        .unwrap_or_else(|_| take().0)
}

/// The [`Shared`] of the coroutine whose body this thread is polling, as a pointer to its id
/// (its first field), or null (rule 1).
#[inline]
pub(super) fn current() -> *const u64 {
    CURRENT_COROUTINE.try_with(Cell::get).unwrap_or(ptr::null())
}

/// Sets [`CURRENT_COROUTINE`] for one poll and restores the previous value when dropped (also on unwind).
struct Enter {
    prev: *const u64,
}

impl Enter {
    #[inline]
    fn new(shared: *const u64) -> Enter {
        let prev = CURRENT_COROUTINE
            .try_with(|c| c.replace(shared))
            .unwrap_or(ptr::null());
        Enter { prev }
    }
}

impl Drop for Enter {
    #[inline]
    fn drop(&mut self) {
        let _ = CURRENT_COROUTINE.try_with(|c| c.set(self.prev));
    }
}

/// What the coroutine and its body's `yield_` futures pass each other (see the module docs).
pub(super) enum Slot<Y, R> {
    Empty,
    Yielded(Y),
    Resumed(R),
}

/// What a coroutine shares with the `yield_` futures of its body during a poll (rule 1).
#[repr(C)]
pub(super) struct Shared<Y, R> {
    /// This body's id (rule 2). The first field of a `repr(C)` struct, so a `yield_` can read it
    /// through [`CURRENT_COROUTINE`] before it knows the slot's types.
    pub(super) id: u64,
    pub(super) slot: Cell<Slot<Y, R>>,
}

/// What the pool block holds while the coroutine is alive.
enum Content<F, Fut> {
    Body(F),
    Future(Fut),
}

/// The type-erased operations on a frame's `Content<F, Fut>`.
struct VTable<Y, R, T> {
    /// `Layout::new::<Content<F, Fut>>()`.
    layout: Layout,
    start: unsafe fn(NonNull<u8>, Co<Y, R>, R),
    poll: unsafe fn(NonNull<u8>, &mut Context<'_>) -> Poll<T>,
    drop: unsafe fn(NonNull<u8>),
}

// Not derived: fn pointers are `Copy` whatever `Y`, `R`, `T` are.
impl<Y, R, T> Clone for VTable<Y, R, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Y, R, T> Copy for VTable<Y, R, T> {}

impl<Y, R, T> VTable<Y, R, T> {
    fn of<F, Fut>() -> VTable<Y, R, T>
    where
        F: FnOnce(Co<Y, R>, R) -> Fut,
        Fut: Future<Output = T>,
    {
        VTable {
            layout: Layout::new::<Content<F, Fut>>(),
            start: start::<Y, R, F, Fut>,
            poll: poll::<T, F, Fut>,
            drop: drop_content::<F, Fut>,
        }
    }
}

/// Calls the body and puts its future where the body was.
///
/// # Safety
/// `frame` holds a `Content::<F, Fut>::Body`, which this moves out; the caller treats the block
/// as empty until this returns (it may unwind from the body's call).
unsafe fn start<Y, R, F, Fut>(frame: NonNull<u8>, co: Co<Y, R>, arg: R)
where
    F: FnOnce(Co<Y, R>, R) -> Fut,
{
    let p = frame.cast::<Content<F, Fut>>().as_ptr();
    // SAFETY: per the contract `p` holds a valid `Content<F, Fut>`, which the caller gives up.
    let content = unsafe { ptr::read(p) };
    let Content::Body(body) = content else {
        unreachable!("coroutine frame started twice (stage `Fresh` always holds the body)")
    };
    let fut = body(co, arg);
    // SAFETY: `p` is valid for writes of `Content<F, Fut>` (the block was allocated for at
    // least its layout) and holds nothing now.
    unsafe { ptr::write(p, Content::Future(fut)) };
}

/// Polls the future in the frame.
///
/// # Safety
/// `frame` holds a `Content::<F, Fut>::Future`, which never moves until it is dropped in place.
unsafe fn poll<T, F, Fut>(frame: NonNull<u8>, cx: &mut Context<'_>) -> Poll<T>
where
    Fut: Future<Output = T>,
{
    // SAFETY: per the contract the block holds a valid `Content<F, Fut>` that no one else
    // references during this call (the coroutine is borrowed mutably).
    let content = unsafe { &mut *frame.cast::<Content<F, Fut>>().as_ptr() };
    let Content::Future(fut) = content else {
        unreachable!("coroutine frame polled before it started (stage `Running` holds the future)")
    };
    // SAFETY: the future lives in the pool block, which does not move or get reused until the
    // future is dropped in place (`drop_content`): it is pinned.
    unsafe { Pin::new_unchecked(fut) }.poll(cx)
}

/// Drops the frame's contents in place.
///
/// # Safety
/// `frame` holds a valid `Content<F, Fut>`, not used afterwards.
unsafe fn drop_content<F, Fut>(frame: NonNull<u8>) {
    // SAFETY: per the contract.
    unsafe { ptr::drop_in_place(frame.cast::<Content<F, Fut>>().as_ptr()) };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Fresh,
    Running,
    Dead,
}

/// A coroutine: its frame, stage, id and slot. `K` is [`Sendable`] or [`Local`].
pub(crate) struct Raw<Y, R, T, K> {
    frame: NonNull<u8>,
    /// The layout `frame` was allocated with (see [`pool::block_layout`]).
    block: Layout,
    vtable: VTable<Y, R, T>,
    stage: Stage,
    shared: Shared<Y, R>,
    _kind: PhantomData<K>,
}

// SAFETY: a `Raw<.., Sendable>` is made only by `Coroutine::new`/`reset`, which require the body
// `F` and its future `Fut` to be `Send`; the slot holds `Y` and `R`, and `T` is only produced.
// Nothing in it is tied to a thread: `CURRENT_COROUTINE` points at the slot only during a poll, which
// borrows the `Raw` mutably (rule 1).
unsafe impl<Y: Send, R: Send, T: Send> Send for Raw<Y, R, T, Sendable> {}

impl<Y, R, T, K> Raw<Y, R, T, K> {
    /// Allocates a frame from the pool and puts `body` in it.
    pub(crate) fn new<F, Fut>(body: F) -> Self
    where
        F: FnOnce(Co<Y, R>, R) -> Fut,
        Fut: Future<Output = T>,
    {
        let vtable = VTable::of::<F, Fut>();
        let block = pool::block_layout(vtable.layout);
        let frame = pool::alloc(block);
        // SAFETY: `frame` is a fresh block of at least `Content<F, Fut>`'s size and alignment.
        unsafe {
            ptr::write(
                frame.cast::<Content<F, Fut>>().as_ptr(),
                Content::Body(body),
            )
        };
        Raw {
            frame,
            block,
            vtable,
            stage: Stage::Fresh,
            shared: Shared {
                id: next_id(),
                slot: Cell::new(Slot::Empty),
            },
            _kind: PhantomData,
        }
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.stage != Stage::Dead
    }

    /// Gives a dead coroutine a new body, in the same block when it fits. The caller checked
    /// that the coroutine is dead.
    pub(crate) fn reset<F, Fut>(&mut self, body: F)
    where
        F: FnOnce(Co<Y, R>, R) -> Fut,
        Fut: Future<Output = T>,
    {
        assert_eq!(self.stage, Stage::Dead, "reset of a live frame");
        let vtable = VTable::of::<F, Fut>();
        let fits = vtable.layout.size() <= self.block.size()
            && vtable.layout.align() <= self.block.align();
        if !fits {
            let block = pool::block_layout(vtable.layout);
            let frame = pool::alloc(block);
            // SAFETY: `self.frame` came from `pool::alloc(self.block)` and holds nothing (Dead).
            unsafe { pool::dealloc(self.frame, self.block) };
            self.frame = frame;
            self.block = block;
        }
        // SAFETY: the block holds nothing (Dead) and has room for `Content<F, Fut>` (checked, or
        // fresh).
        unsafe {
            ptr::write(
                self.frame.cast::<Content<F, Fut>>().as_ptr(),
                Content::Body(body),
            )
        };
        self.vtable = vtable;
        self.shared.id = next_id();
        self.shared.slot.set(Slot::Empty);
        self.stage = Stage::Fresh;
    }

    /// Drops the block's contents after a panic, swallowing a second panic from the drop.
    fn kill(&mut self) {
        let had_contents = self.stage != Stage::Dead;
        self.stage = Stage::Dead;
        if had_contents {
            let (drop, frame) = (self.vtable.drop, self.frame);
            // SAFETY: the block held valid contents (stage was Fresh or Running); the stage is
            // Dead now, so they are never used again.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { drop(frame) }));
        }
        let _ = catch_unwind(AssertUnwindSafe(|| self.shared.slot.set(Slot::Empty)));
    }

    /// One step of a resume: starts the body (first resume) or hands `arg` to the waiting
    /// `yield_` (rule 4), then polls the body once with `cx`. `arg` is taken on the first call
    /// of a resume; later calls of the same resume (after `Pending`) pass `None`.
    #[inline(always)]
    pub(crate) fn poll_resume(
        &mut self,
        arg: &mut Option<R>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Resumed<Y, T>, ResumeError>> {
        match self.stage {
            Stage::Dead => {
                drop(arg.take());
                return Poll::Ready(Err(ResumeError::dead()));
            }
            Stage::Fresh => {
                let Some(a) = arg.take() else {
                    unreachable!("a resume's first poll always carries its argument")
                };
                let co = Co::new(self.shared.id);
                let (start, frame) = (self.vtable.start, self.frame);
                // The block is empty while the body is called (stages, module docs).
                self.stage = Stage::Dead;
                // SAFETY: stage was Fresh, so the block holds the body of this vtable.
                match catch_unwind(AssertUnwindSafe(|| unsafe { start(frame, co, a) })) {
                    Ok(()) => self.stage = Stage::Running,
                    Err(payload) => return Poll::Ready(Err(ResumeError::panic(payload))),
                }
            }
            Stage::Running => {
                if let Some(a) = arg.take() {
                    // Rule 4; a stale `Resumed` is dropped (rule 3).
                    self.shared.slot.set(Slot::Resumed(a));
                }
            }
        }

        let (poll, frame) = (self.vtable.poll, self.frame);
        let shared = ptr::from_ref(&self.shared).cast::<u64>();
        let polled = {
            let _enter = Enter::new(shared);
            // SAFETY: stage is Running: the block holds this vtable's pinned future.
            catch_unwind(AssertUnwindSafe(|| unsafe { poll(frame, cx) }))
        };
        match polled {
            Ok(Poll::Ready(value)) => {
                self.stage = Stage::Dead;
                // SAFETY: the block held the future (Running); the stage is Dead now. A finished
                // async body has nothing left to drop but its shell.
                unsafe { (self.vtable.drop)(self.frame) };
                self.shared.slot.set(Slot::Empty);
                Poll::Ready(Ok(Resumed::Return(value)))
            }
            Ok(Poll::Pending) => match self.shared.slot.replace(Slot::Empty) {
                Slot::Yielded(y) => Poll::Ready(Ok(Resumed::Yield(y))),
                other => {
                    // Rule 4: not a yield; the body waits for something else.
                    self.shared.slot.set(other);
                    Poll::Pending
                }
            },
            Err(payload) => {
                self.kill();
                Poll::Ready(Err(ResumeError::panic(payload)))
            }
        }
    }
}

impl<Y, R, T, K> Drop for Raw<Y, R, T, K> {
    fn drop(&mut self) {
        struct Free(NonNull<u8>, Layout);
        impl Drop for Free {
            fn drop(&mut self) {
                // SAFETY: the block came from `pool::alloc(self.1)`; its contents are gone (or
                // being unwound out of) and nothing uses it afterwards.
                unsafe { pool::dealloc(self.0, self.1) };
            }
        }
        let _free = Free(self.frame, self.block);
        if self.stage != Stage::Dead {
            self.stage = Stage::Dead;
            // SAFETY: the stage was Fresh or Running, so the block holds valid contents; the
            // frame is never used again.
            unsafe { (self.vtable.drop)(self.frame) };
        }
    }
}

/// A panic payload, kept behind a lock so that [`ResumeError`] is `Sync` (as tokio's
/// `JoinError` does).
pub(super) struct Payload(rt_core::sync::Mutex<Box<dyn Any + Send + 'static>>);

impl Payload {
    pub(super) fn new(payload: Box<dyn Any + Send + 'static>) -> Payload {
        Payload(rt_core::sync::Mutex::new(payload))
    }

    pub(super) fn into_inner(self) -> Box<dyn Any + Send + 'static> {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// The payload's message, when it is a `&str` or a `String`.
    pub(super) fn message(&self) -> Option<String> {
        let guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = guard.downcast_ref::<&'static str>() {
            Some((*s).to_owned())
        } else {
            guard.downcast_ref::<String>().cloned()
        }
    }
}
