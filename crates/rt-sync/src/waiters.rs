//! The intrusive, FIFO waiter list the semaphore (and the locks built on it) and `Notify` queue
//! on. The channels, `broadcast` and `watch` use the other waiter queue,
//! `rt_core::wait_queue`, whose module docs say why the two differ.
//!
//! A waiting future owns its [`Node`]: the node is a field of the future, so queueing costs no
//! allocation. The primitive owns a [`List`] of pointers to those nodes, kept behind its lock.
//!
//! # The pinning and unlinking argument
//!
//! A raw pointer to a node is only ever held by a list, and only while the node is linked. Three
//! rules make every such pointer valid:
//!
//! 1. **Pinned before linked.** A node is linked only from the `poll` of a future that contains it,
//!    that is through `Pin<&mut Future>`. Node types carry `PhantomPinned`, so the future is
//!    `!Unpin` and, once pinned, its memory is not moved or reused until its `Drop` has run.
//! 2. **Unlinked before freed.** The containing future's `Drop` takes the list's lock and unlinks
//!    the node if it is still linked. So the node outlives its presence in the list.
//! 3. **One lock.** Every access to a node's links, and to the parts of its value documented as
//!    guarded, happens with the list borrowed, and the list lives inside the primitive's mutex. A
//!    notifier that unlinks a node (`pop_front`, `pop_back`) must finish with the node before releasing that
//!    lock, except through fields documented as published last (e.g. the semaphore's `needed`).
//!
//! `mem::forget` of a pinned future does not break rule 2: `Pin`'s drop guarantee says the memory
//! of a pinned value stays valid until `drop` runs, so a forgotten future is leaked, never reused.
//!
//! The `&mut` the futures take to their own fields (through `Pin::get_unchecked_mut`) covers the
//! node, while another thread may read it through the list under the lock. Node types are `!Unpin`,
//! and `&mut` to `!Unpin` types is not treated as unique by rustc or Miri; the concurrently read
//! fields are atomics or cells, never plain data.

use rt_core::sync::UnsafeCell;
use std::fmt;
use std::marker::PhantomPinned;
use std::ptr::NonNull;
use std::task::Waker;

/// A waiter's node, embedded in the waiting future.
pub(crate) struct Node<T> {
    /// Guarded by the lock of the list the node is queued on.
    links: UnsafeCell<Links<T>>,
    /// The primitive's per-waiter data; each primitive documents which fields the lock guards.
    value: T,
    _pin: PhantomPinned,
}

struct Links<T> {
    prev: Option<NonNull<Node<T>>>,
    next: Option<NonNull<Node<T>>>,
    linked: bool,
}

// SAFETY: the links hold pointers to other nodes but are only touched under the list's lock (rule 3),
// so moving a node between threads is as safe as moving its value.
unsafe impl<T: Send> Send for Node<T> {}
// SAFETY: shared access to a node only reads `value` (whose own type decides whether that is
// thread-safe); the links are never read through `&Node` except under the list's lock.
unsafe impl<T: Sync> Sync for Node<T> {}

impl<T> Node<T> {
    pub(crate) fn new(value: T) -> Node<T> {
        Node {
            links: UnsafeCell::new(Links {
                prev: None,
                next: None,
                linked: false,
            }),
            value,
            _pin: PhantomPinned,
        }
    }

    /// The per-waiter data.
    pub(crate) fn value(&self) -> &T {
        &self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Node<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node").field("value", &self.value).finish()
    }
}

/// A FIFO list of pinned nodes. Lives behind the owning primitive's lock.
pub(crate) struct List<T> {
    head: Option<NonNull<Node<T>>>,
    tail: Option<NonNull<Node<T>>>,
}

// SAFETY: the list is a set of pointers to nodes that stay valid while linked (rules 1 and 2); it is
// only reached through its owner's lock (rule 3), so the thread holding the lock may touch the nodes.
unsafe impl<T: Send> Send for List<T> {}

impl<T> List<T> {
    pub(crate) const fn new() -> List<T> {
        List {
            head: None,
            tail: None,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// The first node, still linked.
    pub(crate) fn front(&self) -> Option<NonNull<Node<T>>> {
        self.head
    }

    /// Appends `node`.
    ///
    /// # Safety
    ///
    /// `node` points to a live, pinned node that is in no list, and it stays valid until it has been
    /// unlinked again (by `pop_front`, `pop_back` or `remove` on this list), per rules 1 and 2 of this module.
    pub(crate) unsafe fn push_back(&mut self, node: NonNull<Node<T>>) {
        let old_tail = self.tail;
        // SAFETY: `node` is live (contract); we hold the list, so we own its links (rule 3).
        unsafe {
            links(node, |l| {
                debug_assert!(!l.linked, "node queued twice");
                l.prev = old_tail;
                l.next = None;
                l.linked = true;
            })
        };
        match old_tail {
            // SAFETY: `tail` is linked, hence live (rule 2), and we hold the list.
            Some(t) => unsafe { links(t, |l| l.next = Some(node)) },
            None => self.head = Some(node),
        }
        self.tail = Some(node);
    }

    /// Unlinks and returns the first node. The caller may use it until it releases the list's lock.
    pub(crate) fn pop_front(&mut self) -> Option<NonNull<Node<T>>> {
        let node = self.head?;
        // SAFETY: `node` is linked in this list, hence live (rule 2), and we hold the list (rule 3).
        unsafe { self.unlink(node) };
        Some(node)
    }

    /// Unlinks and returns the last node. The caller may use it until it releases the list's lock.
    pub(crate) fn pop_back(&mut self) -> Option<NonNull<Node<T>>> {
        let node = self.tail?;
        // SAFETY: `node` is linked in this list, hence live (rule 2), and we hold the list (rule 3).
        unsafe { self.unlink(node) };
        Some(node)
    }

    /// Unlinks `node` if it is linked; returns whether it was.
    ///
    /// # Safety
    ///
    /// `node` points to a live node that is either in this list or in none.
    pub(crate) unsafe fn remove(&mut self, node: NonNull<Node<T>>) -> bool {
        // SAFETY: `node` is live (contract) and we hold the list.
        let linked = unsafe { links(node, |l| l.linked) };
        if linked {
            // SAFETY: linked, and by contract in this list.
            unsafe { self.unlink(node) };
        }
        linked
    }

    /// # Safety
    ///
    /// `node` is linked in this list.
    unsafe fn unlink(&mut self, node: NonNull<Node<T>>) {
        // SAFETY: linked, hence live; we hold the list.
        let (prev, next) = unsafe {
            links(node, |l| {
                l.linked = false;
                (l.prev.take(), l.next.take())
            })
        };
        match prev {
            // SAFETY: a linked node's neighbours are linked, hence live.
            Some(p) => unsafe { links(p, |l| l.next = next) },
            None => self.head = next,
        }
        match next {
            // SAFETY: as above.
            Some(n) => unsafe { links(n, |l| l.prev = prev) },
            None => self.tail = prev,
        }
    }
}

impl<T> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("List")
            .field("empty", &self.is_empty())
            .finish()
    }
}

/// Runs `f` on `node`'s links.
///
/// # Safety
///
/// `node` is live and the caller holds the lock of the list it is (or is about to be) linked in.
unsafe fn links<T, R>(node: NonNull<Node<T>>, f: impl FnOnce(&mut Links<T>) -> R) -> R {
    // SAFETY: live by contract; a shared reference to the node only reaches the `UnsafeCell`.
    let node = unsafe { node.as_ref() };
    node.links.with_mut(|l| {
        // SAFETY: the list's lock is held (contract), so no other access to the links is in progress.
        f(unsafe { &mut *l })
    })
}

/// Stores `waker` in `slot` unless the waker there already wakes the same task (saving a clone
/// when a waiter is polled again by the same task). The caller has exclusive access to the slot
/// (it holds the lock guarding it, or owns it by the primitive's rules).
#[inline]
pub(crate) fn set_waker(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(w) if w.will_wake(waker) => {}
        _ => *slot = Some(waker.clone()),
    }
}

/// Wakers collected under a lock, woken after it is released (a waker may re-enter the primitive).
///
/// Holds at most [`WakeList::CAPACITY`]; a notifier with more to wake releases its lock, wakes this
/// batch and takes the lock again.
pub(crate) struct WakeList {
    wakers: [Option<Waker>; WakeList::CAPACITY],
    len: usize,
}

impl WakeList {
    pub(crate) const CAPACITY: usize = crate::tuning::WAKE_BATCH;

    pub(crate) fn new() -> WakeList {
        WakeList {
            wakers: std::array::from_fn(|_| None),
            len: 0,
        }
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == WakeList::CAPACITY
    }

    /// Adds `waker`. The caller checks [`WakeList::is_full`] first.
    pub(crate) fn push(&mut self, waker: Waker) {
        debug_assert!(!self.is_full());
        self.wakers[self.len] = Some(waker);
        self.len += 1;
    }

    /// Wakes every collected waker (call with no lock held).
    pub(crate) fn wake_all(&mut self) {
        for slot in &mut self.wakers[..self.len] {
            if let Some(w) = slot.take() {
                w.wake();
            }
        }
        self.len = 0;
    }
}

impl Drop for WakeList {
    fn drop(&mut self) {
        self.wake_all();
    }
}

impl fmt::Debug for WakeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WakeList").field("len", &self.len).finish()
    }
}
