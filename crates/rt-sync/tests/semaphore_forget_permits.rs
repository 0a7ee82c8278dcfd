//! `Semaphore::forget_permits` removes up to `n` available permits for good and says how many;
//! held permits are untouched and come back on release.

use rt::sync::Semaphore;

#[test]
fn forget_permits_takes_what_is_available() {
    let sem = Semaphore::new(5);
    let held = sem.try_acquire_many(2).unwrap();
    assert_eq!(sem.forget_permits(2), 2);
    assert_eq!(sem.available_permits(), 1);
    assert_eq!(sem.forget_permits(10), 1, "only what is available goes");
    assert_eq!(sem.available_permits(), 0);
    assert_eq!(sem.forget_permits(1), 0);
    drop(held);
    assert_eq!(sem.available_permits(), 2, "held permits come back");
    assert_eq!(sem.forget_permits(0), 0);
    assert_eq!(sem.available_permits(), 2);
}
