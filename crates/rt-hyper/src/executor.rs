//! [`HyperExecutor`].

use std::future::Future;

/// `hyper::rt::Executor` for rt: runs each future hyper hands it (HTTP/2 connection and stream
/// tasks, a client connection's background task) as a detached task on the current rt runtime.
/// Use it inside an rt runtime (it calls [`rt::spawn`](rt::spawn)).
#[derive(Debug, Clone, Copy, Default)]
pub struct HyperExecutor {
    _private: (),
}

impl HyperExecutor {
    /// The executor.
    pub fn new() -> HyperExecutor {
        HyperExecutor { _private: () }
    }
}

impl<F> hyper::rt::Executor<F> for HyperExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, fut: F) {
        // Dropping the handle detaches the task.
        drop(rt::spawn(fut));
    }
}
