//! The synchronous `resume`: polls the body, and while it awaits something that is not ready,
//! polls it again with a waker that unparks this thread and parks until woken.

use std::task::{Context, Poll, Wake, Waker};

use rt_core::sync::{thread, Arc};

use super::frame::Raw;
use super::{ResumeError, Resumed};

/// Wakes a thread parked in [`resume`].
struct Unpark(thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

fn park_waker() -> Waker {
    Waker::from(Arc::new(Unpark(thread::current())))
}

rt_core::sync::thread_local! {
    /// This thread's unparking waker, made once per thread so a resume allocates nothing.
    static PARK_WAKER: Waker = park_waker();
}

/// Runs one resume to its end on this thread: polls, and while the body is not at a yield and
/// not finished, parks until woken.
///
/// # Panics
/// On a thread that drives an rt runtime, when the body awaits something that is not ready.
#[track_caller]
pub(super) fn resume<Y, R, T, K>(
    raw: &mut Raw<Y, R, T, K>,
    arg: R,
    method: &str,
) -> Result<Resumed<Y, T>, ResumeError> {
    let mut arg = Some(arg);
    // Fast path: a body that yields (or returns) never looks at the waker, so the first poll
    // takes a no-op one and touches no thread-local for it.
    let mut cx = Context::from_waker(Waker::noop());
    if let Poll::Ready(out) = raw.poll_resume(&mut arg, &mut cx) {
        return out;
    }
    // The body awaits something that is not ready, and has registered the no-op waker with it.
    // Poll again with one that unparks this thread: a future registers the waker of its latest
    // poll (that is the `Future` contract), so from here on a wake-up reaches us.
    let mut run = |waker: &Waker| {
        let mut cx = Context::from_waker(waker);
        loop {
            if let Poll::Ready(out) = raw.poll_resume(&mut arg, &mut cx) {
                return out;
            }
            if crate::context::is_driving() {
                panic!(
                    "{method}: the coroutine's body is awaiting something that is not ready (not \
                     a yield_), and this thread drives an rt runtime, which blocking would stall; \
                     use `resume_async(arg).await` instead"
                );
            }
            thread::park();
        }
    };
    // Borrowed, not cloned: no reference-count traffic per resume.
    match PARK_WAKER.try_with(|w| run(w)) {
        Ok(out) => out,
        // This thread's locals are being destroyed: a waker of its own.
        Err(_) => run(&park_waker()),
    }
}
