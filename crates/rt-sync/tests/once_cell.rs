//! OnceCell: one initialiser runs while the others wait, a cancelled or failed initialiser lets the
//! next try, `set` errors, and ownership of the value.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::notify::Notify;
use rt_sync::once_cell::{OnceCell, SetError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn get_or_init_runs_once() {
    let cell = OnceCell::new();
    assert!(!cell.initialized());
    assert_eq!(cell.get(), None);
    assert_eq!(*block_on(cell.get_or_init(|| async { 1 })), 1);
    assert_eq!(*block_on(cell.get_or_init(|| async { 2 })), 1);
    assert!(cell.initialized());
    assert_eq!(cell.get(), Some(&1));
}

#[test]
fn concurrent_initialisers_one_runs_the_others_wait() {
    let cell = OnceCell::new();
    let gate = Notify::new();
    let runs = AtomicUsize::new(0);
    let init = |v| {
        let (gate, runs) = (&gate, &runs);
        move || async move {
            runs.fetch_add(1, Ordering::SeqCst);
            gate.notified().await;
            v
        }
    };
    let mut first = Task::new(cell.get_or_init(init(1)));
    let mut second = Task::new(cell.get_or_init(init(2)));
    first.pending();
    second.pending();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    gate.notify_one();
    assert_eq!(*first.ready(), 1);
    assert!(second.woken());
    assert_eq!(*second.ready(), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn a_cancelled_initialiser_lets_the_next_one_try() {
    let cell = OnceCell::new();
    let gate = Notify::new();
    let mut first = Task::new(cell.get_or_init(|| async {
        gate.notified().await;
        1
    }));
    let mut second = Task::new(cell.get_or_init(|| async { 2 }));
    first.pending();
    second.pending();
    drop(first);
    assert!(second.woken());
    assert_eq!(*second.ready(), 2);
}

#[test]
fn a_failed_initialiser_leaves_the_cell_empty() {
    let cell = OnceCell::new();
    let r = block_on(cell.get_or_try_init(|| async { Err::<u8, _>("nope") }));
    assert_eq!(r, Err("nope"));
    assert!(!cell.initialized());
    let r = block_on(cell.get_or_try_init(|| async { Ok::<_, ()>(5) }));
    assert_eq!(r, Ok(&5));
}

#[test]
fn set_while_initialising_and_after() {
    let cell = OnceCell::new();
    let gate = Notify::new();
    let mut init = Task::new(cell.get_or_init(|| async {
        gate.notified().await;
        1
    }));
    init.pending();
    let err = cell.set(2).unwrap_err();
    assert!(err.is_initializing_err() && !err.is_already_init_err());
    assert_eq!(err, SetError::InitializingError(2));
    gate.notify_one();
    init.ready();
    let err = cell.set(3).unwrap_err();
    assert!(err.is_already_init_err() && !err.is_initializing_err());
    assert_eq!(err, SetError::AlreadyInitializedError(3));
    let fresh = OnceCell::new();
    assert_eq!(fresh.set(4), Ok(()));
    assert_eq!(fresh.get(), Some(&4));
}

#[test]
fn take_into_inner_and_drop_own_the_value() {
    let value = Arc::new(());
    let mut cell = OnceCell::from(value.clone());
    assert_eq!(Arc::strong_count(&value), 2);
    assert!(cell.get_mut().is_some());
    let taken = cell.take().unwrap();
    assert!(!cell.initialized());
    drop(taken);
    assert_eq!(Arc::strong_count(&value), 1);
    let cell = OnceCell::new_with(Some(value.clone()));
    drop(cell);
    assert_eq!(Arc::strong_count(&value), 1);
    let cell = OnceCell::new_with(Some(value.clone()));
    assert!(cell.into_inner().is_some());
    assert_eq!(Arc::strong_count(&value), 1);
    assert_eq!(OnceCell::<u8>::new().into_inner(), None);
}

#[test]
fn threads_racing_to_initialise_see_one_value() {
    let cell = Arc::new(OnceCell::new());
    let runs = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let (cell, runs) = (cell.clone(), runs.clone());
            std::thread::spawn(move || {
                *block_on(cell.get_or_init(|| async {
                    runs.fetch_add(1, Ordering::SeqCst);
                    i
                }))
            })
        })
        .collect();
    let seen: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(seen.iter().all(|&v| v == seen[0]));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
