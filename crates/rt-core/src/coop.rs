//! The cooperative budget.
//!
//! Every poll of a task runs with a budget of [`BUDGET`] units (128, as in tokio). Each operation of a
//! runtime resource that completes without waiting — a lock taken, a value received, a permit
//! acquired — spends one unit through [`poll_proceed`]. When the budget is spent the operation returns
//! `Pending` after waking the task, so a task looping over an always-ready resource still yields to
//! the scheduler and cannot starve its neighbours.
//!
//! Outside a budgeted poll (a plain thread, a foreign executor) the budget is unconstrained and
//! [`poll_proceed`] always proceeds: the primitives stay runtime-agnostic.
//!
//! # Time slices of background polls
//!
//! A [`Priority::Background`] task's poll (`budget_for`) runs in time slices when its scheduler
//! installed a [`Slice`] around it (`with_slice`). Its budget word then reads `Some(0)`, so every
//! budget check takes the exhausted path, which is where the slice lives: the check spends a
//! unit of the slice's own budget (the same [`BUDGET`] per poll), reads the clock, and once the
//! poll has run longer than the slice asks the scheduler at every check whether
//! latency-sensitive work waits (`Slice::new`'s `waiting`: queued tasks always, ready IO at
//! most once per `io_every`, as that look is a system call). If so the check returns `Pending`
//! and the poll ends. A poll's first budget check always proceeds, so a background task
//! progresses at every poll, however short the slice. So a normal task's budget check costs
//! nothing more than before (its `Some(n)` path is unchanged), and only background polls read
//! the clock: once per budget check, never while no background task runs.
//!
//! The task's priority is also what [`current_priority`] returns during the poll, so a task
//! spawned from a background task is background by default.
//!
//! ```
//! use std::task::{Context, Poll};
//! fn poll_thing(cx: &mut Context<'_>) -> Poll<u32> {
//!     let coop = std::task::ready!(rt_core::coop::poll_proceed(cx));
//!     // ... the operation succeeded without waiting:
//!     coop.made_progress();
//!     Poll::Ready(7)
//! }
//! ```

use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::task::Priority;

/// Units of budget handed to each task poll (`crate::tuning::COOP_BUDGET`).
pub const BUDGET: u8 = crate::tuning::COOP_BUDGET;

crate::sync::thread_local! {
    /// `None`: unconstrained. `Some(n)`: `n` units left in the current poll.
    static CURRENT_BUDGET: Cell<Option<u8>> = const { Cell::new(None) };
}

/// Runs `f` (one task poll) with a fresh budget, restoring the previous budget afterwards.
#[inline]
pub fn budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Some(BUDGET), f)
}

/// [`budget`] for a poll of a task of `priority`: a background task's poll also makes
/// [`current_priority`] say so and, inside [`with_slice`], runs in time slices (module docs).
/// A normal task's poll pays one predictable branch.
#[inline]
pub fn budget_for<R>(priority: Priority, f: impl FnOnce() -> R) -> R {
    if !priority.is_background() {
        return budget(f);
    }
    background_budget(f)
}

#[cold]
#[inline(never)]
fn background_budget<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = IN_BACKGROUND.try_with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(IN_BACKGROUND.with(|c| c.replace(true)));
    let slice = SLICE.with(Cell::get);
    // SAFETY: non-null only while `with_slice` is on this thread's stack, pointing at its
    // `Slice`, which outlives the call.
    match unsafe { slice.as_ref() } {
        Some(slice) => {
            slice.start();
            with_budget(Some(0), f)
        }
        None => with_budget(Some(BUDGET), f),
    }
}

crate::sync::thread_local! {
    /// A background task's poll is running on this thread (`budget_for`).
    static IN_BACKGROUND: Cell<bool> = const { Cell::new(false) };
    /// The slice a scheduler installed around the poll it runs now (`with_slice`); null
    /// outside. Erased to `'static`: it is cleared before the `Slice` goes away.
    static SLICE: Cell<*const Slice<'static>> = const { Cell::new(std::ptr::null()) };
}

/// The priority of the task polled on this thread now: [`Priority::Background`] inside a
/// background task's poll, else [`Priority::Normal`] (another task's poll, or no task). What a
/// spawn without an explicit priority inherits.
#[inline]
pub fn current_priority() -> Priority {
    if IN_BACKGROUND.try_with(Cell::get).unwrap_or(false) {
        Priority::Background
    } else {
        Priority::Normal
    }
}

/// A scheduler's time slice for the background poll it runs (module docs): how long a slice
/// lasts and how to tell whether latency-sensitive work waits.
pub struct Slice<'a> {
    len: Duration,
    io_every: Duration,
    waiting: &'a dyn Fn(bool) -> bool,
    /// When the slice ends (set when the poll starts).
    deadline: Cell<Option<Instant>>,
    /// When `waiting` may next look at IO (`None`: at its next call).
    next_io: Cell<Option<Instant>>,
    /// Units of the poll's budget left (the budget word reads `Some(0)` meanwhile).
    left: Cell<u8>,
    /// The poll has made a budget check (spending or not) since it started.
    checked: Cell<bool>,
    /// The poll ended its slice because `waiting` said so.
    yielded: Cell<bool>,
}

impl std::fmt::Debug for Slice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slice")
            .field("len", &self.len)
            .field("left", &self.left.get())
            .field("yielded", &self.yielded.get())
            .finish_non_exhaustive()
    }
}

impl<'a> Slice<'a> {
    /// A slice of `len`. `waiting(io)` says whether latency-sensitive work waits for this
    /// thread; it is asked at the budget checks past the slice, and may look at queues and,
    /// when `io` is true (at most once per `io_every`), poll the reactor without blocking, but
    /// must not run tasks.
    pub fn new(len: Duration, io_every: Duration, waiting: &'a dyn Fn(bool) -> bool) -> Slice<'a> {
        Slice {
            len,
            io_every,
            waiting,
            deadline: Cell::new(None),
            next_io: Cell::new(None),
            left: Cell::new(BUDGET),
            checked: Cell::new(false),
            yielded: Cell::new(false),
        }
    }

    /// Whether the poll ended because its slice ran out while work waited.
    pub fn yielded(&self) -> bool {
        self.yielded.get()
    }

    fn start(&self) {
        self.left.set(BUDGET);
        self.checked.set(false);
        self.deadline.set(Some(Instant::now() + self.len));
        self.next_io.set(None);
    }

    /// Whether the poll may go on (spends nothing). The poll's first budget check always
    /// may: every background poll makes progress, however short the slice (a zero slice with
    /// normal work always waiting would otherwise end every poll before its first step).
    fn may_proceed(&self) -> bool {
        if self.left.get() == 0 {
            return false;
        }
        if !self.checked.replace(true) {
            return true;
        }
        let now = Instant::now();
        if self.deadline.get().is_some_and(|d| now < d) {
            return true;
        }
        let io = self.next_io.get().is_none_or(|t| now >= t);
        if io {
            self.next_io.set(Some(now + self.io_every));
        }
        if (self.waiting)(io) {
            self.yielded.set(true);
            self.left.set(0);
            return false;
        }
        true
    }

    /// A budget check: spends a unit if the poll may go on.
    fn proceed(&self) -> bool {
        if !self.may_proceed() {
            return false;
        }
        self.left.set(self.left.get() - 1);
        true
    }
}

/// Runs `f` (a scheduler running one background task) with `slice` installed for the task's
/// poll (module docs).
pub fn with_slice<R>(slice: &Slice<'_>, f: impl FnOnce() -> R) -> R {
    struct Reset(*const Slice<'static>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = SLICE.try_with(|c| c.set(self.0));
        }
    }
    let p = std::ptr::from_ref(slice).cast::<Slice<'static>>();
    let _reset = Reset(SLICE.with(|c| c.replace(p)));
    f()
}

/// The exhausted path of a budget check: inside a background poll with a slice, the slice
/// decides (module docs); else the budget is spent.
#[cold]
fn slice_proceeds(spend: bool) -> bool {
    if !IN_BACKGROUND.try_with(Cell::get).unwrap_or(false) {
        return false;
    }
    let p = SLICE.try_with(Cell::get).unwrap_or(std::ptr::null());
    // SAFETY: as in `background_budget`.
    match unsafe { p.as_ref() } {
        Some(slice) if spend => slice.proceed(),
        Some(slice) => slice.may_proceed(),
        None => false,
    }
}

/// Runs `f` with no budget constraint (used by `block_on`'s own future, as tokio does).
#[inline]
pub fn unconstrained<R>(f: impl FnOnce() -> R) -> R {
    with_budget(None, f)
}

fn with_budget<R>(b: Option<u8>, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<u8>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = CURRENT_BUDGET.try_with(|c| c.set(self.0));
        }
    }
    let prev = CURRENT_BUDGET.with(|c| c.replace(b));
    let _reset = Reset(prev);
    f()
}

/// Whether the current poll still has budget left (always true when unconstrained).
#[inline]
pub fn has_budget_remaining() -> bool {
    match CURRENT_BUDGET.try_with(Cell::get) {
        Ok(Some(0)) => slice_has_budget(),
        _ => true,
    }
}

/// `has_budget_remaining` inside a background poll: the slice's own units (the clock and the
/// scheduler are not asked).
#[cold]
fn slice_has_budget() -> bool {
    if !IN_BACKGROUND.try_with(Cell::get).unwrap_or(false) {
        return false;
    }
    let p = SLICE.try_with(Cell::get).unwrap_or(std::ptr::null());
    // SAFETY: as in `background_budget`.
    unsafe { p.as_ref() }.is_some_and(|s| s.left.get() > 0)
}

/// Spends one unit of budget, or, when none is left, wakes the task and returns `Pending`.
///
/// The returned guard gives the unit back on drop unless [`RestoreOnPending::made_progress`] is
/// called: an operation that ends up waiting anyway should not be charged.
#[inline]
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    match try_proceed() {
        Some(unit) => Poll::Ready(unit),
        None => {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// [`poll_proceed`] without the wake: spends one unit of budget, or returns `None`, waking
/// nothing, when none is left. For an operation that decides itself what to do with a spent
/// budget: rt-sync's `Mutex` and `Semaphore` waiters then still queue behind a held lock, and
/// are woken in their turn, where `poll_proceed` would have them wake themselves.
#[inline]
pub fn try_proceed() -> Option<RestoreOnPending> {
    let r = CURRENT_BUDGET.try_with(|c| match c.get() {
        None => Some(RestoreOnPending::new(Cell::new(None))),
        // A background poll's slice spends its own unit; a unit spent on an operation that
        // ends up waiting is not given back (the slice's count is only its own yield point).
        Some(0) if slice_proceeds(true) => Some(RestoreOnPending::new(Cell::new(None))),
        Some(0) => None,
        Some(n) => {
            c.set(Some(n - 1));
            Some(RestoreOnPending::new(Cell::new(Some(n))))
        }
    });
    r.unwrap_or_else(|_| Some(RestoreOnPending::new(Cell::new(None))))
}

/// Gives a budget unit back when dropped, unless the operation made progress.
///
/// Neither `Send` nor `Sync`, as tokio's: the unit belongs to this thread's current poll.
#[derive(Debug)]
#[must_use = "call `made_progress` when the operation completed"]
pub struct RestoreOnPending(Cell<Option<u8>>, PhantomData<*mut ()>);

impl RestoreOnPending {
    #[inline]
    fn new(unit: Cell<Option<u8>>) -> RestoreOnPending {
        RestoreOnPending(unit, PhantomData)
    }

    /// The operation completed: keep the unit spent. Takes `&self`, as tokio's does, so a
    /// guard held in a loop can be marked more than once.
    #[inline]
    pub fn made_progress(&self) {
        self.0.set(None);
    }
}

impl Drop for RestoreOnPending {
    fn drop(&mut self) {
        if let Some(n) = self.0.get() {
            let _ = CURRENT_BUDGET.try_with(|c| {
                if c.get().is_some() {
                    c.set(Some(n));
                }
            });
        }
    }
}

/// Makes `fut` spend one unit of the cooperative budget each time it completes, and return
/// `Pending` (after waking the task) instead of being polled when the budget is spent: each poll
/// checks the budget first, and the unit is kept only when `fut` completes. tokio's
/// `task::coop::cooperative`, and how rt's own futures that wait in several steps (a `watch`
/// receiver's `wait_for`, a sender's `closed`) spend one unit as a whole.
///
/// ```
/// use std::future::Future;
/// use std::pin::pin;
/// use std::task::{Context, Waker};
/// use rt_core::coop;
///
/// let mut cx = Context::from_waker(Waker::noop());
/// // Always ready, yet inside a budgeted poll only `BUDGET` of them complete.
/// let ready = coop::budget(|| {
///     (0..300)
///         .filter(|_| pin!(coop::cooperative(std::future::ready(()))).poll(&mut cx).is_ready())
///         .count()
/// });
/// assert_eq!(ready, usize::from(coop::BUDGET));
/// ```
pub fn cooperative<F: Future>(fut: F) -> Coop<F> {
    Coop { fut }
}

/// The future [`cooperative`] returns.
#[must_use = "futures do nothing unless you `.await` or poll them"]
#[derive(Debug)]
pub struct Coop<F> {
    fut: F,
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let coop = std::task::ready!(poll_proceed(cx));
        // SAFETY: `fut` is structurally pinned: it is never moved out of `self`, and `Coop` has
        // no `Drop` impl and no `Unpin` impl of its own.
        let fut = unsafe { self.map_unchecked_mut(|me| &mut me.fut) };
        let out = std::task::ready!(fut.poll(cx));
        coop.made_progress();
        Poll::Ready(out)
    }
}

/// Spends one unit of budget, yielding to the scheduler if it is exhausted.
///
/// A task that loops on work that never waits calls this so it still lets others run. In a
/// background task's poll it is also where the time slice ends (module docs).
pub async fn consume_budget() {
    ConsumeBudget { done: false }.await
}

/// Yields to the scheduler once if this poll should end — its budget is spent, or it is a
/// background poll whose time slice ran out while latency-sensitive work waits — and
/// otherwise returns at once, spending nothing.
///
/// For loops that await nothing: unlike [`consume_budget`], a loop of these in a background
/// task yields only when other work needs the thread, so batch work runs in long polls while
/// the runtime is otherwise idle.
pub async fn yield_if_needed() {
    YieldIfNeeded { done: false }.await
}

struct YieldIfNeeded {
    done: bool,
}

impl Future for YieldIfNeeded {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let must_yield = match CURRENT_BUDGET.try_with(Cell::get) {
            Ok(Some(0)) => !slice_proceeds(false),
            _ => false,
        };
        if must_yield {
            self.done = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(())
    }
}

struct ConsumeBudget {
    done: bool,
}

impl Future for ConsumeBudget {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let coop = std::task::ready!(poll_proceed(cx));
        coop.made_progress();
        self.done = true;
        Poll::Ready(())
    }
}
