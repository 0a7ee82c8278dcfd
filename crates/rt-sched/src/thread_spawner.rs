//! `ThreadSpawner`: the one routine that starts a scheduler thread — the multi-thread workers
//! and the blocking pool's threads alike — with its name, stack size and hooks.
//!
//! Each thread runs, in order: the facade's [`ThreadHook`] (which enters the runtime context)
//! around the user's `on_thread_start`, the thread's loop, then the user's `on_thread_stop`, so
//! both user callbacks run inside the runtime context, on the new thread, as in tokio.

use std::fmt;
use std::io;

use rt_core::sync::{thread, StdArc};

use crate::ThreadHook;

/// A user callback run on a runtime thread (`Builder::on_thread_start`/`on_thread_stop`).
/// A std `Arc` because it holds a trait object (`rt_core::sync::StdArc`, exception 7).
pub type ThreadCallback = StdArc<dyn Fn() + Send + Sync>;

/// Names each new thread (`Builder::thread_name_fn`); called once per thread, before it starts.
pub type ThreadNameFn = StdArc<dyn Fn() -> String + Send + Sync>;

/// How a scheduler starts its threads; cheap to clone (every field is shared).
#[derive(Clone)]
pub struct ThreadSpawner {
    name: ThreadNameFn,
    stack_size: Option<usize>,
    hook: ThreadHook,
    on_start: Option<ThreadCallback>,
    on_stop: Option<ThreadCallback>,
}

impl ThreadSpawner {
    /// Threads named `name`, default stack size, no hooks.
    pub fn new(name: impl Into<String>) -> ThreadSpawner {
        let name = name.into();
        ThreadSpawner {
            name: StdArc::new(move || name.clone()),
            stack_size: None,
            hook: crate::no_hook(),
            on_start: None,
            on_stop: None,
        }
    }

    /// Names each thread with what `name` returns when the thread is started.
    pub fn name_fn(mut self, name: ThreadNameFn) -> ThreadSpawner {
        self.name = name;
        self
    }

    /// The threads' stack size (`None`: std's default).
    pub fn stack_size(mut self, bytes: Option<usize>) -> ThreadSpawner {
        self.stack_size = bytes;
        self
    }

    /// Wraps each thread's whole body, user callbacks included (the facade enters its
    /// runtime context here).
    pub fn hook(mut self, hook: ThreadHook) -> ThreadSpawner {
        self.hook = hook;
        self
    }

    /// Runs `f` on each new thread before its loop.
    pub fn on_start(mut self, f: Option<ThreadCallback>) -> ThreadSpawner {
        self.on_start = f;
        self
    }

    /// Runs `f` on each thread after its loop returned, before the thread exits.
    pub fn on_stop(mut self, f: Option<ThreadCallback>) -> ThreadSpawner {
        self.on_stop = f;
        self
    }

    /// Starts a thread that runs `body` inside the hooks, then `exited` as its last act (after
    /// `on_thread_stop` and the facade's hook: whoever waits for `exited` knows the user's
    /// callbacks have run).
    pub(crate) fn spawn(
        &self,
        body: impl FnOnce() + Send + 'static,
        exited: impl FnOnce() + Send + 'static,
    ) -> io::Result<thread::JoinHandle<()>> {
        let mut b = thread::Builder::new().name((self.name)());
        if let Some(size) = self.stack_size {
            b = b.stack_size(size);
        }
        let hook = self.hook.clone();
        let on_start = self.on_start.clone();
        let on_stop = self.on_stop.clone();
        b.spawn(move || {
            let mut body = Some(body);
            hook(&mut || {
                if let Some(f) = &on_start {
                    f();
                }
                (body.take().expect("thread body called twice"))();
                if let Some(f) = &on_stop {
                    f();
                }
            });
            exited();
        })
    }
}

impl fmt::Debug for ThreadSpawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadSpawner")
            .field("stack_size", &self.stack_size)
            .field("on_start", &self.on_start.is_some())
            .field("on_stop", &self.on_stop.is_some())
            .finish_non_exhaustive()
    }
}
