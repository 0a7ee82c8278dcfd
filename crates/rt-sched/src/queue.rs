//! The run queues behind one small API: crossbeam-deque normally, a loom-visible
//! `Mutex<VecDeque>` under `cfg(loom)` (crossbeam-deque is invisible to loom, which would report
//! false races through it), so the scheduler's own protocol is still model-checked.
//!
//! - [`Local`]: a worker's own FIFO queue; only its worker pushes and pops.
//! - [`Stealer`]: other workers take half of a `Local` at once.
//! - [`Injector`]: the global queue for spawns and wakes from outside the workers.

#[cfg(not(loom))]
mod imp {
    use crossbeam_deque::Steal;

    pub(crate) struct Local<T>(crossbeam_deque::Worker<T>);
    pub(crate) struct Stealer<T>(crossbeam_deque::Stealer<T>);
    pub(crate) struct Injector<T>(crossbeam_deque::Injector<T>);

    fn resolve<T>(mut f: impl FnMut() -> Steal<T>) -> Option<T> {
        loop {
            match f() {
                Steal::Success(t) => return Some(t),
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
    }

    impl<T> Local<T> {
        pub(crate) fn new() -> Local<T> {
            Local(crossbeam_deque::Worker::new_fifo())
        }
        #[inline]
        pub(crate) fn push(&self, t: T) {
            self.0.push(t);
        }
        #[inline]
        pub(crate) fn pop(&self) -> Option<T> {
            self.0.pop()
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
        pub(crate) fn stealer(&self) -> Stealer<T> {
            Stealer(self.0.stealer())
        }
    }

    impl<T> Stealer<T> {
        /// Moves about half of the victim's tasks into `dest` and returns one of them, with
        /// how many it took (that one included; for the metrics). `dest` is its worker's own
        /// queue, which only that worker (the caller) pushes to and pops from.
        pub(crate) fn steal_batch_and_pop(&self, dest: &Local<T>) -> Option<(T, usize)> {
            let before = dest.0.len();
            let t = resolve(|| self.0.steal_batch_and_pop(&dest.0))?;
            Some((t, 1 + dest.0.len().saturating_sub(before)))
        }
        /// Takes one task (the oldest) from the victim.
        pub(crate) fn steal(&self) -> Option<T> {
            resolve(|| self.0.steal())
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
        /// Tasks in the queue now (a gauge for the metrics).
        pub(crate) fn len(&self) -> usize {
            self.0.len()
        }
    }

    impl<T> Injector<T> {
        pub(crate) fn new() -> Injector<T> {
            Injector(crossbeam_deque::Injector::new())
        }
        pub(crate) fn push(&self, t: T) {
            self.0.push(t);
        }
        pub(crate) fn pop(&self) -> Option<T> {
            resolve(|| self.0.steal())
        }
        /// Moves a batch into `dest` and returns one task of it.
        pub(crate) fn steal_batch_and_pop(&self, dest: &Local<T>) -> Option<T> {
            resolve(|| self.0.steal_batch_and_pop(&dest.0))
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
        /// Tasks in the queue now (a gauge for the metrics and the trace's counters).
        pub(crate) fn len(&self) -> usize {
            self.0.len()
        }
    }
}

#[cfg(loom)]
mod imp {
    use rt_core::sync::{Arc, Mutex};
    use std::collections::VecDeque;

    pub(crate) struct Local<T>(Arc<Mutex<VecDeque<T>>>);
    pub(crate) struct Stealer<T>(Arc<Mutex<VecDeque<T>>>);
    pub(crate) struct Injector<T>(Mutex<VecDeque<T>>);

    impl<T> Local<T> {
        pub(crate) fn new() -> Local<T> {
            Local(Arc::new(Mutex::new(VecDeque::new())))
        }
        pub(crate) fn push(&self, t: T) {
            self.0.lock().unwrap().push_back(t);
        }
        pub(crate) fn pop(&self) -> Option<T> {
            self.0.lock().unwrap().pop_front()
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.0.lock().unwrap().is_empty()
        }
        pub(crate) fn stealer(&self) -> Stealer<T> {
            Stealer(self.0.clone())
        }
    }

    impl<T> Stealer<T> {
        pub(crate) fn steal_batch_and_pop(&self, dest: &Local<T>) -> Option<(T, usize)> {
            let mut src = self.0.lock().unwrap();
            let first = src.pop_front()?;
            let n = src.len() / 2;
            let batch: Vec<T> = src.drain(..n).collect();
            drop(src);
            let mut d = dest.0.lock().unwrap();
            d.extend(batch);
            Some((first, 1 + n))
        }
        pub(crate) fn steal(&self) -> Option<T> {
            self.0.lock().unwrap().pop_front()
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.0.lock().unwrap().is_empty()
        }
        pub(crate) fn len(&self) -> usize {
            self.0.lock().unwrap().len()
        }
    }

    impl<T> Injector<T> {
        pub(crate) fn new() -> Injector<T> {
            Injector(Mutex::new(VecDeque::new()))
        }
        pub(crate) fn push(&self, t: T) {
            self.0.lock().unwrap().push_back(t);
        }
        pub(crate) fn pop(&self) -> Option<T> {
            self.0.lock().unwrap().pop_front()
        }
        pub(crate) fn steal_batch_and_pop(&self, _dest: &Local<T>) -> Option<T> {
            self.pop()
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.0.lock().unwrap().is_empty()
        }
        pub(crate) fn len(&self) -> usize {
            self.0.lock().unwrap().len()
        }
    }
}

pub(crate) use imp::{Injector, Local, Stealer};
