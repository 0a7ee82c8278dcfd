//! Mutex guards as tokio's: `map`/`try_map` on `MutexGuard`, `MappedMutexGuard`,
//! `OwnedMutexGuard` and `OwnedMappedMutexGuard`; a failed `try_map` keeps the lock, every
//! mapped guard unlocks on drop, and a map whose closure panics unlocks too.

mod lock_util;

use lock_util::Task;
use rt_sync::{MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard};
use std::sync::Arc;

#[derive(Debug)]
struct Conn {
    id: u32,
    buf: Vec<u8>,
}

fn conn() -> Conn {
    Conn {
        id: 1,
        buf: b"abc".to_vec(),
    }
}

#[test]
fn guard_map_and_try_map() {
    let m = Mutex::new(conn());
    let buf: MappedMutexGuard<'_, [u8]> =
        MutexGuard::map(m.try_lock().unwrap(), |c| &mut c.buf[..]);
    assert_eq!(&*buf, b"abc");
    assert!(m.try_lock().is_err(), "the mapped guard holds the lock");
    let mut first = MappedMutexGuard::map(buf, |b| &mut b[0]);
    *first = b'x';
    let first = match MappedMutexGuard::try_map(first, |_| None::<&mut u8>) {
        Ok(_) => panic!("mapped to nothing"),
        Err(unchanged) => unchanged,
    };
    assert!(m.try_lock().is_err(), "a failed try_map keeps the lock");
    let last = MappedMutexGuard::try_map(first, |b| Some(b)).unwrap();
    drop(last);
    let g = m.try_lock().unwrap();
    assert_eq!(g.buf, b"xbc");
    let g = match MutexGuard::try_map(g, |c| c.buf.get_mut(9)) {
        Ok(_) => panic!("no byte 9"),
        Err(g) => g,
    };
    assert_eq!(g.id, 1);
    let id = MutexGuard::try_map(g, |c| Some(&mut c.id)).unwrap();
    assert_eq!(*id, 1);
    drop(id);
    assert!(m.try_lock().is_ok());
}

#[test]
fn a_mapped_guard_wakes_the_next_waiter_on_drop() {
    let m = Mutex::new(conn());
    let id = MutexGuard::map(m.try_lock().unwrap(), |c| &mut c.id);
    let mut waiter = Task::new(m.lock());
    waiter.pending();
    drop(id);
    assert!(waiter.woken());
    drop(waiter.ready());
}

#[test]
fn owned_guard_map_and_try_map() {
    let m = Arc::new(Mutex::new(conn()));
    let g: OwnedMutexGuard<Conn> = m.clone().try_lock_owned().unwrap();
    let mut buf: OwnedMappedMutexGuard<Conn, Vec<u8>> = OwnedMutexGuard::map(g, |c| &mut c.buf);
    buf.push(b'd');
    assert!(Arc::ptr_eq(OwnedMappedMutexGuard::mutex(&buf), &m));
    assert!(m.try_lock().is_err());
    let buf = match OwnedMappedMutexGuard::try_map(buf, |b| b.get_mut(99)) {
        Ok(_) => panic!("no byte 99"),
        Err(b) => b,
    };
    let mut tail = OwnedMappedMutexGuard::map(buf, |b| &mut b[3..]);
    tail[0] = b'D';
    let tail = OwnedMappedMutexGuard::try_map(tail, |t| t.first_mut()).unwrap();
    assert_eq!(*tail, b'D');
    drop(tail);
    let g = m.clone().try_lock_owned().unwrap();
    assert_eq!(g.buf, b"abcD");
    let g = match OwnedMutexGuard::try_map(g, |c| c.buf.get_mut(99)) {
        Ok(_) => panic!("no byte 99"),
        Err(g) => g,
    };
    let id = OwnedMutexGuard::try_map(g, |c| Some(&mut c.id)).unwrap();
    assert_eq!(*id, 1);
    drop(id);
    assert!(m.try_lock().is_ok());
    assert_eq!(Arc::strong_count(&m), 1, "no mapped guard leaked its Arc");
}

#[test]
fn a_panicking_map_closure_unlocks() {
    let m = Mutex::new(conn());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = MutexGuard::map(m.try_lock().unwrap(), |_c| -> &mut u32 { panic!("boom") });
    }));
    assert!(r.is_err());
    assert!(m.try_lock().is_ok(), "the guard unlocked while unwinding");
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn mapped_guards_are_send_and_sync() {
    assert_send_sync::<MappedMutexGuard<'static, [u8]>>();
    assert_send_sync::<OwnedMappedMutexGuard<Conn, [u8]>>();
}
