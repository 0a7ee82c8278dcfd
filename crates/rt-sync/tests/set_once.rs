//! `SetOnce`, as tokio's: one `set` wins, `wait` returns the value (waking tasks that waited
//! before it was set), and the value is dropped with the cell.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rt_core::test_support::block_on;
use rt_sync::{SetOnce, SetOnceError};

#[test]
fn set_once_then_error() {
    let cell = SetOnce::new();
    assert!(!cell.initialized());
    assert_eq!(cell.get(), None);
    cell.set(1).unwrap();
    assert_eq!(cell.set(2), Err(SetOnceError(2)));
    assert_eq!(cell.get(), Some(&1));
    assert_eq!(cell.into_inner(), Some(1));
}

#[test]
fn wait_returns_at_once_when_set() {
    let cell = SetOnce::new_with(Some("x"));
    assert_eq!(*block_on(cell.wait()), "x");
}

#[test]
fn waiters_wake_when_another_thread_sets() {
    let cell = Arc::new(SetOnce::new());
    let waiters: Vec<_> = (0..3)
        .map(|_| {
            let cell = cell.clone();
            std::thread::spawn(move || *block_on(cell.wait()))
        })
        .collect();
    cell.set(42).unwrap();
    for w in waiters {
        assert_eq!(w.join().unwrap(), 42);
    }
}

#[test]
fn the_value_drops_with_the_cell() {
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let cell = SetOnce::new();
    assert!(cell.set(Counted(drops.clone())).is_ok());
    let refused = cell.set(Counted(drops.clone()));
    drop(refused);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the refused value came back and dropped"
    );
    drop(cell);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

#[test]
fn const_new_in_a_static() {
    static CELL: SetOnce<u32> = SetOnce::const_new();
    static FULL: SetOnce<u32> = SetOnce::const_new_with(9);
    assert_eq!(FULL.get(), Some(&9));
    CELL.set(3).unwrap();
    assert_eq!(*block_on(CELL.wait()), 3);
}

#[test]
fn from_default_clone_and_eq() {
    let a: SetOnce<u32> = SetOnce::from(4);
    let b = a.clone();
    assert_eq!(a, b);
    assert_ne!(a, SetOnce::default());
}
