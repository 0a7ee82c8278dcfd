//! Spawning never polls inline: a chain of 100,000 tasks, each spawning the next, runs on threads
//! with the default stack without overflowing it, both when each link returns at once and when
//! each awaits the next (so 100,000 completions wake their parents one after another).

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll};

use rt::task::JoinHandle;
use support::deadline;

const DEPTH: usize = 100_000;

/// Spawns the next link and returns; the last one reports the thread it ran on.
struct Link {
    left: usize,
    done: mpsc::Sender<std::thread::ThreadId>,
}

impl Future for Link {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.left == 0 {
            self.done.send(std::thread::current().id()).unwrap();
        } else {
            drop(rt::spawn(Link {
                left: self.left - 1,
                done: self.done.clone(),
            }));
        }
        Poll::Ready(())
    }
}

/// Spawns the next link and awaits it: returns how many links are below it.
struct JoinLink {
    left: usize,
    child: Option<JoinHandle<usize>>,
}

impl Future for JoinLink {
    type Output = usize;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        if self.left == 0 {
            return Poll::Ready(0);
        }
        let left = self.left;
        let child = self.child.get_or_insert_with(|| {
            rt::spawn(JoinLink {
                left: left - 1,
                child: None,
            })
        });
        Pin::new(child).poll(cx).map(|r| r.unwrap() + 1)
    }
}

#[test]
fn a_deep_spawn_chain_multi_thread() {
    deadline(|| {
        // Worker threads get the default stack: no `thread_stack_size`.
        let rt = support::multi_thread(1);
        let (tx, rx) = mpsc::channel();
        drop(rt.spawn(Link {
            left: DEPTH,
            done: tx,
        }));
        let last = rx.recv().expect("the last link ran");
        assert_ne!(
            last,
            std::thread::current().id(),
            "the chain ran on the worker"
        );
    });
}

#[test]
fn a_deep_spawn_chain_current_thread() {
    // `deadline` runs the body on a fresh thread with the default stack.
    deadline(|| {
        let rt = support::current_thread();
        let (tx, rx) = mpsc::channel();
        let here = std::thread::current().id();
        drop(rt.spawn(Link {
            left: DEPTH,
            done: tx,
        }));
        let last = rt.block_on(async {
            loop {
                match rx.try_recv() {
                    Ok(id) => break id,
                    Err(_) => rt::task::yield_now().await,
                }
            }
        });
        assert_eq!(last, here);
    });
}

#[test]
fn a_deep_join_chain() {
    for flavor in ["multi_thread", "current_thread"] {
        deadline(move || {
            let rt = match flavor {
                "multi_thread" => support::multi_thread(2),
                _ => support::current_thread(),
            };
            let root = rt.spawn(JoinLink {
                left: DEPTH,
                child: None,
            });
            assert_eq!(rt.block_on(root).unwrap(), DEPTH, "{flavor}");
        });
    }
}
