//! `Semaphore::blocking_acquire*`, as tokio's: a plain thread parks until the permits are
//! free, and gets an error once the semaphore is closed.

use std::sync::Arc;

use rt_sync::Semaphore;

#[test]
fn blocking_acquire_waits_for_a_release_from_another_thread() {
    let sem = Arc::new(Semaphore::new(1));
    let held = sem.clone().try_acquire_owned().unwrap();
    let waiter = {
        let sem = sem.clone();
        std::thread::spawn(move || sem.blocking_acquire().map(|p| p.num_permits()))
    };
    drop(held);
    assert_eq!(waiter.join().unwrap().unwrap(), 1);
}

#[test]
fn blocking_acquire_many_and_owned_forms() {
    let sem = Arc::new(Semaphore::new(3));
    let two = sem.blocking_acquire_many(2).unwrap();
    assert_eq!(sem.available_permits(), 1);
    assert!(std::ptr::eq(two.semaphore(), &*sem));
    drop(two);
    let owned = sem.clone().blocking_acquire_owned().unwrap();
    let many = sem.clone().blocking_acquire_many_owned(2).unwrap();
    assert_eq!((owned.num_permits(), many.num_permits()), (1, 2));
    assert_eq!(sem.available_permits(), 0);
}

#[test]
fn blocking_acquire_on_a_closed_semaphore_fails() {
    let sem = Semaphore::new(0);
    sem.close();
    assert!(sem.blocking_acquire().is_err());
    assert!(sem.blocking_acquire_many(1).is_err());
}

#[test]
fn blocking_acquire_inside_a_runtime_panics_at_the_caller() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let sem = Semaphore::new(1);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { drop(sem.blocking_acquire()) })
    }))
    .unwrap_err();
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    assert!(msg.contains("Semaphore::blocking_acquire"), "{msg}");
}
