//! Notify one task or all of them, with tokio's semantics.
//!
//! - [`Notify::notify_one`] wakes the longest-waiting [`Notified`] (FIFO), or, if none waits,
//!   stores one permit that the next `notified().await` consumes at once.
//! - [`Notify::notify_last`] does the same but wakes the most recent waiter (LIFO).
//! - [`Notify::notify_waiters`] wakes every `Notified` that exists when it is called, even one
//!   not yet polled, and stores nothing.
//!
//! # The protocol
//!
//! Waiters are nodes of an intrusive FIFO list (see `waiters.rs`) in the `Notified` futures; the
//! list, the permit and each node's state are guarded by one mutex. `generation` counts calls to
//! `notify_waiters`; a `Notified` records it when created, so a call made before the first poll
//! is not missed, and a queued node records it when linked.
//!
//! `notify_waiters` bumps the generation and then unlinks the nodes of older generations, which
//! form a prefix of the list (new nodes are linked at the back). It wakes them in batches,
//! releasing the lock between batches; a node of an older generation still in the list during such
//! a gap is *stale*: it is already notified in effect, so `notify_one` wakes it along and moves on
//! to the next node instead of counting it.
//!
//! A `Notified` dropped after `notify_one` picked it, but before it returned `Ready`, passes the
//! notification on to the next waiter (or stores the permit): `notify_one` is never lost. One
//! picked by `notify_last` passes it on the same way, to the most recent waiter.
//!
//! [`Notify::notified_owned`] gives the same future for a `Notify` behind an `Arc`
//! ([`OwnedNotified`], `'static`, for futures that must own what they wait on); both are one
//! generic future inside, [`Waiting`].

use crate::waiters::{set_waker, List, Node, WakeList};
use rt_core::coop;
// A user-owned `Arc` receiver must be std's: see `rt_core::sync::StdArc`.
use rt_core::sync::StdArc as Arc;
use rt_core::sync::{AtomicUsize, Mutex, MutexGuard, Ordering, UnsafeCell};
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{ready, Context, Poll, Waker};

/// Wakes tasks waiting in [`Notify::notified`].
///
/// ```
/// # use rt_core::test_support::block_on;
/// use rt_sync::notify::Notify;
///
/// let notify = Notify::new();
/// notify.notify_one(); // no one waits: stores a permit
/// block_on(notify.notified()); // consumes it without waiting
/// ```
pub struct Notify {
    /// Calls to `notify_waiters` so far. Changed only under the lock; read without it (`SeqCst`)
    /// when a `Notified` is created.
    generation: AtomicUsize,
    state: Mutex<State>,
}

// As tokio's: the waiter list and the state word are only changed under the lock or by
// atomic operations that a panic cannot interrupt half-way.
impl std::panic::UnwindSafe for Notify {}
impl std::panic::RefUnwindSafe for Notify {}

struct State {
    /// A `notify_one` that found no waiter.
    permit: bool,
    waiters: List<Waiter>,
}

/// A queued `Notified`'s node data, all of it guarded by the `Notify`'s lock.
struct Waiter {
    inner: UnsafeCell<WaiterState>,
}

struct WaiterState {
    waker: Option<Waker>,
    /// The generation in which the node was linked.
    generation: usize,
    /// Set by the notifier that unlinked the node.
    notified: Option<Notification>,
}

// SAFETY: `inner` is only accessed under the `Notify`'s lock.
unsafe impl Sync for Waiter {}

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Waiter")
    }
}

/// How a waiter was notified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Notification {
    /// By `notify_one`: passed on if the waiter is dropped before it returns `Ready`.
    One,
    /// By `notify_last`: passed on likewise, to the most recent waiter.
    Last,
    /// By `notify_one_waiter` (the `Condvar`'s): passed on likewise, but never stored as a permit.
    OneWaiter,
    /// By `notify_waiters`.
    All,
}

impl Notify {
    /// Creates a `Notify` with no permit and no waiters.
    pub fn new() -> Notify {
        Notify {
            generation: AtomicUsize::new(0),
            state: Mutex::new(State {
                permit: false,
                waiters: List::new(),
            }),
        }
    }

    /// [`Notify::new`] in a `const` context, e.g. for a `static`:
    /// `static READY: Notify = Notify::const_new();`. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new() -> Notify {
        Notify {
            generation: AtomicUsize::new(0),
            state: Mutex::new(State {
                permit: false,
                waiters: List::new(),
            }),
        }
    }

    /// A future that completes when this `Notify` notifies it. Calls to
    /// [`Notify::notify_waiters`] made after this returns are seen even before the first poll;
    /// `notify_one` is seen once the future is polled or [`Notified::enable`]d.
    ///
    /// # Cancel safety
    /// Cancel safe in tokio's sense: a `Notified` dropped after it was handed a `notify_one` permit passes that permit on to the next waiter, so no notification is lost.
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            inner: Waiting::new(self),
        }
    }

    /// [`Notify::notified`] for a `Notify` behind an `Arc`: the future owns a clone of the `Arc`,
    /// so it is `'static` and can be stored or moved into a task without a borrow. Same
    /// semantics as `notified`, including when `notify_waiters` calls are seen.
    ///
    /// ```
    /// # use rt_core::test_support::block_on;
    /// use rt_sync::notify::Notify;
    /// use std::sync::Arc;
    ///
    /// let notify = Arc::new(Notify::new());
    /// let waiting = notify.clone().notified_owned();
    /// notify.notify_waiters(); // reaches the future although it was not polled yet
    /// block_on(waiting);
    /// ```
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        OwnedNotified {
            inner: Waiting::new(self),
        }
    }

    /// Wakes the longest-waiting task, or stores a permit if none waits (at most one is stored).
    pub fn notify_one(&self) {
        self.notify_one_locked(self.lock(), Notification::One);
    }

    /// Wakes the most recent waiter (LIFO), or stores a permit if none waits (at most one is
    /// stored). Useful where the newest waiter's data is hottest in cache, as in a pool of idle
    /// workers.
    pub fn notify_last(&self) {
        self.notify_one_locked(self.lock(), Notification::Last);
    }

    /// Wakes the longest-waiting task if there is one; otherwise does nothing (what a condition
    /// variable's `notify_one` does).
    pub(crate) fn notify_one_waiter(&self) {
        self.notify_one_locked(self.lock(), Notification::OneWaiter);
    }

    /// Wakes every task waiting now, and every `Notified` created before this call; stores nothing.
    pub fn notify_waiters(&self) {
        let mut state = self.lock();
        self.generation.fetch_add(1, Ordering::SeqCst);
        let mut wakers = WakeList::new();
        loop {
            let done = self.drain_stale(&mut state, &mut wakers);
            drop(state);
            wakers.wake_all();
            if done {
                return;
            }
            state = self.lock();
        }
    }

    /// Notifies the first non-stale waiter (the last one for `Last`) with `how`, waking stale ones
    /// on the way. With no waiter left, `One` or `Last` becomes the stored permit. Consumes the
    /// guard: wakes outside the lock.
    fn notify_one_locked<'a>(&'a self, mut state: MutexGuard<'a, State>, how: Notification) {
        let mut wakers = WakeList::new();
        loop {
            if self.drain_stale(&mut state, &mut wakers) {
                // No stale node is left (they form a prefix), so the back is the newest waiter.
                let picked = if how == Notification::Last {
                    state.waiters.pop_back()
                } else {
                    state.waiters.pop_front()
                };
                match picked {
                    Some(node) => {
                        // SAFETY: just unlinked under the lock we hold (rule 3 of waiters.rs).
                        let waker = unsafe { notify_node(node, how) };
                        // `drain_stale` returned true, so `wakers` has room.
                        if let Some(w) = waker {
                            wakers.push(w);
                        }
                    }
                    None => {
                        if matches!(how, Notification::One | Notification::Last) {
                            state.permit = true;
                        }
                    }
                }
                drop(state);
                wakers.wake_all();
                return;
            }
            // More stale waiters than one batch: wake these outside the lock, then go on.
            drop(state);
            wakers.wake_all();
            state = self.lock();
        }
    }

    /// Unlinks and notifies (as `All`) the stale prefix of the list, until it is gone (returns true,
    /// with room left in `wakers`) or `wakers` is full (returns false).
    fn drain_stale(&self, state: &mut MutexGuard<'_, State>, wakers: &mut WakeList) -> bool {
        let current = self.generation.load(Ordering::Relaxed);
        loop {
            if wakers.is_full() {
                return false;
            }
            let Some(node) = state.waiters.front() else {
                return true;
            };
            // SAFETY: linked, hence live; the state cell is guarded by the lock we hold.
            let generation = unsafe { with_state(node, |w| w.generation) };
            if generation == current {
                return true;
            }
            state.waiters.pop_front();
            // SAFETY: just unlinked under the lock we hold.
            if let Some(w) = unsafe { notify_node(node, Notification::All) } {
                wakers.push(w);
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // No code panics with this lock held; a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notify")
            .field("generation", &self.generation.load(Ordering::Relaxed))
            .finish()
    }
}

/// Marks an unlinked node notified and takes its waker.
///
/// # Safety
///
/// `node` is live and the caller holds the lock of the `Notify` it was queued on.
unsafe fn notify_node(node: NonNull<Node<Waiter>>, how: Notification) -> Option<Waker> {
    // SAFETY: per the contract.
    unsafe {
        with_state(node, |w| {
            w.notified = Some(how);
            w.waker.take()
        })
    }
}

/// Runs `f` on a node's lock-guarded state.
///
/// # Safety
///
/// `node` is live and the caller holds the lock of the `Notify` it is (or was) queued on.
unsafe fn with_state<R>(node: NonNull<Node<Waiter>>, f: impl FnOnce(&mut WaiterState) -> R) -> R {
    // SAFETY: live per the contract; a shared reference only reaches the cell.
    let waiter = unsafe { node.as_ref() }.value();
    waiter.inner.with_mut(|w| {
        // SAFETY: the lock is held, so no other access to the cell is in progress.
        f(unsafe { &mut *w })
    })
}

/// Waits for a notification from a [`Notify`]; see [`Notify::notified`].
#[must_use = "futures do nothing unless polled"]
pub struct Notified<'a> {
    inner: Waiting<&'a Notify>,
}

/// Waits for a notification from a [`Notify`] behind an `Arc`; see [`Notify::notified_owned`].
#[must_use = "futures do nothing unless polled"]
pub struct OwnedNotified {
    inner: Waiting<Arc<Notify>>,
}

/// The future behind [`Notified`] and [`OwnedNotified`], generic over how it holds its `Notify`.
struct Waiting<N: Deref<Target = Notify>> {
    notify: N,
    node: Node<Waiter>,
    /// `Notify::generation` when this future was created.
    generation: usize,
    state: NotifiedState,
}

/// `Init`: not queued. `Waiting`: the node was linked and its outcome not yet observed. `Done`:
/// notified (and the notification observed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NotifiedState {
    Init,
    Waiting,
    Done,
}

impl Notified<'_> {
    /// Registers this future as a waiter without waiting, so a `notify_one` from now on reaches it.
    /// Returns true if it is already notified (a stored permit was taken, or `notify_waiters` ran).
    pub fn enable(self: Pin<&mut Self>) -> bool {
        // SAFETY: a structural projection; `inner` is never moved out of the pinned `self`.
        unsafe { self.map_unchecked_mut(|n| &mut n.inner) }.enable()
    }
}

impl OwnedNotified {
    /// Registers this future as a waiter without waiting; see [`Notified::enable`].
    pub fn enable(self: Pin<&mut Self>) -> bool {
        // SAFETY: a structural projection; `inner` is never moved out of the pinned `self`.
        unsafe { self.map_unchecked_mut(|n| &mut n.inner) }.enable()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: a structural projection; `inner` is never moved out of the pinned `self`.
        unsafe { self.map_unchecked_mut(|n| &mut n.inner) }.poll(cx)
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: a structural projection; `inner` is never moved out of the pinned `self`.
        unsafe { self.map_unchecked_mut(|n| &mut n.inner) }.poll(cx)
    }
}

impl<N: Deref<Target = Notify>> Waiting<N> {
    fn new(notify: N) -> Waiting<N> {
        let generation = notify.generation.load(Ordering::SeqCst);
        Waiting {
            notify,
            node: Node::new(Waiter {
                inner: UnsafeCell::new(WaiterState {
                    waker: None,
                    generation: 0,
                    notified: None,
                }),
            }),
            generation,
            state: NotifiedState::Init,
        }
    }

    fn enable(self: Pin<&mut Self>) -> bool {
        // SAFETY: nothing is moved out; the node stays where it was pinned.
        let this = unsafe { self.get_unchecked_mut() };
        this.register(None)
    }
    /// Moves `Init` to `Waiting` (or `Done`) and checks `Waiting` for a notification; with `cx`,
    /// leaves its waker in the node. Returns whether the future is notified.
    fn register(&mut self, cx: Option<&Context<'_>>) -> bool {
        match self.state {
            NotifiedState::Done => true,
            NotifiedState::Init => {
                let mut state = self.notify.lock();
                if self.notify.generation.load(Ordering::Relaxed) != self.generation {
                    self.state = NotifiedState::Done;
                    return true;
                }
                if state.permit {
                    state.permit = false;
                    self.state = NotifiedState::Done;
                    return true;
                }
                let node = NonNull::from(&self.node);
                // SAFETY: the node is ours, unqueued, and we hold the lock.
                unsafe {
                    with_state(node, |w| {
                        w.generation = self.generation;
                        w.waker = cx.map(|cx| cx.waker().clone());
                    })
                };
                // SAFETY: we are pinned (a `Pin<&mut Self>` led here), and `Drop` unlinks the node
                // before it is freed (rules 1 and 2 of waiters.rs); a fresh node is in no list.
                unsafe { state.waiters.push_back(node) };
                self.state = NotifiedState::Waiting;
                false
            }
            NotifiedState::Waiting => {
                let _state = self.notify.lock();
                // SAFETY: the node is ours and we hold the lock.
                let notified = unsafe {
                    with_state(NonNull::from(&self.node), |w| {
                        if w.notified.is_some() {
                            return true;
                        }
                        if let Some(cx) = cx {
                            set_waker(&mut w.waker, cx.waker());
                        }
                        false
                    })
                };
                if notified {
                    self.state = NotifiedState::Done;
                }
                notified
            }
        }
    }
}

impl<N: Deref<Target = Notify>> Waiting<N> {
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(coop::poll_proceed(cx));
        // SAFETY: nothing is moved out; the node stays where it was pinned.
        let this = unsafe { self.get_unchecked_mut() };
        if this.register(Some(cx)) {
            coop.made_progress();
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl<N: Deref<Target = Notify>> Drop for Waiting<N> {
    fn drop(&mut self) {
        if self.state != NotifiedState::Waiting {
            return;
        }
        let mut state = self.notify.lock();
        let node = NonNull::from(&self.node);
        // SAFETY: the node is ours, queued on no list but this `Notify`'s; we hold the lock.
        unsafe { state.waiters.remove(node) };
        // SAFETY: as above.
        let notified = unsafe { with_state(node, |w| w.notified) };
        match notified {
            Some(how @ (Notification::One | Notification::Last | Notification::OneWaiter)) => {
                self.notify.notify_one_locked(state, how)
            }
            Some(Notification::All) | None => {}
        }
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notified")
            .field("state", &self.inner.state)
            .finish()
    }
}

impl fmt::Debug for OwnedNotified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedNotified")
            .field("state", &self.inner.state)
            .finish()
    }
}
