//! A single-value channel that keeps only the latest value: receivers are told it changed.
//!
//! A [`borrow`](Receiver::borrow) never waits for a sender and takes no lock: any number of
//! borrows may live at once, on one thread or many, and a `send` from another thread while a
//! borrow is held neither waits for it nor makes it wait. A version word counts changes; each
//! receiver remembers the version it has seen, and [`changed`](Receiver::changed) waits until
//! the word moves past it.
//!
//! # The value: an atomically swapped `Arc` (this file owns the protocol)
//!
//! The value lives in an `Arc<Node>` (`Node` = the value and the version it is), and
//! `Shared::current` holds one strong reference to the current node as a raw pointer. A
//! [`Ref`] holds a strong reference of its own, so the node it borrows stays alive, unchanged,
//! whatever senders do meanwhile. The *borrow word* counts borrows that are between reading
//! `current` and taking their reference (the *window*), and has a `MODIFYING` bit:
//!
//! ```text
//!  bit  usize::BITS-1                           1   0
//!      +---------------------------------------+-----------+
//!      |  borrows inside the window            | MODIFYING |
//!      +---------------------------------------+-----------+
//! ```
//!
//! 1. **Borrow.** Add one to the window count, then a `SeqCst` fence. If `MODIFYING` was set,
//!    take it back and try again once `MODIFYING` is clear (rule 4). Otherwise read `current`,
//!    add a strong reference to that node, and leave the window (release). Nothing in the
//!    window waits, so a borrow never waits for a sender, except while a `send_modify` closure
//!    runs (rule 4).
//! 2. **Writers are serialised** by `tx_lock`, which only `send`, `send_replace` and
//!    `send_modify` take (never a borrow). A writer builds the new node with version
//!    `old + 2`, swaps it into `current`, then a `SeqCst` fence, waits until the window count
//!    is zero, and only then lets go of the old node's reference. The two fences make this the
//!    store-buffering pattern: a borrow that read the old pointer entered the window before
//!    the writer's loads of the count, so the writer sees it and waits until its reference is
//!    taken: no borrow touches a freed node. The wait is for a few instructions of each borrow inside the window, never for a
//!    `Ref`'s lifetime; a writer can only be held up by borrows that keep entering the window
//!    back to back on other threads.
//! 3. **`send` never waits for `Ref`s**: the old node is freed by whichever of the writer and
//!    the old value's last `Ref` lets go last. `send_replace` returns the old value, so after
//!    the swap it waits (spinning, then yielding) until the old node's `Ref`s are gone; a
//!    thread that holds a `Ref` and calls `send_replace` itself therefore deadlocks, as it does
//!    in tokio.
//! 4. **`send_modify` changes the value in place**, so it needs the node to itself: it waits
//!    until the current node has no `Ref` (new borrows still go through while it waits), then
//!    sets `MODIFYING`, waits for the window to empty, and checks again that it is the only
//!    owner (`Arc::get_mut`, acquire: every `Ref`'s reads happen before); if a borrow slipped in,
//!    it clears `MODIFYING` and waits again. While `MODIFYING` is set, new borrows wait for the
//!    closure to return: that closure is the one thing a borrow can wait for. As in tokio, a
//!    thread holding a `Ref` that calls `send_modify` deadlocks.
//!
//! # The version word
//!
//! ```text
//!  bit  usize::BITS-1                        1   0
//!      +------------------------------------+--------+
//!      |  version (changes since creation)  | CLOSED |
//!      +------------------------------------+--------+
//! ```
//!
//! 5. A writer bumps the word by 2 (one version) *after* its node is in `current` (release), so
//!    a receiver that sees version `v` in the word and then borrows gets a node of version `v`
//!    or newer. A node carries its own version, so `borrow_and_update` marks exactly the
//!    version it hands out as seen; that may run ahead of the word for a moment (swap done,
//!    bump not yet), which is why "changed" means *newer than seen* (a wrapping comparison),
//!    not "different".
//! 6. `CLOSED` is set once, when the sender goes. Waiters register under the waiter lock and
//!    re-read the word there; a change bumps the word before taking that lock to wake them, so
//!    no wake-up is lost.
//!
//! Modelled in `loom-tests/tests/watch.rs`.
//!
//! ```
//! # use rt_core::test_support::block_on;
//! let (tx, mut rx) = rt_sync::watch::channel("hello");
//! tx.send("world").unwrap();
//! block_on(async {
//!     rx.changed().await.unwrap();
//!     assert_eq!(*rx.borrow_and_update(), "world");
//!     drop(tx);
//!     assert!(rx.changed().await.is_err());
//! });
//! ```
//!
//! # `watch` borrows never block
//!
//! `watch::Receiver::borrow` takes no lock (the value is an atomically swapped `Arc`): any number
//! of borrows may live on one thread, and a `send` from another thread neither waits for a borrow
//! nor changes what it sees. Where tokio's `RwLock` would deadlock, this runs:
//!
//! ```rust
//! let (tx, rx) = rt::sync::watch::channel(1);
//! let a = rx.borrow();
//! let b = rx.borrow(); // a second live borrow on this thread
//! tx.send(2).unwrap(); // and a send while both live
//! assert_eq!((*a, *b), (1, 1)); // they keep the value they borrowed
//! assert_eq!(*rx.borrow(), 2);
//! ```
//!
//! `send_replace` (which hands the old value back) waits until the old value's borrows are gone,
//! and `send_modify` (which changes the value in place) until the current value's are, so neither
//! should be called while the same thread holds a `Ref` — as in tokio.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::marker::{PhantomData, PhantomPinned};
use std::ops::Deref;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::coop;
use rt_core::sync::{Arc, AtomicPtr, AtomicUsize, Mutex, MutexGuard, Ordering};

use rt_core::wait_queue::{Key, WaitQueue};

/// The version word's bits. Nothing outside this module masks them.
mod version {
    use rt_core::sync::{AtomicUsize, Ordering};

    const CLOSED: usize = 1;
    const STEP: usize = 2;

    /// A decoded value of the version word.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) struct Snapshot(usize);

    impl Snapshot {
        /// The version, without the closed flag.
        pub(super) fn version(self) -> usize {
            self.0 & !CLOSED
        }
        pub(super) fn is_closed(self) -> bool {
            self.0 & CLOSED != 0
        }
    }

    pub(super) fn new() -> AtomicUsize {
        AtomicUsize::new(0)
    }

    pub(super) fn load(word: &AtomicUsize) -> Snapshot {
        Snapshot(word.load(Ordering::Acquire))
    }

    /// Records one change (wrapping; the closed bit is untouched since `STEP` is even).
    pub(super) fn bump(word: &AtomicUsize) {
        word.fetch_add(STEP, Ordering::Release);
    }

    pub(super) fn close(word: &AtomicUsize) {
        word.fetch_or(CLOSED, Ordering::Release);
    }

    /// The version before `v` (a receiver marked changed has "seen" it).
    pub(super) fn prev(v: usize) -> usize {
        v.wrapping_sub(STEP)
    }

    /// The version after `v` (what a node made by the next change carries).
    pub(super) fn next(v: usize) -> usize {
        v.wrapping_add(STEP)
    }

    /// Whether version `a` is newer than `b` (rule 5: a node may run ahead of the word).
    pub(super) fn is_newer(a: usize, b: usize) -> bool {
        (a.wrapping_sub(b) as isize) > 0
    }
}

/// The borrow word's bits (rules 1 to 4). Nothing outside this module masks them.
mod borrow_word {
    use rt_core::sync::{fence, spin_loop, thread, AtomicUsize, Ordering};

    const MODIFYING: usize = 1;
    const IN_WINDOW: usize = 2;

    /// Rule 1: enters the window; `false` (nothing held) while a `send_modify` runs.
    pub(super) fn enter(word: &AtomicUsize) -> bool {
        let prev = word.fetch_add(IN_WINDOW, Ordering::SeqCst);
        if prev & MODIFYING != 0 {
            word.fetch_sub(IN_WINDOW, Ordering::Release);
            return false;
        }
        // Orders the entry before the caller's read of `current`; pairs with the fence in
        // `wait_window_empty` (rule 2). A fence, not only `SeqCst` accesses, so that loom
        // (which models `SeqCst` read-modify-writes as `AcqRel` only, tokio-rs/loom#180)
        // checks the code that ships.
        fence(Ordering::SeqCst);
        true
    }

    /// Rule 1: leaves the window, the reference taken.
    pub(super) fn leave(word: &AtomicUsize) {
        word.fetch_sub(IN_WINDOW, Ordering::Release);
    }

    /// Waits until no borrow is inside the window (rule 2).
    pub(super) fn wait_window_empty(word: &AtomicUsize) {
        // Orders the caller's swap of `current` before the loads below; pairs with `enter`'s.
        fence(Ordering::SeqCst);
        let mut backoff = Backoff::default();
        while word.load(Ordering::SeqCst) & !MODIFYING != 0 {
            backoff.snooze();
        }
    }

    /// Waits until no `send_modify` holds the value (rule 4).
    pub(super) fn wait_not_modifying(word: &AtomicUsize) {
        let mut backoff = Backoff::default();
        while word.load(Ordering::Acquire) & MODIFYING != 0 {
            backoff.snooze();
        }
    }

    /// Rule 4: keeps new borrows out (only the writer holding `tx_lock` calls it).
    pub(super) fn set_modifying(word: &AtomicUsize) {
        word.fetch_or(MODIFYING, Ordering::SeqCst);
    }

    pub(super) fn clear_modifying(word: &AtomicUsize) {
        word.fetch_and(!MODIFYING, Ordering::Release);
    }

    /// Spins a little, then yields the thread: the waits above are short (rule 2) or wait for
    /// another thread's code (rules 3 and 4).
    #[derive(Default)]
    pub(super) struct Backoff(u32);

    impl Backoff {
        pub(super) fn snooze(&mut self) {
            if self.0 < 64 {
                self.0 += 1;
                spin_loop();
            } else {
                thread::yield_now();
            }
        }
    }
}

/// Creates a watch channel holding `init`.
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let node = Arc::new(Node {
        value: init,
        version: 0,
    });
    let shared = Arc::new(Shared {
        current: AtomicPtr::new(Arc::into_raw(node).cast_mut()),
        borrows: AtomicUsize::new(0),
        tx_lock: Mutex::new(()),
        _owns: PhantomData,
        version: version::new(),
        receivers: AtomicUsize::new(1),
        senders: AtomicUsize::new(1),
        waiters: Mutex::new(Waiters {
            receivers: WaitQueue::new(),
            senders: WaitQueue::new(),
        }),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, seen: 0 },
    )
}

/// One value, with the version it is (rule 5).
struct Node<T> {
    value: T,
    version: usize,
}

struct Shared<T> {
    /// `Arc::into_raw` of the current node; one strong reference belongs to this field.
    current: AtomicPtr<Node<T>>,
    /// The borrow word (rules 1 to 4).
    borrows: AtomicUsize,
    /// Serialises writers (rule 2); borrows never take it.
    tx_lock: Mutex<()>,
    /// `current` owns an `Arc<Node<T>>`: `Send`/`Sync` only as that is.
    _owns: PhantomData<Arc<Node<T>>>,
    version: AtomicUsize,
    receivers: AtomicUsize,
    /// `Sender`s; the last one to go closes the channel (rule 6).
    senders: AtomicUsize,
    waiters: Mutex<Waiters>,
}

struct Waiters {
    /// Receivers in `changed`.
    receivers: WaitQueue<Waker>,
    /// Senders in `closed`.
    senders: WaitQueue<Waker>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Only queue operations run under the waiter lock; a poisoned one is still consistent.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        let p = self.current.load(Ordering::Relaxed);
        // SAFETY: `current`'s own reference, released once, as the channel goes.
        drop(unsafe { Arc::from_raw(p) });
    }
}

impl<T> Shared<T> {
    /// Rule 1: a new strong reference to the current node.
    fn load(&self) -> Arc<Node<T>> {
        loop {
            if !borrow_word::enter(&self.borrows) {
                borrow_word::wait_not_modifying(&self.borrows);
                continue;
            }
            let p = self.current.load(Ordering::SeqCst);
            // SAFETY: `p` came from `Arc::into_raw` and its node is alive: `current` held a
            // reference when we read it, and a writer that swapped it out since keeps that
            // reference until the window is empty (rule 2), which it is not while we are in it.
            unsafe { Arc::increment_strong_count(p) };
            borrow_word::leave(&self.borrows);
            // SAFETY: the strong reference added just above is the one this `Arc` owns.
            return unsafe { Arc::from_raw(p) };
        }
    }

    fn lock_tx(&self) -> MutexGuard<'_, ()> {
        // Nothing is left half-done under it by a panic (see `send_modify`).
        self.tx_lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current node's version; only for the writer holding `tx_lock`.
    fn current_version(&self, _tx: &MutexGuard<'_, ()>) -> usize {
        let p = self.current.load(Ordering::Acquire);
        // SAFETY: only writers replace `current` and we hold `tx_lock`, so `current`'s own
        // reference keeps the node alive while we read it.
        unsafe { (*p).version }
    }

    /// Rules 2 and 5: installs `value` as the next version, bumps the word, returns the old
    /// node (whose `Ref`s may still live).
    fn swap(&self, value: T) -> Arc<Node<T>> {
        let old = {
            let tx = self.lock_tx();
            let new = Arc::new(Node {
                value,
                version: version::next(self.current_version(&tx)),
            });
            let old = self
                .current
                .swap(Arc::into_raw(new).cast_mut(), Ordering::SeqCst);
            borrow_word::wait_window_empty(&self.borrows);
            version::bump(&self.version);
            old
        };
        // SAFETY: `old` came from `Arc::into_raw` and `current`'s reference to it is ours now:
        // it left `current`, and every borrow that read it has taken its own (rule 2).
        let old = unsafe { Arc::from_raw(old) };
        Shared::wake(rx_queue, self);
        old
    }

    fn wake(queue: impl FnOnce(&mut Waiters) -> &mut WaitQueue<Waker>, shared: &Self) {
        let wakers = queue(&mut lock(&shared.waiters)).drain();
        for w in wakers {
            w.wake();
        }
    }

    /// Registers (or refreshes) `waiting` in the queue picked by `queue`, unless `ready` holds
    /// when checked under the waiter lock.
    fn register(
        &self,
        cx: &Context<'_>,
        waiting: &mut Option<Key>,
        queue: impl FnOnce(&mut Waiters) -> &mut WaitQueue<Waker>,
        ready: impl FnOnce() -> bool,
    ) -> bool {
        let mut waiters = lock(&self.waiters);
        if ready() {
            return true;
        }
        let q = queue(&mut waiters);
        match waiting.and_then(|k| q.get_mut(k)) {
            Some(w) if w.will_wake(cx.waker()) => {}
            Some(w) => *w = cx.waker().clone(),
            None => *waiting = Some(q.push_back(cx.waker().clone())),
        }
        false
    }

    fn unregister(&self, key: Key, queue: impl FnOnce(&mut Waiters) -> &mut WaitQueue<Waker>) {
        queue(&mut lock(&self.waiters)).remove(key);
    }
}

fn rx_queue(w: &mut Waiters) -> &mut WaitQueue<Waker> {
    &mut w.receivers
}

fn tx_queue(w: &mut Waiters) -> &mut WaitQueue<Waker> {
    &mut w.senders
}

/// Publishes values. Cloning adds a sender (as tokio's); dropping the last one closes the
/// channel.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Observes the latest value; cloning keeps the clone's notion of "seen".
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version this receiver has seen.
    seen: usize,
}

/// A borrow of the value: holds that value (not a lock), so it stays the same while the `Ref`
/// lives even if a newer one is sent meanwhile. Any number may live at once.
///
/// `!Send`, and `Sync` when `T` is `Send + Sync`, as tokio's (a read guard there): `send_replace`
/// and `send_modify` wait for the borrows of the value they change, so a borrow belongs where it
/// was taken.
pub struct Ref<'a, T> {
    node: Arc<Node<T>>,
    has_changed: bool,
    /// The borrow of the receiver or sender, and the guard's auto traits (`!Send`, `Sync`): a
    /// marker type only, no lock is taken.
    _handle: PhantomData<std::sync::MutexGuard<'a, ()>>,
}

impl<T> Ref<'_, T> {
    /// Whether this value was new to the receiver when borrowed (for
    /// [`borrow_and_update`](Receiver::borrow_and_update): before it was marked seen). Always
    /// `false` for [`Sender::borrow`].
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

/// The errors under tokio's path (`tokio::sync::watch::error::{RecvError, SendError}`).
pub mod error {
    pub use super::{RecvError, SendError};
}

/// `send` found no receiver; the value comes back.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

/// The sender is gone (and, for `changed`, no unseen value remains).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct RecvError(());

impl<T> Sender<T> {
    /// Replaces the value and notifies receivers; fails, giving the value back, when there is
    /// no receiver.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.receiver_count() == 0 {
            return Err(SendError(value));
        }
        drop(self.shared.swap(value));
        Ok(())
    }

    /// Replaces the value even with no receiver, notifies receivers, returns the old value.
    ///
    /// Waits until no [`Ref`] of the old value is left (rule 3; borrows of the new value go
    /// ahead meanwhile), so do not call it while this thread holds a `Ref`.
    pub fn send_replace(&self, value: T) -> T {
        let mut old = self.shared.swap(value);
        let mut backoff = borrow_word::Backoff::default();
        loop {
            match Arc::try_unwrap(old) {
                Ok(node) => return node.value,
                Err(still_borrowed) => old = still_borrowed,
            }
            backoff.snooze();
        }
    }

    /// Modifies the value in place and notifies receivers.
    ///
    /// Needs the value to itself (rule 4): waits until no [`Ref`] of it is left, and borrows
    /// that start while `modify` runs wait for it. Do not call it while this thread holds a
    /// `Ref`. If `modify` panics, receivers are not notified (as in tokio).
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        self.send_if_modified(|value| {
            modify(value);
            true
        });
    }

    /// [`send_modify`](Sender::send_modify) that notifies receivers only if `modify` returns
    /// `true` (it says whether it changed the value); returns that (tokio's
    /// `send_if_modified`). On `false` the value keeps its version: receivers do not see it
    /// as changed, so `modify` should not have changed it in a way they must notice.
    pub fn send_if_modified(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        let modified = {
            let tx = self.shared.lock_tx();
            let next = version::next(self.shared.current_version(&tx));
            let p = self.shared.current.load(Ordering::Acquire);
            // SAFETY: `current`'s reference, borrowed (not taken) while we hold `tx_lock`: no
            // writer can release it, and `ManuallyDrop` keeps us from releasing it.
            let mut node = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(p) });
            let mut backoff = borrow_word::Backoff::default();
            // Clears MODIFYING however this block is left (a panicking `modify` included).
            struct Clear<'a>(&'a AtomicUsize);
            impl Drop for Clear<'_> {
                fn drop(&mut self) {
                    borrow_word::clear_modifying(self.0);
                }
            }
            let _clear = loop {
                while Arc::strong_count(&node) > 1 {
                    backoff.snooze();
                }
                borrow_word::set_modifying(&self.shared.borrows);
                let clear = Clear(&self.shared.borrows);
                borrow_word::wait_window_empty(&self.shared.borrows);
                if Arc::get_mut(&mut node).is_some() {
                    break clear;
                }
                drop(clear);
            };
            let n = Arc::get_mut(&mut node).expect("the node is ours: checked just above");
            let modified = modify(&mut n.value);
            if modified {
                n.version = next;
                version::bump(&self.shared.version);
            }
            modified
        };
        if modified {
            Shared::wake(rx_queue, &self.shared);
        }
        modified
    }

    /// Borrows the current value (never waits for a sender; see the module docs).
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            node: self.shared.load(),
            has_changed: false,
            _handle: PhantomData,
        }
    }

    /// A new receiver that has seen the current value.
    pub fn subscribe(&self) -> Receiver<T> {
        self.shared.receivers.fetch_add(1, Ordering::Relaxed);
        let seen = self.shared.load().version;
        Receiver {
            shared: self.shared.clone(),
            seen,
        }
    }

    /// Number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.receivers.load(Ordering::Acquire)
    }

    /// Whether every receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Waits until every receiver is gone. Spends a unit of the cooperative budget when it
    /// completes, and yields first when the budget is spent (as tokio's), so a loop of them
    /// on a closed channel yields.
    pub fn closed(&self) -> Closed<'_, T> {
        Closed {
            shared: &self.shared,
            waiting: None,
            _pin: PhantomPinned,
        }
    }
}

impl<T> Sender<T> {
    /// A channel holding `init` with no receiver yet: `send` fails until one
    /// [`subscribe`](Sender::subscribe)s, while `send_replace` and `send_modify` work. As
    /// tokio's `Sender::new`.
    pub fn new(init: T) -> Sender<T> {
        let (tx, rx) = channel(init);
        drop(rx);
        tx
    }

    /// Number of senders of this channel.
    pub fn sender_count(&self) -> usize {
        self.shared.senders.load(Ordering::Acquire)
    }

    /// Whether both senders belong to one channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.senders.fetch_add(1, Ordering::Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T: Default> Default for Sender<T> {
    fn default() -> Sender<T> {
        Sender::new(T::default())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // Only the last sender closes (AcqRel: the others' sends happen before the close).
        if self.shared.senders.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        version::close(&self.shared.version);
        Shared::wake(rx_queue, &self.shared);
    }
}

impl<T> Receiver<T> {
    /// Borrows the current value without marking it seen. Never waits for a sender: hold as
    /// many as you like, on any threads, across sends (module docs).
    pub fn borrow(&self) -> Ref<'_, T> {
        let node = self.shared.load();
        Ref {
            has_changed: node.version != self.seen,
            node,
            _handle: PhantomData,
        }
    }

    /// Borrows the current value and marks it seen.
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let node = self.shared.load();
        // The node carries its version: exactly what is handed out is marked seen (rule 5).
        let has_changed = node.version != self.seen;
        self.seen = node.version;
        Ref {
            node,
            has_changed,
            _handle: PhantomData,
        }
    }

    /// Whether the value changed since last seen; fails once the sender is gone.
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        let now = version::load(&self.shared.version);
        if now.is_closed() {
            return Err(RecvError(()));
        }
        Ok(version::is_newer(now.version(), self.seen))
    }

    /// Marks the current value as not yet seen: [`changed`](Receiver::changed) completes at
    /// once and [`has_changed`](Receiver::has_changed) says `true` (tokio's `mark_changed`).
    pub fn mark_changed(&mut self) {
        self.seen = version::prev(self.shared.load().version);
    }

    /// Whether every sender is gone. Values sent before can still be borrowed.
    pub fn is_closed(&self) -> bool {
        version::load(&self.shared.version).is_closed()
    }

    /// Whether both receivers belong to one channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Marks the current value seen without borrowing it (tokio's `mark_unchanged`).
    pub fn mark_unchanged(&mut self) {
        self.seen = self.shared.load().version;
    }

    /// Waits until the value satisfies `f` and borrows it, marking it seen (tokio's
    /// `wait_for`). The current value is checked first, seen or not; after that, each new
    /// value (values sent between two checks may be skipped, as with
    /// [`changed`](Receiver::changed)). Fails when the sender is gone and the last value does
    /// not satisfy `f`.
    ///
    /// `f` runs while the value is borrowed: a `send_modify` or `send_replace` of it waits for
    /// `f` to return.
    ///
    /// It spends one unit of the cooperative budget when it completes, however many values
    /// it checked, and waits (yields) first when the budget is spent, even if the current
    /// value satisfies `f` (tokio's `wait_for`): a loop of them yields.
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future loses no value (the versions it checked are marked
    /// seen, as with [`borrow_and_update`](Receiver::borrow_and_update)).
    pub async fn wait_for(&mut self, f: impl FnMut(&T) -> bool) -> Result<Ref<'_, T>, RecvError> {
        coop::cooperative(self.wait_for_inner(f)).await
    }

    /// [`wait_for`](Receiver::wait_for)'s body, which spends no budget itself.
    async fn wait_for_inner(
        &mut self,
        mut f: impl FnMut(&T) -> bool,
    ) -> Result<Ref<'_, T>, RecvError> {
        let mut closed = false;
        loop {
            let node = self.shared.load();
            let has_changed = node.version != self.seen;
            self.seen = node.version;
            if (!closed || has_changed) && f(&node.value) {
                return Ok(Ref {
                    node,
                    has_changed,
                    _handle: PhantomData,
                });
            }
            drop(node);
            if closed {
                return Err(RecvError(()));
            }
            closed = Changed::new(self, false).await.is_err();
        }
    }

    /// Waits for a value not yet seen and marks it seen. Fails when the sender is gone and
    /// nothing new remains. Spends a unit of the cooperative budget when it completes.
    ///
    /// Cancel-safe: dropping the future before it completes marks nothing seen.
    ///
    /// # Cancel safety
    /// Cancel safe: the version seen is marked only when the future returns.
    pub fn changed(&mut self) -> Changed<'_, T> {
        Changed::new(self, true)
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.shared.receivers.fetch_add(1, Ordering::Relaxed);
        Receiver {
            shared: self.shared.clone(),
            seen: self.seen,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if self.shared.receivers.fetch_sub(1, Ordering::AcqRel) == 1 {
            Shared::wake(tx_queue, &self.shared);
        }
    }
}

/// The future of [`Receiver::changed`]. `!Unpin`, as tokio's (pin it to poll it by hand).
#[must_use = "futures do nothing unless polled"]
pub struct Changed<'a, T> {
    rx: &'a mut Receiver<T>,
    waiting: Option<Key>,
    /// Spends a unit of the cooperative budget (false inside `wait_for`, which spends its own).
    budgeted: bool,
    _pin: PhantomPinned,
}

impl<'a, T> Changed<'a, T> {
    fn new(rx: &'a mut Receiver<T>, budgeted: bool) -> Changed<'a, T> {
        Changed {
            rx,
            waiting: None,
            budgeted,
            _pin: PhantomPinned,
        }
    }

    /// The outcome if there is one now; marks a new version seen.
    fn check(rx: &mut Receiver<T>) -> Option<Result<(), RecvError>> {
        let now = version::load(&rx.shared.version);
        if version::is_newer(now.version(), rx.seen) {
            rx.seen = now.version();
            Some(Ok(()))
        } else if now.is_closed() {
            Some(Err(RecvError(())))
        } else {
            None
        }
    }
}

impl<T> Future for Changed<'_, T> {
    type Output = Result<(), RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `!Unpin` only as tokio's future is: no field is pinned, nothing is moved out.
        let this = unsafe { self.get_unchecked_mut() };
        let coop = if this.budgeted {
            Some(std::task::ready!(coop::poll_proceed(cx)))
        } else {
            None
        };
        let mut out = Self::check(this.rx);
        if out.is_none() {
            let rx = &mut *this.rx;
            let shared = rx.shared.clone();
            shared.register(cx, &mut this.waiting, rx_queue, || {
                out = Self::check(rx);
                out.is_some()
            });
        }
        match out {
            Some(r) => {
                if let Some(key) = this.waiting.take() {
                    this.rx.shared.unregister(key, rx_queue);
                }
                if let Some(coop) = coop {
                    coop.made_progress();
                }
                Poll::Ready(r)
            }
            None => Poll::Pending,
        }
    }
}

impl<T> Drop for Changed<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.rx.shared.unregister(key, rx_queue);
        }
    }
}

/// The future of [`Sender::closed`]. `!Unpin`, as tokio's (pin it to poll it by hand).
#[must_use = "futures do nothing unless polled"]
pub struct Closed<'a, T> {
    shared: &'a Shared<T>,
    waiting: Option<Key>,
    _pin: PhantomPinned,
}

impl<T> Future for Closed<'_, T> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `!Unpin` only as tokio's future is: no field is pinned, nothing is moved out.
        let this = unsafe { self.get_unchecked_mut() };
        let coop = std::task::ready!(coop::poll_proceed(cx));
        let shared = this.shared;
        let gone = || shared.receivers.load(Ordering::Acquire) == 0;
        if gone() || shared.register(cx, &mut this.waiting, tx_queue, gone) {
            if let Some(key) = this.waiting.take() {
                shared.unregister(key, tx_queue);
            }
            coop.made_progress();
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl<T> Drop for Closed<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.waiting.take() {
            self.shared.unregister(key, tx_queue);
        }
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.node.value
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendError").finish_non_exhaustive()
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch channel has no receiver")
    }
}

impl<T> Error for SendError<T> {}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch sender is gone")
    }
}

impl Error for RecvError {}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("version", &version::load(&self.shared.version))
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("seen", &self.seen)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Changed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Changed")
            .field("waiting", &self.waiting.is_some())
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Closed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Closed")
            .field("waiting", &self.waiting.is_some())
            .finish_non_exhaustive()
    }
}
