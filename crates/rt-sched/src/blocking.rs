//! The blocking pool behind `spawn_blocking`: threads created on demand up to a limit (512 by
//! default), each kept alive 10 s when idle.
//!
//! A blocking closure runs as a task (so it gets a `JoinHandle`, panic capture and `abort`
//! before it starts) whose future completes in one poll. Such a task is always either in the
//! pool's queue or running on a pool thread, so it needs no owned list: shutdown cancels what is
//! queued and waits (up to a timeout) for what runs.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use rt_core::sync::{Arc, Condvar, Mutex};
use rt_core::task::{self, JoinHandle, Notified, Schedule, Task};

use crate::ThreadSpawner;

/// How the pool is built.
#[derive(Clone, Debug)]
pub struct Config {
    /// Most threads alive at once.
    pub max_threads: usize,
    /// How long an idle thread waits for work before it exits.
    pub keep_alive: Duration,
    /// How the pool's threads are started: name, stack size, hooks.
    pub threads: ThreadSpawner,
}

/// One unit of queued work.
enum Work {
    /// A `spawn_blocking` task.
    Task(Notified<Spawner>),
    /// A plain closure (`Spawner::spawn_raw`): no task, no handle; dropped unrun if pushed
    /// after shutdown.
    Raw(Box<dyn FnOnce() + Send>),
}

impl Work {
    /// Drops the work unrun (shutdown, or no thread to run it).
    fn cancel(self) {
        match self {
            Work::Task(t) => t.shutdown(),
            Work::Raw(f) => drop(f),
        }
    }
}

struct State {
    queue: VecDeque<Work>,
    /// Threads counted as serving the queue (a thread that decided to exit is no longer one).
    threads: usize,
    /// Threads not yet finished, `on_thread_stop` included: what shutdown waits for.
    alive: usize,
    idle: usize,
    /// Wake-ups handed to idle threads and not yet consumed.
    notified: usize,
    shutdown: bool,
}

struct Inner {
    state: Mutex<State>,
    work: Condvar,
    /// Signalled when a thread exits (for shutdown with a timeout).
    exited: Condvar,
    config: Config,
    /// Called when the pool becomes quiet (see [`Spawner::set_on_quiet`]).
    on_quiet: std::sync::OnceLock<Arc<dyn Fn() + Send + Sync>>,
    /// The runtime's trace recorder, with a trace file ([`Spawner::set_trace`]).
    trace: std::sync::OnceLock<std::sync::Arc<crate::trace::Recorder>>,
}

/// Spawns blocking work onto the pool; cheap to clone.
#[derive(Clone)]
pub struct Spawner {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.inner.state.lock().unwrap();
        f.debug_struct("blocking::Spawner")
            .field("threads", &s.threads)
            .field("idle", &s.idle)
            .field("queued", &s.queue.len())
            .finish()
    }
}

/// The pool; dropping it shuts it down, waiting for running closures.
#[derive(Debug)]
pub struct BlockingPool {
    spawner: Spawner,
}

struct BlockingTask<F>(Option<F>);

impl<F> Unpin for BlockingTask<F> {}

impl<F: FnOnce() -> R, R> Future for BlockingTask<F> {
    type Output = R;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let f = self
            .0
            .take()
            .expect("blocking task polled after completion");
        // Blocking work is not budgeted: it owns its thread.
        Poll::Ready(rt_core::coop::unconstrained(f))
    }
}

impl BlockingPool {
    /// A pool with no threads yet.
    pub fn new(config: Config) -> BlockingPool {
        BlockingPool {
            spawner: Spawner {
                inner: Arc::new(Inner {
                    state: Mutex::new(State {
                        queue: VecDeque::new(),
                        threads: 0,
                        alive: 0,
                        idle: 0,
                        notified: 0,
                        shutdown: false,
                    }),
                    work: Condvar::new(),
                    exited: Condvar::new(),
                    config,
                    on_quiet: std::sync::OnceLock::new(),
                    trace: std::sync::OnceLock::new(),
                }),
            },
        }
    }

    /// The pool's spawner.
    pub fn spawner(&self) -> &Spawner {
        &self.spawner
    }

    /// Refuses new closures (each is cancelled at its spawn) and waits, at most `timeout`
    /// (forever if `None`), for the pool's threads to finish: the closures running and those
    /// already queued, which still run, as in tokio (only with no thread left to run them are
    /// they cancelled). Idempotent.
    pub fn shutdown(&self, timeout: Option<Duration>) {
        // A timeout too long to be an instant (`Duration::MAX`) is no limit.
        self.shutdown_until(timeout.and_then(|t| Instant::now().checked_add(t)));
    }

    /// [`shutdown`](Self::shutdown), waiting for busy threads until `deadline` at most
    /// (forever when `None`): a runtime's shutdown shares one deadline among its parts.
    pub fn shutdown_until(&self, deadline: Option<Instant>) {
        let inner = &self.spawner.inner;
        let orphans: Vec<_> = {
            let mut s = inner.state.lock().unwrap();
            s.shutdown = true;
            inner.work.notify_all();
            // The threads run what is queued before they exit; with none left, nobody will.
            if s.threads == 0 {
                s.queue.drain(..).collect()
            } else {
                Vec::new()
            }
        };
        for w in orphans {
            w.cancel();
        }
        let mut s = inner.state.lock().unwrap();
        while s.alive > 0 {
            match deadline {
                None => s = inner.exited.wait(s).unwrap(),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break;
                    }
                    s = inner.exited.wait_timeout(s, d - now).unwrap().0;
                }
            }
        }
    }
}

impl Drop for BlockingPool {
    fn drop(&mut self) {
        // Already shut down (`Runtime::shutdown_timeout`): that call waited as long as it was
        // told to; waiting again here, without a limit, would undo its timeout.
        if self.spawner.inner.state.lock().unwrap().shutdown {
            return;
        }
        self.shutdown(None);
    }
}

impl Spawner {
    /// Runs `f` on a pool thread. After shutdown `f` is dropped unrun and the handle resolves to
    /// a cancellation error.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_blocking_with(f, task::SpawnMeta::caller())
    }

    /// [`spawn_blocking`](Self::spawn_blocking) with an explicit name and spawn location.
    pub fn spawn_blocking_with<F, R>(&self, f: F, meta: task::SpawnMeta<'_>) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let id = task::next_id();
        let (notified, join) = task::unowned(BlockingTask(Some(f)), self.clone(), id, meta, false);
        if let Some(r) = self.inner.trace.get().filter(|_| rt_core::OBSERVE) {
            r.spawn_here(id.as_u64(), &meta);
        }
        if let Err(e) = self.push(Work::Task(notified)) {
            // Could not start a thread: the task was cancelled; report on the handle.
            tracing::warn!("spawn_blocking: {e}");
        }
        join
    }

    /// Runs `f` on a pool thread, as is: not as a task (no handle, no panic capture, no trace
    /// slice). After shutdown `f` is dropped unrun. `Err` when a thread was needed and the OS
    /// refused one: `f` then still runs once a busy thread is free, or is dropped unrun if the
    /// pool has none.
    pub(crate) fn spawn_raw(&self, f: impl FnOnce() + Send + 'static) -> io::Result<()> {
        self.push(Work::Raw(Box::new(f)))
    }

    fn push(&self, work: Work) -> io::Result<()> {
        let inner = &self.inner;
        let mut s = inner.state.lock().unwrap();
        if s.shutdown {
            drop(s);
            work.cancel();
            return Ok(());
        }
        s.queue.push_back(work);
        if s.idle > s.notified {
            s.notified += 1;
            inner.work.notify_one();
            return Ok(());
        }
        if s.threads >= inner.config.max_threads {
            return Ok(()); // a busy thread takes it when done
        }
        s.threads += 1;
        s.alive += 1;
        drop(s);
        let me = self.clone();
        let exiting = self.clone();
        let spawned = inner
            .config
            .threads
            .spawn(move || me.run_thread(), move || exiting.thread_exited());
        if let Err(e) = spawned {
            let mut s = inner.state.lock().unwrap();
            s.threads -= 1;
            s.alive -= 1;
            if s.threads == 0 {
                // Nobody will ever run the queue: cancel what is in it.
                let queued: Vec<_> = s.queue.drain(..).collect();
                drop(s);
                for w in queued {
                    w.cancel();
                }
            }
            return Err(e);
        }
        Ok(())
    }

    fn run_thread(&self) {
        let inner = &self.inner;
        let keep_alive = inner.config.keep_alive;
        let mut s = inner.state.lock().unwrap();
        'outer: loop {
            while let Some(work) = s.queue.pop_front() {
                drop(s);
                match (work, inner.trace.get()) {
                    (Work::Task(task), Some(r)) if rt_core::OBSERVE => r.run_here(task, "blocking"),
                    (Work::Task(task), _) => task.run(),
                    (Work::Raw(f), _) => {
                        // A raw closure is the runtime's own code; a panic in it is a bug, but
                        // it must not take the pool's thread count down with the thread.
                        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
                            tracing::error!("a runtime closure on the blocking pool panicked");
                        }
                    }
                }
                s = inner.state.lock().unwrap();
            }
            if s.shutdown {
                break;
            }
            s.idle += 1;
            if s.idle == s.threads && s.queue.is_empty() {
                if let Some(hook) = inner.on_quiet.get() {
                    hook();
                }
            }
            let deadline = Instant::now() + keep_alive;
            loop {
                let now = Instant::now();
                if now >= deadline {
                    s.idle -= 1;
                    s.notified = s.notified.min(s.idle);
                    if s.queue.is_empty() {
                        break 'outer;
                    }
                    continue 'outer;
                }
                s = inner.work.wait_timeout(s, deadline - now).unwrap().0;
                if s.notified > 0 {
                    s.notified -= 1;
                    s.idle -= 1;
                    continue 'outer;
                }
                if s.shutdown {
                    // Run what is still queued, then exit (the check after the queue loop).
                    s.idle -= 1;
                    continue 'outer;
                }
            }
        }
        s.threads -= 1;
    }

    /// A pool thread's last act, after its loop and `on_thread_stop`.
    fn thread_exited(&self) {
        let mut s = self.inner.state.lock().unwrap();
        s.alive -= 1;
        drop(s);
        self.inner.exited.notify_all();
    }

    /// Whether no closure is queued or running (every thread idle). A paused clock does not
    /// auto-advance while the pool is busy (rule P2 in rt-io's `time/clock.rs`): the closure's
    /// result may be what a task waits for.
    /// A thread counts as busy until it has delivered its closure's result (woken the
    /// `JoinHandle`).
    pub fn is_quiet(&self) -> bool {
        let s = self.inner.state.lock().unwrap();
        s.queue.is_empty() && s.idle == s.threads
    }

    /// Whether the pool has shut down: a closure spawned now is dropped unrun.
    pub fn is_shut_down(&self) -> bool {
        self.inner.state.lock().unwrap().shutdown
    }

    /// Sets what to call when the pool becomes quiet ([`Spawner::is_quiet`]); called under the
    /// pool's lock, so it must only signal (the facade unparks a reactor shard). Set once; a
    /// second call is ignored.
    pub fn set_on_quiet(&self, hook: Arc<dyn Fn() + Send + Sync>) {
        let _ = self.inner.on_quiet.set(hook);
    }

    /// Records the pool's closures (one poll each, on their thread's track) into `recorder`'s
    /// Chrome trace. Set once; a second call is ignored.
    pub fn set_trace(&self, recorder: std::sync::Arc<crate::trace::Recorder>) {
        let _ = self.inner.trace.set(recorder);
    }

    /// Threads alive in the pool now.
    pub fn num_threads(&self) -> usize {
        self.inner.state.lock().unwrap().threads
    }

    /// For the metrics, read under one lock: threads serving the queue, how many of them wait
    /// for work, and closures queued and not yet started.
    pub fn load(&self) -> (usize, usize, usize) {
        let s = self.inner.state.lock().unwrap();
        (s.threads, s.idle, s.queue.len())
    }
}

impl Schedule for Spawner {
    fn release(&self, task: &Task<Spawner>) -> Option<Task<Spawner>> {
        if let Some(r) = self.inner.trace.get().filter(|_| rt_core::OBSERVE) {
            r.complete_here(task.id().as_u64());
        }
        None
    }

    fn schedule(&self, task: Notified<Spawner>) {
        let _ = self.push(Work::Task(task));
    }
}
