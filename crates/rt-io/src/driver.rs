//! [`Driver`]: owns the reactor, started with the runtime and stopped at its shutdown.
//!
//! A reactor is one or more *shards*, each a `mio::Poll` (an epoll instance) with its own
//! `mio::Waker`; the timers live on shard 0 (its timerfd, its waker). It runs one of two ways:
//!
//! - [`Driver::start`]: one shard, driven by a thread of its own named `rt-io`, which the
//!   driver joins at shutdown.
//! - [`Driver::start_on_workers`]: one shard that the runtime's workers share, or one per
//!   worker, and no thread: the workers drive the shards themselves through the
//!   [`WorkerDriver`] that [`Driver::worker_driver`] hands the scheduler (a shared shard by
//!   whichever worker takes it; a worker's own shard between tasks and when idle; any thread
//!   may take a turn of a shard nobody is driving).
//!
//! Two tokens are reserved at the top of the token space of every shard; every other token is a
//! registration's (`slab.rs`):
//!
//! - [`WAKER_TOKEN`] (`usize::MAX`): the shard's `mio::Waker`, which interrupts its `poll` for
//!   shutdown, the test hook, a scheduler's unpark and (shard 0) the timers' `unpark`.
//! - [`TIMER_TOKEN`] (`usize::MAX - 1`): the timers' own timerfd, registered on shard 0.

use std::io;

use rt_core::sync::thread::{Builder, JoinHandle};

use crate::handle::{Handle, Reactor, Shard};
use crate::reactor::{self, ReactorConfig};
use crate::worker_driver::WorkerDriver;

pub(crate) use crate::time::driver::TimeDriver;

/// Token of the `mio::Waker`.
pub(crate) const WAKER_TOKEN: mio::Token = mio::Token(usize::MAX);
/// Token reserved for the timers.
pub(crate) const TIMER_TOKEN: mio::Token = mio::Token(usize::MAX - 1);

/// Runs a blocking job somewhere that is not a worker (the runtime's blocking pool): what
/// [`Driver::set_blocking_spawner`] installs. A std `Arc` because a closure coerces to it.
pub type BlockingSpawner = std::sync::Arc<dyn Fn(Box<dyn FnOnce() + Send>) + Send + Sync>;

/// Owns the reactor: its shards, and the thread `rt-io` when it has one (see the module docs).
/// Dropping it shuts the reactor down.
#[derive(Debug)]
pub struct Driver {
    handle: Handle,
    thread: Option<JoinHandle<()>>,
    /// Started by [`Driver::start_on_workers`]: the runtime's threads drive the shards.
    on_workers: bool,
    stopped: bool,
}

impl Driver {
    /// Creates the `mio::Poll` and the timers, and spawns the thread `rt-io` that drives them.
    pub fn start() -> io::Result<Driver> {
        Driver::start_with(ReactorConfig::default())
    }

    /// [`Driver::start`] with `config`'s limits on the events a turn takes.
    ///
    /// # Panics
    /// When a limit in `config` is 0.
    pub fn start_with(config: ReactorConfig) -> io::Result<Driver> {
        Driver::build(true, 1, 1, config)
    }

    /// Creates `shards` `mio::Poll`s (at least one) and the timers without a thread of their
    /// own: the runtime's threads drive them through [`Driver::worker_driver`]'s
    /// [`WorkerDriver::try_drive`] (one thread per shard at a time). A multi-thread runtime
    /// makes one shard its workers share, or one per worker (`Builder::reactor_shards`); each
    /// worker `i` binds shard `i % shards` with [`WorkerDriver::bind_thread`].
    pub fn start_on_workers(shards: usize) -> io::Result<Driver> {
        Driver::start_on_workers_with(shards, ReactorConfig::default())
    }

    /// [`Driver::start_on_workers`] with `config`'s limits on the events a turn takes.
    ///
    /// # Panics
    /// When a limit in `config` is 0.
    pub fn start_on_workers_with(shards: usize, config: ReactorConfig) -> io::Result<Driver> {
        Driver::start_for_workers(shards, shards, config)
    }

    /// [`Driver::start_on_workers_with`] for a runtime of `workers` worker threads, which may
    /// be more than the shards: each worker that binds itself
    /// ([`WorkerDriver::bind_worker`]) keeps its far-off timers in a stage of its own, off the
    /// shared wheel, whatever the number of shards (`time/stage.rs`).
    ///
    /// # Panics
    /// When a limit in `config` is 0.
    pub fn start_for_workers(
        workers: usize,
        shards: usize,
        config: ReactorConfig,
    ) -> io::Result<Driver> {
        Driver::build(false, shards.max(1), workers, config)
    }

    fn build(
        own_thread: bool,
        shards: usize,
        workers: usize,
        config: ReactorConfig,
    ) -> io::Result<Driver> {
        assert!(
            config.max_events_per_tick > 0 && config.max_events_per_busy_tick > 0,
            "a reactor turn must take at least one event"
        );
        rt_core::timer::install(&crate::time::HookTimer);
        let mut polls = Vec::with_capacity(shards);
        let mut parts = Vec::with_capacity(shards);
        for _ in 0..shards {
            let poll = mio::Poll::new()?;
            let registry = poll.registry().try_clone()?;
            let waker = std::sync::Arc::new(mio::Waker::new(&registry, WAKER_TOKEN)?);
            polls.push(poll);
            parts.push(Shard::new(registry, waker));
        }
        // Timers live on shard 0: its timerfd, and its waker to make it recompute its timeout.
        // A worker's stage of far-off timers belongs to its shard, whose waker makes a turn
        // blocked there read the stage's new hint (`time/stage.rs`, rule 4).
        let unpark: std::sync::Arc<dyn Fn(usize) + Send + Sync> = {
            let wakers: Vec<_> = parts.iter().map(|p| p.waker.clone()).collect();
            std::sync::Arc::new(move |shard: usize| {
                // Fails only if the poll is gone, and then nobody waits for it.
                let _ = wakers[shard].wake();
            })
        };
        if !own_thread && shards > 1 {
            // Each shard's listen epoll (`listen.rs`), over the shards' polls (through their
            // registries: the same epoll instances, and they live as long as the shards).
            let fds: Vec<_> = parts
                .iter()
                .map(|p| std::os::fd::AsRawFd::as_raw_fd(&p.registry))
                .collect();
            for (k, part) in parts.iter_mut().enumerate() {
                part.listen = Some(crate::listen::Listen::new(k, &fds)?);
            }
        }
        let id = crate::handle::next_reactor_id();
        let layout = (workers.max(1), parts.len());
        let time = TimeDriver::new(&parts[0].registry, TIMER_TOKEN, unpark, layout, id)?;
        let handle = Handle::new(Reactor::new(
            id,
            parts.into_boxed_slice(),
            time,
            !own_thread,
            &config,
        ));
        let mut cores = polls
            .into_iter()
            .map(|poll| reactor::Core::new(poll, config));
        let thread = if own_thread {
            let handle = handle.clone();
            let core = cores.next().expect("one shard");
            Some(
                Builder::new()
                    .name("rt-io".into())
                    .spawn(move || reactor::run(core, handle))?,
            )
        } else {
            for (shard, core) in handle.inner.shards.iter().zip(cores) {
                *shard.core.lock().unwrap_or_else(|e| e.into_inner()) = Some(core);
            }
            None
        };
        Ok(Driver {
            handle,
            thread,
            on_workers: !own_thread,
            stopped: false,
        })
    }

    /// Installs where the reactor runs blocking work — host-name lookups for `lookup_host` and
    /// the sockets' `bind`/`connect`/`send_to` — so it never runs on a worker. The facade hands
    /// it the runtime's blocking pool at build; rt-io has no pool of its own (it does not depend
    /// on rt-sched). Without one, each lookup runs on a short-lived thread.
    pub fn set_blocking_spawner(&self, spawner: BlockingSpawner) {
        self.handle.set_blocking_spawner(spawner);
    }

    /// A handle to this driver's reactor.
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// The scheduler's side of the reactor, when the runtime's workers drive its shards
    /// ([`Driver::start_on_workers`]); `None` when the reactor has a thread of its own.
    pub fn worker_driver(&self) -> Option<WorkerDriver> {
        self.on_workers
            .then(|| WorkerDriver::new(self.handle.clone()))
    }

    /// Stops the reactor and joins its thread. Every pending and later IO operation then fails with
    /// "rt-io reactor has shut down". Idempotent.
    pub fn shutdown(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        self.handle.mark_stopped(false);
        // An error means the poll is gone, so the thread is exiting anyway.
        self.handle.unpark_all();
        if let Some(thread) = self.thread.take() {
            // A panic of the thread was already turned into "reactor thread is gone" by its
            // exit guard.
            let _ = thread.join();
        }
        // The exit guard ran on the thread; repeat its work in case the thread never started
        // it (and do it for the first time when the workers drove the reactor).
        reactor::stop(&self.handle, false);
        // Waits for threads still inside `WorkerDriver::try_drive` (they return at once: we woke
        // them).
        for shard in self.handle.inner.shards.iter() {
            drop(shard.core.lock().unwrap_or_else(|e| e.into_inner()).take());
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.shutdown();
    }
}
