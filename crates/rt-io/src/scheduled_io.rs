//! One registration's shared state: the readiness word and the wakers waiting on it.
//!
//! This type knows nothing of mio, so the loom model `loom-tests/tests/readiness.rs` checks it
//! directly. The protocol:
//!
//! 1. The reactor, for an event carrying generation `g`, calls [`ScheduledIo::dispatch`]: under the
//!    waiter lock it checks that the word is still of generation `g` (else the event is stale and
//!    dropped), adds the readiness bits and advances the tick, then moves out the wakers whose
//!    interest the new bits satisfy. It wakes them after releasing the lock.
//! 2. A task first reads the word without the lock (fast path). If nothing it wants is set, it takes
//!    the lock, stores its waker and reads the word again. Because rule 1 changes the word only under
//!    the same lock, the second read and the stored waker cannot both miss an event: no lost wakeup.
//! 3. After its syscall returns `WouldBlock`, the task calls [`ScheduledIo::clear_readiness`] with
//!    the event it observed. The clear happens only if the tick is unchanged, so readiness delivered
//!    since the observation survives.
//! 4. Releasing the slot ([`ScheduledIo::reset`]) bumps the generation under the waiter lock and
//!    takes every waker (dropped by the caller). A dispatch of the old generation that comes later finds a generation
//!    mismatch (rule 1) and wakes nobody: a stale event never wakes the slot's next owner.
//! 5. [`ScheduledIo::shutdown`] sets the shutdown bit under the lock and moves out every waker.
//! 6. [`ScheduledIo::assume_ready`] adds readiness bits without an event and without the lock,
//!    leaving the tick alone: the owner calls it on a new source, before any task waits on it,
//!    so there is nobody to wake. It races only with the reactor's rule 1 and a task's rule 3,
//!    both compare-and-swap loops on the whole word, so no bit of either is lost; a clear
//!    (rule 3) of the same tick may remove an assumed bit, which is what a `WouldBlock` means.
//!
//! Two kinds of waiters exist. The `poll_*` entry points (used by `AsyncRead`/`AsyncWrite`, which
//! take `&mut self` or a half) keep one waker per direction. The `&self` futures (`readable()`,
//! `accept()`, `recv()`), which many tasks may await at once, each keep an entry in a
//! `rt_core::wait_queue::WaitQueue` (the channels' waiter queue) under a `Key` the future
//! remembers, removed when the future completes or drops.
//!
//! No waker is woken or dropped under the waiter lock: either may run a task's code (dropping
//! the last reference to a task drops its future, and the sockets in it), which may come back
//! to this slot or the slab.

use std::fmt;
use std::task::{Context, Poll, Waker};

use rt_core::sync::{AtomicU64, Mutex, MutexGuard, Ordering};
use rt_core::wait_queue::{Key, WaitQueue};

use crate::readiness::{Interest, Ready, Word};

/// Readiness observed by a task, to be handed back to [`ScheduledIo::clear_readiness`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadyEvent {
    /// The bits the wait's interest asked for that were set.
    pub ready: Ready,
    /// The reactor stopped: the wait completed because nothing will ever be delivered again.
    pub shutdown: bool,
    tick: u16,
    generation: u32,
}

impl ReadyEvent {
    /// The same observation narrowed to `ready`'s bits: clearing it clears only those.
    pub(crate) fn with_ready(self, ready: Ready) -> ReadyEvent {
        ReadyEvent {
            ready: self.ready & ready,
            ..self
        }
    }
}

/// Which single-waker slot a `poll_*` caller uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The reader slot (interest READABLE).
    Read,
    /// The writer slot (interest WRITABLE).
    Write,
}

impl Direction {
    fn interest(self) -> Interest {
        match self {
            Direction::Read => Interest::READABLE,
            Direction::Write => Interest::WRITABLE,
        }
    }
}

/// The readiness word and waiters of one registration slot.
pub struct ScheduledIo {
    /// Layout in `readiness.rs`. Changed by the reactor only under `waiters`' lock (rule 1).
    word: AtomicU64,
    waiters: Mutex<Waiters>,
}

#[derive(Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
    list: WaitQueue<Waiter>,
}

struct Waiter {
    interest: Interest,
    waker: Waker,
}

impl Default for ScheduledIo {
    fn default() -> Self {
        ScheduledIo::new()
    }
}

impl ScheduledIo {
    /// A slot of generation 0 with no readiness and no waiters.
    pub fn new() -> ScheduledIo {
        ScheduledIo {
            word: AtomicU64::new(Word::new(0).into_raw()),
            waiters: Mutex::new(Waiters::default()),
        }
    }

    fn load(&self) -> Word {
        Word::from_raw(self.word.load(Ordering::Acquire))
    }

    fn lock(&self) -> MutexGuard<'_, Waiters> {
        // A panic while holding this lock leaves the waiters consistent (every change is one
        // assignment), so a poisoned lock is still usable.
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The slot's current generation (the one new tokens are issued with).
    pub fn generation(&self) -> u32 {
        self.load().generation()
    }

    /// Reactor side, rule 1: delivers `ready` for an event of `generation` and pushes the wakers
    /// it satisfies onto `wakers`. Returns `false` (and changes nothing) for a stale event.
    pub fn dispatch(&self, generation: u32, ready: Ready, wakers: &mut Vec<Waker>) -> bool {
        let mut waiters = self.lock();
        let mut cur = self.load();
        let ready = loop {
            if cur.generation() != generation {
                return false;
            }
            let next = cur.deliver(ready);
            // Tasks clear bits without the lock (rule 3), so this can still race with them.
            match self.word.compare_exchange(
                cur.into_raw(),
                next.into_raw(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break next.ready(),
                Err(actual) => cur = Word::from_raw(actual),
            }
        };
        waiters.take_satisfied(ready, wakers);
        true
    }

    /// Rule 5: marks the slot shut down and pushes every waker onto `wakers`.
    pub fn shutdown(&self, wakers: &mut Vec<Waker>) {
        let mut waiters = self.lock();
        self.word
            .fetch_or(Word::new(0).shut_down().into_raw(), Ordering::AcqRel);
        waiters.take_all(wakers);
    }

    /// Rule 4: releases the slot for its next owner. Returns the new generation; the old owner's
    /// wakers go to `dropped`, for the caller to drop once it holds no lock (dropping a waker may
    /// drop a task, and with it another socket).
    pub fn reset(&self, dropped: &mut Vec<Waker>) -> u32 {
        let mut waiters = self.lock();
        let next = self.load().next_generation();
        self.word.store(next.into_raw(), Ordering::Release);
        waiters.take_all(dropped);
        next.generation()
    }

    /// Rule 6: marks `ready` (READABLE/WRITABLE) as set without an event from the reactor,
    /// for a source known (or likely) to be ready at creation. Does nothing once shut down.
    pub fn assume_ready(&self, ready: Ready) {
        let mut cur = self.load();
        loop {
            let next = cur.assume(ready);
            if next == cur {
                return;
            }
            match self.word.compare_exchange(
                cur.into_raw(),
                next.into_raw(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => cur = Word::from_raw(actual),
            }
        }
    }

    /// The readiness currently set for `interest`, if any (or the shutdown), without waiting.
    pub fn ready_now(&self, interest: Interest) -> Option<ReadyEvent> {
        event_for(self.load(), interest)
    }

    /// Rule 2 for the single-waker slot of `direction`.
    pub fn poll_ready(&self, cx: &mut Context<'_>, direction: Direction) -> Poll<ReadyEvent> {
        let interest = direction.interest();
        if let Some(ev) = self.ready_now(interest) {
            return Poll::Ready(ev);
        }
        let mut waiters = self.lock();
        let slot = match direction {
            Direction::Read => &mut waiters.reader,
            Direction::Write => &mut waiters.writer,
        };
        // A replaced waker is dropped after the lock is released (see `reset`).
        let replaced = match slot {
            Some(w) if w.will_wake(cx.waker()) => None,
            _ => slot.replace(cx.waker().clone()),
        };
        let r = match event_for(self.load(), interest) {
            Some(ev) => Poll::Ready(ev),
            None => Poll::Pending,
        };
        drop(waiters);
        drop(replaced);
        r
    }

    /// Rule 2 for a list waiter. `key` is the future's entry: `None` before its first wait.
    pub fn poll_waiter(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        key: &mut Option<Key>,
    ) -> Poll<ReadyEvent> {
        if let Some(ev) = self.ready_now(interest) {
            if let Some(k) = key.take() {
                self.cancel_waiter(k);
            }
            return Poll::Ready(ev);
        }
        let mut waiters = self.lock();
        if let Some(ev) = event_for(self.load(), interest) {
            let removed = key.take().and_then(|k| waiters.remove(k));
            drop(waiters);
            drop(removed);
            return Poll::Ready(ev);
        }
        let existing = key.and_then(|k| waiters.list.get_mut(k));
        let mut replaced = None;
        match existing {
            Some(w) => {
                if !w.waker.will_wake(cx.waker()) {
                    replaced = Some(std::mem::replace(&mut w.waker, cx.waker().clone()));
                }
            }
            None => {
                // First wait, or the entry was taken by a wake that found the readiness cleared
                // again before this poll: (re-)enter the list.
                *key = Some(waiters.list.push_back(Waiter {
                    interest,
                    waker: cx.waker().clone(),
                }));
            }
        }
        drop(waiters);
        drop(replaced);
        Poll::Pending
    }

    /// Removes a list waiter whose future is dropped before completing.
    pub fn cancel_waiter(&self, key: Key) {
        let removed = self.lock().remove(key);
        drop(removed); // after the lock: see `reset`
    }

    /// Rule 3: clears the readiness `event` observed, unless newer readiness arrived since.
    pub fn clear_readiness(&self, event: ReadyEvent) {
        let mut cur = self.load();
        loop {
            if cur.tick() != event.tick || cur.generation() != event.generation {
                return;
            }
            let next = cur.clear(event.ready);
            match self.word.compare_exchange(
                cur.into_raw(),
                next.into_raw(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => cur = Word::from_raw(actual),
            }
        }
    }
}

/// The event a wait with `interest` completes with on `word`, or `None` to keep waiting.
fn event_for(word: Word, interest: Interest) -> Option<ReadyEvent> {
    let ready = word.ready().intersection(interest);
    if ready.is_empty() && !word.is_shutdown() {
        return None;
    }
    Some(ReadyEvent {
        ready,
        shutdown: word.is_shutdown(),
        tick: word.tick(),
        generation: word.generation(),
    })
}

impl Waiters {
    fn take_satisfied(&mut self, ready: Ready, wakers: &mut Vec<Waker>) {
        if !ready.intersection(Interest::READABLE).is_empty() {
            wakers.extend(self.reader.take());
        }
        if !ready.intersection(Interest::WRITABLE).is_empty() {
            wakers.extend(self.writer.take());
        }
        self.list.take_matching(
            |w| !ready.intersection(w.interest).is_empty(),
            |w| wakers.push(w.waker),
        );
    }

    fn take_all(&mut self, wakers: &mut Vec<Waker>) {
        wakers.extend(self.reader.take());
        wakers.extend(self.writer.take());
        self.list.take_matching(|_| true, |w| wakers.push(w.waker));
    }

    /// Removes `key`'s entry, handing it back to be dropped outside the lock.
    #[must_use]
    fn remove(&mut self, key: Key) -> Option<Waiter> {
        self.list.remove(key)
    }
}

impl fmt::Debug for ScheduledIo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScheduledIo")
            .field("word", &self.load())
            .finish_non_exhaustive()
    }
}
