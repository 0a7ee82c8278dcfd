//! The synchronous `resume`: polls the body, and while it awaits something that is not ready,
//! blocks the thread on it (`rt_core::block`: polls with a waker that unparks this thread, and
//! parks until woken).

use std::task::{Context, Poll, Waker};

use super::frame::Raw;
use super::{ResumeError, Resumed};

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
    // Poll again with one that unparks this thread (`rt_core::block`, this thread's cached
    // waker: no allocation per resume): a future registers the waker of its latest poll (that
    // is the `Future` contract), so from here on a wake-up reaches us.
    rt_core::block::poll_until_ready(|cx| {
        let out = raw.poll_resume(&mut arg, cx);
        if out.is_pending() && crate::context::is_driving() {
            panic!(
                "{method}: the coroutine's body is awaiting something that is not ready (not \
                 a yield_), and this thread drives an rt runtime, which blocking would stall; \
                 use `resume_async(arg).await` instead"
            );
        }
        out
    })
}
