//! `rt_core::timer`: `timeout` over an installed timer polls its future first and ends on the
//! timer's sleep; `sleep` returns the installed timer's sleep.

use std::future::{pending, ready, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use rt_core::test_support::block_on;
use rt_core::timer::{self, Sleep, Timer};

/// A timer whose sleeps of zero are over at once and whose others never end; counts sleeps.
struct Fake;

static SLEEPS: AtomicUsize = AtomicUsize::new(0);

impl Timer for Fake {
    fn sleep(&self, duration: Duration) -> Sleep {
        SLEEPS.fetch_add(1, Ordering::SeqCst);
        if duration.is_zero() {
            Box::pin(ready(()))
        } else {
            Box::pin(pending())
        }
    }
}

static FAKE: Fake = Fake;

/// One test: the hook is process-wide, and the counts below must not see another test's sleeps.
#[test]
fn timeout_and_sleep_go_through_the_installed_timer() {
    timer::install(&FAKE);

    // The deadline has passed: a pending future times out.
    assert_eq!(
        block_on(timer::timeout(Duration::ZERO, pending::<u8>())),
        None
    );
    // A future ready with the deadline wins: it is polled first.
    assert_eq!(block_on(timer::timeout(Duration::ZERO, ready(5))), Some(5));
    assert_eq!(
        block_on(timer::timeout(Duration::from_secs(3600), ready(6))),
        Some(6)
    );
    assert_eq!(SLEEPS.load(Ordering::SeqCst), 3);

    // A later install changes nothing.
    struct Other;
    impl Timer for Other {
        fn sleep(&self, _: Duration) -> Sleep {
            unreachable!("the first install wins")
        }
    }
    static OTHER: Other = Other;
    timer::install(&OTHER);

    let mut long = timer::sleep(Duration::from_secs(3600));
    let mut cx = Context::from_waker(std::task::Waker::noop());
    assert_eq!(Pin::new(&mut long).poll(&mut cx), Poll::Pending);
    assert_eq!(SLEEPS.load(Ordering::SeqCst), 4);
}
