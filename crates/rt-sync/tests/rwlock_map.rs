//! RwLock guards as tokio's: `map`/`try_map` on every guard, `downgrade` (a queued writer cannot
//! slip in, queued readers get in), `downgrade_map`, `into_mapped`, the owned twins,
//! `try_read_owned`/`try_write_owned`, and `with_max_readers`. Every guard releases exactly its
//! permits on drop, checked by taking the write lock afterwards.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
use std::sync::Arc;

#[derive(Debug, Default)]
struct Pair {
    name: String,
    items: Vec<u32>,
}

fn pair() -> Pair {
    Pair {
        name: "a".into(),
        items: vec![1, 2, 3],
    }
}

#[test]
fn read_guard_map_and_try_map() {
    let lock = RwLock::new(pair());
    let name: RwLockReadGuard<'_, str> =
        RwLockReadGuard::map(lock.try_read().unwrap(), |p| &*p.name);
    assert_eq!(&*name, "a");
    // Still held for reading: writers wait, readers share.
    assert!(lock.try_write().is_err());
    assert_eq!(lock.try_read().unwrap().items.len(), 3);
    let name = match RwLockReadGuard::try_map(name, |s| s.strip_prefix('x')) {
        Ok(_) => panic!("no 'x' prefix"),
        Err(unchanged) => unchanged,
    };
    let items = RwLockReadGuard::try_map(lock.try_read().unwrap(), |p| p.items.get(1)).unwrap();
    assert_eq!(*items, 2);
    drop((name, items));
    assert!(lock.try_write().is_ok(), "every read permit came back");
}

#[test]
fn write_guard_map_writes_through_and_releases_everything() {
    let lock = RwLock::new(pair());
    let mut items: RwLockMappedWriteGuard<'_, Vec<u32>> =
        RwLockWriteGuard::map(lock.try_write().unwrap(), |p| &mut p.items);
    items.push(4);
    assert!(
        lock.try_read().is_err(),
        "a mapped write guard excludes readers"
    );
    let mut last = RwLockMappedWriteGuard::map(items, |v| v.last_mut().unwrap());
    *last = 40;
    let last = match RwLockMappedWriteGuard::try_map(last, |_| None::<&mut u8>) {
        Ok(_) => panic!("mapped to nothing"),
        Err(unchanged) => unchanged,
    };
    drop(last);
    assert_eq!(lock.try_read().unwrap().items, [1, 2, 3, 40]);
    let whole = RwLockWriteGuard::into_mapped(lock.try_write().unwrap());
    assert_eq!(whole.name, "a");
    drop(whole);
    let failed = RwLockWriteGuard::try_map(lock.try_write().unwrap(), |p| p.items.get_mut(9));
    drop(failed.expect_err("no item 9"));
    assert!(lock.try_write().is_ok());
}

#[test]
fn downgrade_lets_queued_readers_in_but_not_a_queued_writer() {
    let lock = RwLock::new(0);
    let mut w = lock.try_write().unwrap();
    *w = 5;
    let mut writer = Task::new(async {
        *lock.write().await += 1;
    });
    writer.pending();
    let read = w.downgrade();
    assert_eq!(*read, 5);
    // The queued writer still waits: the downgraded guard keeps one permit.
    assert!(!writer.woken());
    writer.pending();
    // A reader can't jump the queued writer (FIFO), as in tokio.
    assert!(lock.try_read().is_err());
    drop(read);
    assert!(writer.woken());
    writer.ready();
    assert_eq!(*lock.try_read().unwrap(), 6);
}

#[test]
fn downgrade_wakes_readers_queued_behind_the_writer() {
    let lock = RwLock::new(1);
    let w = lock.try_write().unwrap();
    let mut r1 = Task::new(lock.read());
    let mut r2 = Task::new(lock.read());
    r1.pending();
    r2.pending();
    let read = w.downgrade();
    assert!(r1.woken() && r2.woken());
    let (a, b) = (r1.ready(), r2.ready());
    assert_eq!(*a + *b + *read, 3);
    drop((a, b, read));
    assert!(lock.try_write().is_ok());
}

#[test]
fn downgrade_map_and_try_downgrade_map() {
    let lock = RwLock::new(pair());
    let name = RwLockWriteGuard::downgrade_map(lock.try_write().unwrap(), |p| &p.name);
    assert_eq!(*name, "a");
    assert!(lock.try_read().is_ok(), "downgraded: readers share");
    assert!(lock.try_write().is_err());
    drop(name);
    let w = match RwLockWriteGuard::try_downgrade_map(lock.try_write().unwrap(), |p| p.items.get(7))
    {
        Ok(_) => panic!("no item 7"),
        Err(w) => w,
    };
    assert!(
        lock.try_read().is_err(),
        "the failed map kept the write lock"
    );
    let first = RwLockWriteGuard::try_downgrade_map(w, |p| p.items.first()).unwrap();
    assert_eq!(*first, 1);
    drop(first);
    assert!(lock.try_write().is_ok());
}

#[test]
fn owned_guards_map_downgrade_and_try_owned() {
    let lock = Arc::new(RwLock::new(pair()));
    let w: OwnedRwLockWriteGuard<Pair> = lock.clone().try_write_owned().unwrap();
    assert!(lock.clone().try_read_owned().is_err());
    assert!(Arc::ptr_eq(OwnedRwLockWriteGuard::rwlock(&w), &lock));
    let mut items: OwnedRwLockMappedWriteGuard<Pair, Vec<u32>> =
        OwnedRwLockWriteGuard::map(w, |p| &mut p.items);
    items.push(4);
    let mut first = OwnedRwLockMappedWriteGuard::map(items, |v| &mut v[0]);
    *first = 10;
    drop(first);
    let w = block_on(lock.clone().write_owned());
    let read: OwnedRwLockReadGuard<Pair> = w.downgrade();
    assert_eq!(read.items, [10, 2, 3, 4]);
    let other = lock.clone().try_read_owned().unwrap();
    let len = OwnedRwLockReadGuard::map(other, |p| &p.items[..]);
    assert_eq!(len.len(), 4);
    assert!(OwnedRwLockReadGuard::try_map(len, |s| s.get(99)).is_err());
    drop(read);
    let name =
        OwnedRwLockWriteGuard::downgrade_map(lock.clone().try_write_owned().unwrap(), |p| &p.name);
    assert_eq!(&**name, "a");
    drop(name);
    assert!(OwnedRwLockWriteGuard::try_downgrade_map(
        lock.clone().try_write_owned().unwrap(),
        |p| p.items.get(99)
    )
    .is_err());
    let whole = OwnedRwLockWriteGuard::into_mapped(lock.clone().try_write_owned().unwrap());
    assert!(OwnedRwLockMappedWriteGuard::try_map(whole, |p| p.items.get_mut(99)).is_err());
    // Every permit came back, and the guards hold no stray clone of the Arc.
    assert!(lock.try_write().is_ok());
    assert_eq!(Arc::strong_count(&lock), 1);
}

#[test]
fn with_max_readers_caps_concurrent_readers() {
    let lock = RwLock::with_max_readers(0, 2);
    let a = lock.try_read().unwrap();
    let b = lock.try_read().unwrap();
    assert!(lock.try_read().is_err(), "a third reader exceeds the cap");
    drop((a, b));
    // A writer takes all 2 and gives all 2 back, also through downgrade.
    let w = lock.try_write().unwrap();
    assert!(lock.try_read().is_err());
    let r = w.downgrade();
    let r2 = lock.try_read().unwrap();
    assert!(lock.try_read().is_err());
    drop((r, r2));
    let lock = Arc::new(lock);
    let r = lock.clone().try_write_owned().unwrap().downgrade();
    assert!(lock.clone().try_read_owned().is_ok());
    drop(r);
    assert!(lock.try_write().is_ok());
}

#[test]
#[should_panic(expected = "readers")]
fn with_max_readers_rejects_zero() {
    let _ = RwLock::with_max_readers((), 0);
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn guards_are_send_and_sync_for_send_sync_data() {
    assert_send_sync::<RwLockReadGuard<'static, Pair>>();
    assert_send_sync::<RwLockWriteGuard<'static, Pair>>();
    assert_send_sync::<RwLockMappedWriteGuard<'static, str>>();
    assert_send_sync::<OwnedRwLockReadGuard<Pair, str>>();
    assert_send_sync::<OwnedRwLockWriteGuard<Pair>>();
    assert_send_sync::<OwnedRwLockMappedWriteGuard<Pair, [u32]>>();
}
