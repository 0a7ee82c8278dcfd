//! `LocalSet` runs `!Send` tasks: futures holding an `Rc`, sharing a `RefCell` of state, with a
//! `!Send` output, on the thread that drives the set, on both flavours (driven inside
//! `block_on`) — and `spawn_local` and `LocalSet::spawn_local` reach the same set.

mod support;

use std::cell::RefCell;
use std::rc::Rc;
use std::thread;

use rt::task::LocalSet;
use support::{deadline, runtimes};

#[test]
fn local_tasks_share_rc_refcell_state_on_the_driving_thread() {
    deadline(|| {
        for (name, rt) in runtimes() {
            let local = LocalSet::new();
            let state = Rc::new(RefCell::new(Vec::new()));
            let here = thread::current().id();
            // Spawned before the set runs: waits in its queue.
            let early = {
                let state = state.clone();
                local.spawn_local(async move {
                    state.borrow_mut().push(usize::MAX);
                })
            };
            let total = local.block_on(&rt, {
                let state = state.clone();
                async move {
                    let handles: Vec<_> = (0..50)
                        .map(|i| {
                            let state = state.clone();
                            rt::task::spawn_local(async move {
                                assert_eq!(thread::current().id(), here);
                                for _ in 0..3 {
                                    rt::task::yield_now().await;
                                }
                                state.borrow_mut().push(i);
                                Rc::new(i) // !Send output
                            })
                        })
                        .collect();
                    let mut total = 0;
                    for h in handles {
                        total += *h.await.unwrap();
                    }
                    early.await.unwrap();
                    total
                }
            });
            assert_eq!(total, (0..50).sum::<usize>(), "{name}");
            let mut seen = state.borrow().clone();
            seen.sort_unstable();
            let mut want: Vec<usize> = (0..50).collect();
            want.push(usize::MAX);
            assert_eq!(seen, want, "{name}");
        }
    });
}

#[test]
fn run_until_can_be_awaited_inside_block_on_and_runs_alongside_rt_tasks() {
    deadline(|| {
        for (name, rt) in runtimes() {
            let local = LocalSet::new();
            let counter = Rc::new(RefCell::new(0u32));
            let c = counter.clone();
            let sent = rt.block_on(local.run_until(async move {
                // A Send task on the runtime, awaited from a local task.
                let remote = rt::spawn(async { 20 });
                let h = rt::task::spawn_local(async move {
                    *c.borrow_mut() += remote.await.unwrap();
                });
                h.await.unwrap();
                1
            }));
            assert_eq!(sent, 1, "{name}");
            assert_eq!(*counter.borrow(), 20, "{name}");
        }
    });
}
