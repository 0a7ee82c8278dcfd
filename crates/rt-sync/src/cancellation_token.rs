//! `CancellationToken`, tokio-util's shape: the piece a graceful shutdown is built from.
//!
//! A token is cancelled once, by [`cancel`](CancellationToken::cancel) on it or on any
//! ancestor; [`cancelled`](CancellationToken::cancelled) completes then (also for a future
//! created before the cancel and polled after). Clones share one token; a
//! [`child_token`](CancellationToken::child_token) is cancelled with its parent, not the other
//! way round.
//!
//! ```
//! # use rt_core::test_support::block_on;
//! use rt_sync::CancellationToken;
//!
//! let shutdown = CancellationToken::new();
//! let worker = shutdown.child_token();
//! shutdown.cancel();
//! assert!(worker.is_cancelled());
//! block_on(worker.cancelled()); // completes at once
//! ```
//!
//! # The tree
//!
//! Every token made from one root (by `child_token`, transitively) lives in one *tree*: a slab
//! of entries (parent, children, number of handles) behind one mutex, the tree lock. Only
//! `child_token`, `cancel`, clone and drop take it; [`is_cancelled`](CancellationToken::is_cancelled)
//! and a poll of `cancelled` do not.
//!
//! 1. `cancel` walks the entry's subtree under the tree lock and sets each `cancelled` flag
//!    (release) that is not set yet; after unlocking it wakes each newly cancelled token's
//!    waiters ([`Notify::notify_waiters`]). A token is cancelled at most once.
//! 2. `child_token` of a cancelled token makes an entry that is cancelled already and linked
//!    to no parent (nothing can cancel it again); otherwise it links the child under the
//!    parent, both under the tree lock, so a cancel either sees the child or ran before it
//!    was linked and left the parent's flag set, which rule 2 checks.
//! 3. When the last handle of a token goes, its entry leaves the tree: its children move up
//!    to its parent (so a cancel of an ancestor still reaches them), it is unlinked from its
//!    parent, and its slot goes back to the slab's free list. A long-lived parent with
//!    short-lived children therefore stays the size of its live children.
//! 4. `cancelled` creates its `Notified` *before* it reads the flag (acquire): a cancel that
//!    sets the flag after that read calls `notify_waiters` after the `Notified` existed, which
//!    `Notify` promises to deliver even before the first poll. Modelled in
//!    `loom-tests/tests/cancellation_token.rs`.
//!
//! # Cancellation tokens
//!
//! `rt::sync::CancellationToken` is tokio-util's: `cancel`, `is_cancelled`, `cancelled().await`,
//! `cancelled_owned`, `child_token` (cancelling a parent cancels its children, never the reverse;
//! a dropped child leaves its parent's tree) and `drop_guard`.
//!
//! ```rust
//! use rt::sync::CancellationToken;
//!
//! let rt = rt::Builder::new_multi_thread().worker_threads(2).build()?;
//! let shutdown = CancellationToken::new();
//! let worker = rt.spawn({
//!     let token = shutdown.child_token();
//!     async move {
//!         let mut ticks = 0u32;
//!         loop {
//!             rt::select! {
//!                 _ = token.cancelled() => return ticks,
//!                 _ = rt::task::yield_now() => ticks += 1,
//!             }
//!         }
//!     }
//! });
//! let guard = shutdown.clone().drop_guard();
//! drop(guard); // cancels `shutdown`, and so the worker's child token
//! rt.block_on(worker)?;
//! assert!(shutdown.is_cancelled());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use rt_core::sync::{Arc, AtomicBool, Mutex, MutexGuard, Ordering};

use crate::notify::{Notified, Notify};

/// A token that can be cancelled once, with its children; `Clone` shares it.
pub struct CancellationToken {
    tree: Arc<Mutex<Tree>>,
    /// This token's entry in `tree`.
    entry: usize,
    state: Arc<State>,
}

/// What a token's handles share without the tree lock.
struct State {
    cancelled: AtomicBool,
    notify: Notify,
}

#[derive(Default)]
struct Tree {
    entries: Vec<Option<Entry>>,
    free: Vec<usize>,
}

struct Entry {
    parent: Option<usize>,
    children: Vec<usize>,
    /// This entry's index in its parent's `children`.
    pos: usize,
    handles: usize,
    state: Arc<State>,
}

impl Tree {
    fn entry(&mut self, i: usize) -> &mut Entry {
        self.entries[i].as_mut().expect("a live token's entry")
    }

    fn insert(&mut self, entry: Entry) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.entries[i] = Some(entry);
                i
            }
            None => {
                self.entries.push(Some(entry));
                self.entries.len() - 1
            }
        }
    }

    /// Links `child` as the last child of `parent`.
    fn link(&mut self, parent: usize, child: usize) {
        let pos = self.entry(parent).children.len();
        self.entry(parent).children.push(child);
        let c = self.entry(child);
        c.parent = Some(parent);
        c.pos = pos;
    }

    /// Unlinks `child` from its parent, if it has one.
    fn unlink(&mut self, child: usize) {
        let c = self.entry(child);
        let Some(parent) = c.parent.take() else {
            return;
        };
        let pos = c.pos;
        let siblings = &mut self.entry(parent).children;
        siblings.swap_remove(pos);
        if let Some(&moved) = siblings.get(pos) {
            self.entry(moved).pos = pos;
        }
    }
}

fn lock(tree: &Mutex<Tree>) -> MutexGuard<'_, Tree> {
    // No user code runs under the tree lock; every step leaves the tree consistent.
    tree.lock().unwrap_or_else(|e| e.into_inner())
}

fn new_state(cancelled: bool) -> Arc<State> {
    Arc::new(State {
        cancelled: AtomicBool::new(cancelled),
        notify: Notify::new(),
    })
}

impl CancellationToken {
    /// A new token, not cancelled, with no parent.
    pub fn new() -> CancellationToken {
        let state = new_state(false);
        let mut tree = Tree::default();
        let entry = tree.insert(Entry {
            parent: None,
            children: Vec::new(),
            pos: 0,
            handles: 1,
            state: state.clone(),
        });
        CancellationToken {
            tree: Arc::new(Mutex::new(tree)),
            entry,
            state,
        }
    }

    /// A token that is cancelled when this one is (or already is, if this one is); cancelling
    /// the child does not cancel this token.
    pub fn child_token(&self) -> CancellationToken {
        let mut tree = lock(&self.tree);
        // Rule 2: read under the tree lock, which `cancel` holds while it sets flags.
        let cancelled = self.state.cancelled.load(Ordering::Acquire);
        let state = new_state(cancelled);
        let child = tree.insert(Entry {
            parent: None,
            children: Vec::new(),
            pos: 0,
            handles: 1,
            state: state.clone(),
        });
        if !cancelled {
            tree.link(self.entry, child);
        }
        drop(tree);
        CancellationToken {
            tree: self.tree.clone(),
            entry: child,
            state,
        }
    }

    /// Cancels this token and its children (transitively), waking every `cancelled` future.
    /// Cancelling again does nothing.
    pub fn cancel(&self) {
        let mut woken = Vec::new();
        {
            let mut tree = lock(&self.tree);
            let mut stack = vec![self.entry];
            while let Some(i) = stack.pop() {
                let e = tree.entry(i);
                if e.state.cancelled.load(Ordering::Relaxed) {
                    // Already cancelled, and so is its subtree (rule 2).
                    continue;
                }
                e.state.cancelled.store(true, Ordering::Release);
                woken.push(e.state.clone());
                stack.extend_from_slice(&e.children);
            }
        }
        for state in woken {
            state.notify.notify_waiters();
        }
    }

    /// Whether this token is cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.state.cancelled.load(Ordering::Acquire)
    }

    /// Completes when this token is cancelled (at once if it is).
    ///
    /// # Cancel safety
    /// Cancel safe: the future holds nothing but its place among the waiters.
    pub fn cancelled(&self) -> WaitForCancellationFuture<'_> {
        WaitForCancellationFuture {
            // Rule 4: before the flag is read in `poll`.
            notified: self.state.notify.notified(),
            state: &self.state,
        }
    }

    /// [`cancelled`](CancellationToken::cancelled) for a future that owns the token (to move it
    /// into a task).
    pub fn cancelled_owned(self) -> WaitForCancellationFutureOwned {
        WaitForCancellationFutureOwned {
            future: Box::pin(async move { self.cancelled().await }),
        }
    }

    /// Runs `fut` until it completes (`Some(output)`) or this token is cancelled (`None`, and
    /// `fut` is dropped unfinished), as tokio-util's method of the same name. The token is
    /// checked first at every poll, so a token cancelled before the first poll never runs `fut`.
    ///
    /// # Cancel safety
    /// As cancel safe as `fut`: dropping the returned future drops `fut` where it stands.
    pub async fn run_until_cancelled<F: Future>(&self, fut: F) -> Option<F::Output> {
        let mut cancelled = std::pin::pin!(self.cancelled());
        let mut fut = std::pin::pin!(fut);
        std::future::poll_fn(|cx| {
            if cancelled.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            fut.as_mut().poll(cx).map(Some)
        })
        .await
    }

    /// [`run_until_cancelled`](CancellationToken::run_until_cancelled) for a future that owns
    /// the token (to move it into a task).
    pub async fn run_until_cancelled_owned<F: Future>(self, fut: F) -> Option<F::Output> {
        self.run_until_cancelled(fut).await
    }

    /// A guard that cancels this token when dropped, unless [`disarm`](DropGuard::disarm)ed.
    pub fn drop_guard(self) -> DropGuard {
        DropGuard { token: Some(self) }
    }
}

impl Default for CancellationToken {
    fn default() -> Self {
        CancellationToken::new()
    }
}

impl Clone for CancellationToken {
    fn clone(&self) -> Self {
        lock(&self.tree).entry(self.entry).handles += 1;
        CancellationToken {
            tree: self.tree.clone(),
            entry: self.entry,
            state: self.state.clone(),
        }
    }
}

impl Drop for CancellationToken {
    fn drop(&mut self) {
        let mut tree = lock(&self.tree);
        let e = tree.entry(self.entry);
        e.handles -= 1;
        if e.handles > 0 {
            return;
        }
        // Rule 3: children move up, the entry leaves.
        let parent = e.parent;
        let children = std::mem::take(&mut e.children);
        tree.unlink(self.entry);
        for child in children {
            tree.entry(child).parent = None;
            if let Some(p) = parent {
                tree.link(p, child);
            }
        }
        tree.entries[self.entry] = None;
        tree.free.push(self.entry);
    }
}

/// The future of [`CancellationToken::cancelled`].
#[must_use = "futures do nothing unless polled"]
pub struct WaitForCancellationFuture<'a> {
    notified: Notified<'a>,
    state: &'a State,
}

impl Future for WaitForCancellationFuture<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `notified` is pinned structurally: it is never moved out of `self`, and this
        // type has no `Drop` impl that could move it. `state` is not pinned.
        let this = unsafe { self.get_unchecked_mut() };
        if this.state.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        // SAFETY: as above, `notified` stays where it is.
        let notified = unsafe { Pin::new_unchecked(&mut this.notified) };
        // Only `cancel` notifies this `Notify`, after setting the flag (rule 1).
        notified.poll(cx)
    }
}

/// The future of [`CancellationToken::cancelled_owned`]; owns the token.
#[must_use = "futures do nothing unless polled"]
pub struct WaitForCancellationFutureOwned {
    future: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl Future for WaitForCancellationFutureOwned {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.future.as_mut().poll(cx)
    }
}

/// Cancels its token when dropped; [`disarm`](DropGuard::disarm) takes the token back.
#[must_use = "a DropGuard cancels its token as soon as it is dropped"]
pub struct DropGuard {
    token: Option<CancellationToken>,
}

impl DropGuard {
    /// Returns the token without cancelling it.
    pub fn disarm(mut self) -> CancellationToken {
        self.token
            .take()
            .expect("a guard holds its token until disarmed")
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            token.cancel();
        }
    }
}

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken")
            .field("is_cancelled", &self.is_cancelled())
            .finish()
    }
}

impl fmt::Debug for WaitForCancellationFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitForCancellationFuture")
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for WaitForCancellationFutureOwned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitForCancellationFutureOwned")
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for DropGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DropGuard")
            .field("token", &self.token)
            .finish()
    }
}

#[cfg(test)]
impl CancellationToken {
    /// Live entries in this token's tree (for the memory test below).
    fn tree_entries(&self) -> usize {
        lock(&self.tree).entries.iter().flatten().count()
    }
}

#[cfg(test)]
mod tests {
    use super::CancellationToken;

    #[test]
    fn dropped_children_leave_the_tree() {
        let parent = CancellationToken::new();
        for _ in 0..1000 {
            let child = parent.child_token();
            let grandchild = child.child_token();
            drop(child);
            // The grandchild moved up to `parent`: cancelling it still reaches the grandchild.
            assert_eq!(parent.tree_entries(), 2);
            drop(grandchild);
        }
        assert_eq!(parent.tree_entries(), 1);
        let kept = parent.child_token().child_token();
        parent.cancel();
        assert!(kept.is_cancelled());
    }
}
