//! RwLock: shared readers, exclusive writers, FIFO between them (a waiting writer blocks later
//! readers), cancellation of a queued writer, no poisoning, owned guards, and threads in contention.

mod lock_util;

use lock_util::{block_on, Task};
use rt_sync::rwlock::RwLock;
use std::sync::Arc;

#[test]
fn readers_share_and_writers_exclude() {
    let lock = RwLock::new(1);
    let a = lock.try_read().unwrap();
    let b = block_on(lock.read());
    assert_eq!(*a + *b, 2);
    assert!(lock.try_write().is_err());
    drop((a, b));
    let mut w = lock.try_write().unwrap();
    *w = 7;
    assert!(lock.try_read().is_err());
    drop(w);
    assert_eq!(*lock.try_read().unwrap(), 7);
}

#[test]
fn a_waiting_writer_blocks_later_readers() {
    let lock = RwLock::new(0);
    let r1 = lock.try_read().unwrap();
    let mut writer = Task::new(async {
        *lock.write().await += 1;
    });
    writer.pending();
    // A reader arriving after the writer queues behind it, even though only readers hold the lock.
    assert!(lock.try_read().is_err());
    let mut r2 = Task::new(async { *lock.read().await });
    let mut r3 = Task::new(async { *lock.read().await });
    r2.pending();
    r3.pending();
    drop(r1);
    assert!(writer.woken());
    r2.pending();
    writer.ready();
    // Both readers queued behind the writer get in together, and see its write.
    assert!(r2.woken() && r3.woken());
    let (g2, g3) = (
        Task::new(lock.read()).ready(),
        Task::new(lock.read()).ready(),
    );
    assert_eq!((*g2, *g3), (1, 1));
    drop((g2, g3));
    assert_eq!((r2.ready(), r3.ready()), (1, 1));
}

#[test]
fn readers_wait_for_the_writer_in_fifo_order_with_writers() {
    let lock = RwLock::new(Vec::new());
    let w = lock.try_write().unwrap();
    let mut tasks = vec![
        Task::new(async { lock.read().await.len() }),
        Task::new(async {
            lock.write().await.push(1);
            0
        }),
        Task::new(async { lock.read().await.len() }),
    ];
    for t in &mut tasks {
        t.pending();
    }
    drop(w);
    // Reader 0 holds a read permit; the writer behind it waits; reader 2 waits behind the writer.
    tasks[2].pending();
    tasks[1].pending();
    assert_eq!(tasks[0].ready(), 0);
    assert_eq!(tasks[1].ready(), 0);
    assert_eq!(tasks[2].ready(), 1);
}

#[test]
fn cancelling_a_queued_writer_lets_the_readers_behind_it_in() {
    let lock = RwLock::new(());
    let r1 = lock.try_read().unwrap();
    let mut writer = Task::new(lock.write());
    writer.pending();
    let mut r2 = Task::new(lock.read());
    r2.pending();
    drop(writer);
    assert!(r2.woken());
    let g = r2.ready();
    drop((g, r1));
    assert!(lock.try_write().is_ok());
}

#[test]
fn panic_while_holding_the_write_guard_releases_the_lock() {
    let lock = Arc::new(RwLock::new(0));
    let l2 = lock.clone();
    let r = std::thread::spawn(move || {
        block_on(async {
            *l2.write().await = 1;
            let _g = l2.write().await;
            panic!("boom");
        })
    })
    .join();
    assert!(r.is_err());
    assert_eq!(*lock.try_read().unwrap(), 1);
    *lock.try_write().unwrap() = 2;
}

#[test]
fn owned_guards() {
    let lock = Arc::new(RwLock::new(String::from("a")));
    let r = block_on(lock.clone().read_owned());
    assert_eq!(&*r, "a");
    let mut writer = Task::new(lock.clone().write_owned());
    writer.pending();
    drop(r);
    let mut w = writer.ready();
    w.push('b');
    let t = std::thread::spawn(move || drop(w));
    t.join().unwrap();
    let mut lock = Arc::try_unwrap(lock).unwrap();
    lock.get_mut().push('c');
    assert_eq!(lock.into_inner(), "abc");
}

#[test]
fn threads_in_contention_see_consistent_data() {
    let lock = Arc::new(RwLock::new((0u64, 0u64)));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let lock = lock.clone();
            std::thread::spawn(move || {
                for i in 0..2_000 {
                    if (i + t) % 10 == 0 {
                        let mut g = block_on(lock.write());
                        g.0 += 1;
                        g.1 += 1;
                    } else {
                        let g = block_on(lock.read());
                        assert_eq!(g.0, g.1, "a reader saw a half-done write");
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(*block_on(lock.read()), (800, 800));
}
