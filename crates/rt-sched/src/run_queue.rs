//! `RunQueue`: the one locked FIFO of runnable tasks that the current-thread scheduler and a
//! `LocalSet` share between their driving thread and wakes from anywhere. Closing it (shutdown,
//! a dropped set) drops what is queued, and a task pushed after that is dropped at once: its
//! owned list has cancelled it (or will).

use std::collections::VecDeque;

use rt_core::sync::Mutex;

pub(crate) struct RunQueue<T> {
    /// `None` once closed.
    queue: Mutex<Option<VecDeque<T>>>,
}

impl<T> RunQueue<T> {
    pub(crate) fn with_capacity(n: usize) -> RunQueue<T> {
        RunQueue {
            queue: Mutex::new(Some(VecDeque::with_capacity(n))),
        }
    }

    /// Queues `task` at the back; returns `false` (and drops it, outside the lock) once closed.
    pub(crate) fn push(&self, task: T) -> bool {
        let mut q = self.queue.lock().unwrap();
        match q.as_mut() {
            Some(q) => {
                q.push_back(task);
                true
            }
            None => {
                drop(q);
                drop(task);
                false
            }
        }
    }

    pub(crate) fn pop(&self) -> Option<T> {
        self.queue
            .lock()
            .unwrap()
            .as_mut()
            .and_then(|q| q.pop_front())
    }

    /// Tasks queued now (a gauge for the metrics and the trace's counters; 0 once closed).
    pub(crate) fn len(&self) -> usize {
        self.queue.lock().unwrap().as_ref().map_or(0, |q| q.len())
    }

    pub(crate) fn has_work(&self) -> bool {
        self.queue
            .lock()
            .unwrap()
            .as_ref()
            .is_some_and(|q| !q.is_empty())
    }

    /// Closes the queue and drops what it held, outside the lock (a dropped task may wake
    /// another, which pushes here).
    pub(crate) fn close(&self) {
        let q = self.queue.lock().unwrap().take();
        drop(q);
    }
}
