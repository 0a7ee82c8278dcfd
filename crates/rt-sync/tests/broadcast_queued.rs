//! broadcast values belong to the receivers that have yet to read them, as in tokio:
//! `Sender::len` counts those values, the ring lets go of a value once its last reader has its
//! clone, and a dropped receiver gives up its claim on what it did not read.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rt_sync::broadcast;

/// Counts its drops.
#[derive(Clone)]
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn len_counts_values_some_receiver_has_yet_to_read() {
    let (tx, mut rx1) = broadcast::channel::<u32>(4);
    let mut rx2 = tx.subscribe();
    assert!(tx.is_empty());
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(tx.len(), 2);
    assert_eq!(rx1.try_recv(), Ok(1));
    assert_eq!(tx.len(), 2, "rx2 has read neither");
    assert_eq!(rx2.try_recv(), Ok(1));
    assert_eq!(tx.len(), 1);
    drop(rx2);
    assert_eq!(tx.len(), 1, "rx1 has yet to read 2");
    assert_eq!(rx1.try_recv(), Ok(2));
    assert!(tx.is_empty());
}

#[test]
fn overwritten_values_leave_the_count() {
    // A capacity of 3 keeps 4 values: rounded up to a power of two, as tokio's.
    let (tx, _rx) = broadcast::channel::<u32>(3);
    for i in 0..6 {
        tx.send(i).unwrap();
    }
    assert_eq!(tx.len(), 4);
}

#[test]
fn a_value_is_dropped_once_its_last_receiver_reads_it() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, mut rx1) = broadcast::channel(4);
    let mut rx2 = tx.subscribe();
    tx.send(Counted(drops.clone())).unwrap();
    drop(rx1.try_recv().unwrap());
    assert_eq!(drops.load(Ordering::SeqCst), 1, "rx1's clone");
    let last = rx2.try_recv().unwrap();
    assert_eq!(
        drops.load(Ordering::SeqCst),
        2,
        "the ring let go of its copy"
    );
    drop(last);
    assert_eq!(drops.load(Ordering::SeqCst), 3);
}

#[test]
fn values_go_when_the_last_receiver_is_dropped() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = broadcast::channel(4);
    tx.send(Counted(drops.clone())).unwrap();
    tx.send(Counted(drops.clone())).unwrap();
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(rx);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert!(tx.is_empty());
}

#[test]
fn a_panicking_clone_skips_the_value_for_that_receiver() {
    struct PanicsOnClone(u32);
    impl Clone for PanicsOnClone {
        fn clone(&self) -> Self {
            if self.0 == 1 {
                panic!("clone of 1");
            }
            PanicsOnClone(self.0)
        }
    }
    let (tx, mut rx1) = broadcast::channel(4);
    let _rx2 = tx.subscribe();
    tx.send(PanicsOnClone(1)).unwrap();
    tx.send(PanicsOnClone(2)).unwrap();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rx1.try_recv()));
    assert!(panicked.is_err());
    // The value that panicked is not retried: the receiver moves on.
    assert_eq!(rx1.try_recv().ok().map(|v| v.0), Some(2));
}
