#![cfg(loom)]
//! loom models of a registration moving between reactor shards: the shard word and its MOVING
//! bit (`rt_io::shard_word`, which `rt-io/src/registration.rs` uses for every move).
//!
//! The code under test is the real `ShardWord` (`follow_task`, `move_to`, `current`). epoll
//! cannot run under loom, so the `ShardOps` the word drives are a mock kernel that does what
//! epoll does for one edge-triggered source, under one lock (the kernel serialises `epoll_ctl`
//! and the file's wake-ups): a readiness change queues an event on every epoll set the source is
//! in; `EPOLL_CTL_ADD` queues one if the source is ready at that moment; `EPOLL_CTL_DEL` removes
//! the source and any event of it still queued there; a shard's poll takes its queued event.
//!
//! * `an_event_during_a_move_is_not_lost`: the source moves from shard 0 to shard 1 (its task's
//!   fourth wait on worker 1) while it becomes readable and shard 0 takes a turn. The event is
//!   delivered by one shard or the other, and afterwards the source is in exactly the epoll set
//!   its word names, counted on that shard alone, with MOVING clear.
//! * `two_halves_move_at_once`: the read half's task waits on worker 1 and the write half's on
//!   worker 2, both past the threshold, while an event arrives: one move wins (MOVING keeps the
//!   other out), the event is not lost, and word, epoll sets and counts agree.
//! * `a_source_dropped_after_a_move_leaves_nothing`: the task moves its source and then drops
//!   it (as `Registration::drop` and `deregister` do, through `current()`), while an event
//!   arrives and shard 0 takes a turn: no epoll set holds the source or an event of it, and no
//!   shard counts it. A drop takes `&mut`, so it cannot overlap a move of the same source; the
//!   model checks the sequence on one thread against the others.
//!
//! What these models do not prove: that epoll behaves as the mock (`EPOLL_CTL_ADD` of a ready
//! edge-triggered fd reports it, as `ep_insert` polls the file; `EPOLL_CTL_DEL` drops its ready
//! entry); the mio calls of `registration.rs`'s `ShardOps`; that an event one shard took before
//! the `EPOLL_CTL_DEL`, dispatched after the slot was released, wakes nobody (the slab's
//! generations, `loom-tests/tests/readiness.rs` rule 4); nor anything about the scheduler's use
//! of the shards' source counts (a `Relaxed` heuristic).

use std::io;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

use rt_io::shard_word::{ShardOps, ShardWord, MOVE_AFTER};

/// What epoll knows of the one source, per shard (epoll set).
#[derive(Default)]
struct Epoll {
    /// The source is in this shard's epoll set.
    registered: Vec<bool>,
    /// An event of the source is queued on this shard, for its next poll.
    queued: Vec<bool>,
    /// The source is readable (level), as the kernel sees it.
    ready: bool,
}

struct Kernel {
    epoll: Mutex<Epoll>,
    /// `Shard::sources`, per shard.
    counts: Vec<AtomicUsize>,
    /// Events polls delivered.
    delivered: AtomicUsize,
}

impl Kernel {
    /// A kernel with `shards` epoll sets and the source registered on `on` (as
    /// `Registration::new` leaves it).
    fn new(shards: usize, on: usize) -> Kernel {
        let mut epoll = Epoll {
            registered: vec![false; shards],
            queued: vec![false; shards],
            ready: false,
        };
        epoll.registered[on] = true;
        let counts: Vec<AtomicUsize> = (0..shards).map(|_| AtomicUsize::new(0)).collect();
        counts[on].store(1, Ordering::Relaxed);
        Kernel {
            epoll: Mutex::new(epoll),
            counts,
            delivered: AtomicUsize::new(0),
        }
    }

    /// Data arrives: the source becomes readable, an edge for every epoll set it is in.
    fn event(&self) {
        let mut e = self.epoll.lock().unwrap();
        e.ready = true;
        for s in 0..e.registered.len() {
            if e.registered[s] {
                e.queued[s] = true;
            }
        }
    }

    /// One turn of `shard`: takes its queued event, if any.
    fn poll(&self, shard: usize) {
        let mut e = self.epoll.lock().unwrap();
        if std::mem::take(&mut e.queued[shard]) {
            self.delivered.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Final turns of every shard, once the other threads are done.
    fn poll_all(&self) {
        for s in 0..self.counts.len() {
            self.poll(s);
        }
    }

    fn count(&self, shard: usize) -> usize {
        self.counts[shard].load(Ordering::Relaxed)
    }

    /// The source is in exactly the epoll set of `shard` (`None`: in none), and counted there
    /// alone.
    fn assert_on(&self, shard: Option<usize>) {
        let e = self.epoll.lock().unwrap();
        for s in 0..e.registered.len() {
            let here = Some(s) == shard;
            assert_eq!(e.registered[s], here, "epoll set {s}, source on {shard:?}");
            assert_eq!(self.count(s), usize::from(here), "count of shard {s}");
        }
    }
}

impl ShardOps for Kernel {
    fn deregister(&self, shard: usize) -> io::Result<()> {
        let mut e = self.epoll.lock().unwrap();
        assert!(
            e.registered[shard],
            "EPOLL_CTL_DEL of a source not in set {shard}"
        );
        e.registered[shard] = false;
        e.queued[shard] = false;
        Ok(())
    }

    fn register(&self, shard: usize) -> io::Result<()> {
        let mut e = self.epoll.lock().unwrap();
        assert!(!e.registered[shard], "EPOLL_CTL_ADD twice to set {shard}");
        e.registered[shard] = true;
        if e.ready {
            e.queued[shard] = true;
        }
        Ok(())
    }

    fn recount(&self, from: usize, to: usize) {
        self.counts[from].fetch_sub(1, Ordering::Relaxed);
        self.counts[to].fetch_add(1, Ordering::Relaxed);
    }
}

/// A word on shard 0 whose task already waited `MOVE_AFTER - 1` times on worker 1's shard
/// (single-threaded, before the model's threads start): the next wait there moves it.
fn word_about_to_move(kernel: &Kernel) -> ShardWord {
    let word = ShardWord::new(0);
    for _ in 0..MOVE_AFTER - 1 {
        word.follow_task(1, kernel);
    }
    assert_eq!(word.current(), 0, "no move before MOVE_AFTER waits");
    word
}

/// A thread whose task waits on the source while its worker's own shard is `home`.
fn spawn_wait(kernel: &Arc<Kernel>, word: &Arc<ShardWord>, home: usize) -> thread::JoinHandle<()> {
    let (kernel, word) = (kernel.clone(), word.clone());
    thread::spawn(move || word.follow_task(home, &*kernel))
}

/// A thread that takes one turn of `shard`.
fn spawn_turn(kernel: &Arc<Kernel>, shard: usize) -> thread::JoinHandle<()> {
    let kernel = kernel.clone();
    thread::spawn(move || kernel.poll(shard))
}

#[test]
fn an_event_during_a_move_is_not_lost() {
    loom::model(|| {
        let kernel = Arc::new(Kernel::new(2, 0));
        let word = Arc::new(word_about_to_move(&kernel));
        let mover = spawn_wait(&kernel, &word, 1);
        let turn = spawn_turn(&kernel, 0);
        kernel.event();
        mover.join().unwrap();
        turn.join().unwrap();
        kernel.poll_all();
        assert!(
            kernel.delivered.load(Ordering::Relaxed) >= 1,
            "the event was lost"
        );
        assert!(!word.is_moving());
        assert_eq!(word.current(), 1, "the source moved to its task's shard");
        kernel.assert_on(Some(1));
    });
}

#[test]
fn two_halves_move_at_once() {
    loom::model(|| {
        let kernel = Arc::new(Kernel::new(3, 0));
        let word = Arc::new(word_about_to_move(&kernel));
        let halves = [spawn_wait(&kernel, &word, 1), spawn_wait(&kernel, &word, 2)];
        kernel.event();
        for h in halves {
            h.join().unwrap();
        }
        kernel.poll_all();
        assert!(
            kernel.delivered.load(Ordering::Relaxed) >= 1,
            "the event was lost"
        );
        assert!(!word.is_moving());
        let on = word.current();
        assert!(on == 1 || on == 2, "one of the moves happened: on {on}");
        kernel.assert_on(Some(on));
    });
}

#[test]
fn a_source_dropped_after_a_move_leaves_nothing() {
    loom::model(|| {
        let kernel = Arc::new(Kernel::new(2, 0));
        let word = Arc::new(word_about_to_move(&kernel));
        let task = {
            let (kernel, word) = (kernel.clone(), word.clone());
            thread::spawn(move || {
                word.follow_task(1, &*kernel);
                // `PollEvented::drop`: `Registration::deregister`, then `Registration::drop`
                // uncounts the source, both on the shard `current()` names.
                let on = word.current();
                kernel.deregister(on).unwrap();
                kernel.counts[on].fetch_sub(1, Ordering::Relaxed);
            })
        };
        let turn = spawn_turn(&kernel, 0);
        kernel.event();
        task.join().unwrap();
        turn.join().unwrap();
        kernel.assert_on(None);
        let e = kernel.epoll.lock().unwrap();
        assert!(
            e.queued.iter().all(|q| !q),
            "an event of a dropped source stayed queued"
        );
    });
}
