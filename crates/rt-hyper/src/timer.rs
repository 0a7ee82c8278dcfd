//! [`HyperTimer`] and the sleep it hands hyper.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::rt::Sleep;

/// `hyper::rt::Timer` over rt's timers (header-read timeouts, keep-alive and HTTP/2 pings).
/// Its sleeps are rt [`Sleep`](rt::time::Sleep)s; [`reset`](hyper::rt::Timer::reset) moves
/// one's deadline in place, no new allocation. Use it inside an rt runtime.
#[derive(Debug, Clone, Copy, Default)]
pub struct HyperTimer {
    _private: (),
}

impl HyperTimer {
    /// The timer.
    pub fn new() -> HyperTimer {
        HyperTimer { _private: () }
    }
}

/// The one place a hyper deadline (a `std::time::Instant`) becomes an rt deadline
/// (`rt::time::Instant::from_std`, as tokio's timer does).
fn rt_deadline(deadline: Instant) -> rt::time::Instant {
    rt::time::Instant::from_std(deadline)
}

/// The sleep handed to hyper: an rt sleep, pinned structurally (hyper boxes it).
#[derive(Debug)]
struct HyperSleep {
    inner: rt::time::Sleep,
}

impl HyperSleep {
    fn inner(self: Pin<&mut Self>) -> Pin<&mut rt::time::Sleep> {
        // SAFETY: `inner` is pinned structurally: `HyperSleep` has no `Drop` impl, is `!Unpin`
        // (as `Sleep` is), and never moves `inner` out or hands out an unpinned `&mut` to it.
        unsafe { self.map_unchecked_mut(|s| &mut s.inner) }
    }
}

impl Future for HyperSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.inner().poll(cx)
    }
}

impl Sleep for HyperSleep {}

impl hyper::rt::Timer for HyperTimer {
    /// Now on rt's clock, which [`rt::time::pause`](rt::time::pause) and
    /// [`advance`](rt::time::advance) move (hyper's default is std's clock): hyper adds its
    /// timeouts to this, so under paused time a header-read timeout counts paused time, as
    /// with hyper-util's `TokioTimer`, instead of falling due at once after an `advance`.
    fn now(&self) -> Instant {
        rt::time::Instant::now().into_std()
    }

    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        Box::pin(HyperSleep {
            inner: rt::time::sleep(duration),
        })
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(HyperSleep {
            inner: rt::time::sleep_until(rt_deadline(deadline)),
        })
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        match sleep.as_mut().downcast_mut_pin::<HyperSleep>() {
            Some(s) => s.inner().reset(rt_deadline(new_deadline)),
            // A sleep from another timer: replace it.
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}
