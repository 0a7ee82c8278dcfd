//! Semaphore permits as tokio's: `merge` joins two permits of one semaphore (and refuses another
//! semaphore's), `split` moves some permits into a new one; each part releases its own on drop.

use rt_sync::Semaphore;
use std::sync::Arc;

#[test]
fn merge_and_split_borrowed_permits() {
    let sem = Semaphore::new(5);
    let mut a = sem.try_acquire_many(2).unwrap();
    let b = sem.try_acquire().unwrap();
    a.merge(b);
    assert_eq!(a.num_permits(), 3);
    assert_eq!(sem.available_permits(), 2);
    assert!(a.split(4).is_none(), "only 3 held");
    assert_eq!(a.num_permits(), 3);
    let part = a.split(1).unwrap();
    assert_eq!((a.num_permits(), part.num_permits()), (2, 1));
    drop(part);
    assert_eq!(sem.available_permits(), 3);
    let empty = a.split(0).unwrap();
    assert_eq!(empty.num_permits(), 0);
    drop(empty);
    drop(a);
    assert_eq!(sem.available_permits(), 5);
}

#[test]
fn merge_and_split_owned_permits() {
    let sem = Arc::new(Semaphore::new(4));
    let mut a = sem.clone().try_acquire_many_owned(3).unwrap();
    let b = sem.clone().try_acquire_owned().unwrap();
    a.merge(b);
    assert_eq!(sem.available_permits(), 0);
    let part = a.split(2).unwrap();
    assert!(Arc::ptr_eq(part.semaphore(), &sem));
    drop(a);
    assert_eq!(sem.available_permits(), 2);
    drop(part);
    assert_eq!(sem.available_permits(), 4);
}

#[test]
#[should_panic(expected = "different semaphore")]
fn merging_another_semaphores_permit_panics() {
    let (s1, s2) = (Semaphore::new(1), Semaphore::new(1));
    let mut a = s1.try_acquire().unwrap();
    a.merge(s2.try_acquire().unwrap());
}

#[test]
#[should_panic(expected = "different semaphore")]
fn merging_another_owned_semaphores_permit_panics() {
    let (s1, s2) = (Arc::new(Semaphore::new(1)), Arc::new(Semaphore::new(1)));
    let mut a = s1.try_acquire_owned().unwrap();
    a.merge(s2.try_acquire_owned().unwrap());
}

#[test]
fn merged_permits_may_exceed_u32() {
    // Each acquire takes at most `u32::MAX`, as tokio's; a merged permit holds more.
    let sem = Semaphore::new(6_000_000_000);
    let mut a = sem.try_acquire_many(3_000_000_000).unwrap();
    let b = sem.try_acquire_many(3_000_000_000).unwrap();
    a.merge(b);
    assert_eq!(a.num_permits(), 6_000_000_000);
    assert_eq!(sem.available_permits(), 0);
    let part = a.split(5_000_000_000).unwrap();
    assert_eq!(
        (a.num_permits(), part.num_permits()),
        (1_000_000_000, 5_000_000_000)
    );
    drop((a, part));
    assert_eq!(sem.available_permits(), 6_000_000_000);
}
