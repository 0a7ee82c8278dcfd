//! `const_new` constructors: every primitive usable in a `static`, behaving as its `new` twin.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::{Mutex, Notify, OnceCell, RwLock, Semaphore};

static MUTEX: Mutex<Vec<u32>> = Mutex::const_new(Vec::new());
static RWLOCK: RwLock<u32> = RwLock::const_new(7);
static RWLOCK_TWO_READERS: RwLock<u32> = RwLock::const_with_max_readers(3, 2);
static SEMAPHORE: Semaphore = Semaphore::const_new(2);
static NOTIFY: Notify = Notify::const_new();
static CELL: OnceCell<String> = OnceCell::const_new();
static FULL: OnceCell<u32> = OnceCell::const_new_with(42);

#[test]
fn static_mutex_locks_and_keeps_its_value() {
    block_on(async {
        MUTEX.lock().await.push(1);
        MUTEX.lock().await.push(2);
    });
    let guard = MUTEX.try_lock().unwrap();
    assert_eq!(*guard, [1, 2]);
    // Held: a second lock waits.
    assert!(MUTEX.try_lock().is_err());
    let mut waiter = Task::new(MUTEX.lock());
    waiter.pending();
    drop(guard);
    assert!(waiter.woken());
    drop(waiter.ready());
}

#[test]
fn static_rwlock_shares_reads_and_excludes_writes() {
    let r1 = RWLOCK.try_read().unwrap();
    let r2 = RWLOCK.try_read().unwrap();
    assert_eq!(*r1 + *r2, 14);
    assert!(RWLOCK.try_write().is_err());
    drop((r1, r2));
    *block_on(RWLOCK.write()) += 1;
    assert_eq!(*RWLOCK.try_read().unwrap(), 8);
}

#[test]
fn static_semaphore_starts_with_its_permits() {
    assert_eq!(SEMAPHORE.available_permits(), 2);
    let a = SEMAPHORE.try_acquire().unwrap();
    let _b = SEMAPHORE.try_acquire().unwrap();
    assert!(SEMAPHORE.try_acquire().is_err());
    let mut waiter = Task::new(SEMAPHORE.acquire());
    waiter.pending();
    drop(a);
    assert!(waiter.woken());
    drop(waiter.ready().unwrap());
}

#[test]
fn static_notify_stores_a_permit_and_wakes_waiters() {
    NOTIFY.notify_one();
    block_on(NOTIFY.notified());
    let mut waiter = Task::new(NOTIFY.notified());
    waiter.pending();
    NOTIFY.notify_waiters();
    waiter.ready();
}

#[test]
fn static_once_cells_empty_and_full() {
    assert_eq!(FULL.get(), Some(&42));
    assert!(FULL.initialized());
    // A full cell's init never runs and set fails.
    assert_eq!(*block_on(FULL.get_or_init(|| async { 0 })), 42);
    assert!(FULL.set(1).is_err());

    let v = block_on(CELL.get_or_init(|| async { "first".to_string() }));
    assert_eq!(v, "first");
    assert_eq!(
        block_on(CELL.get_or_init(|| async { "second".to_string() })),
        "first"
    );
}

#[test]
fn a_const_new_with_cell_drops_its_value() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let cell = OnceCell::const_new_with(Counted);
    assert!(cell.get().is_some());
    drop(cell);
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
    let _empty: OnceCell<Counted> = OnceCell::const_new();
}

#[test]
fn static_rwlock_with_max_readers_admits_that_many() {
    let a = RWLOCK_TWO_READERS.try_read().unwrap();
    let b = RWLOCK_TWO_READERS.try_read().unwrap();
    assert!(
        RWLOCK_TWO_READERS.try_read().is_err(),
        "a third reader waits"
    );
    assert_eq!(*a + *b, 6);
    drop(a);
    assert!(RWLOCK_TWO_READERS.try_read().is_ok());
}
