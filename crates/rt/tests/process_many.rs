//! 100 children waited on at once and reaped, with no thread per child: the process's thread
//! count (`/proc/self/task`) is the same while all 100 waits are pending as before them.

mod support;

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::process::Stdio;
use std::task::Poll;

use rt::io::AsyncWriteExt;
use rt::process::Command;

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn a_hundred_children_reaped_without_a_thread_each() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let before = threads();
            let mut children = Vec::new();
            let mut stdins = Vec::new();
            for _ in 0..100 {
                // Each child waits for one byte on stdin, then exits.
                let mut c = Command::new("head")
                    .args(["-c", "1"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap();
                stdins.push(c.stdin.take().unwrap());
                children.push(c);
            }
            let mut waits: Vec<
                Pin<Box<dyn Future<Output = std::io::Result<std::process::ExitStatus>> + '_>>,
            > = children
                .iter_mut()
                .map(|c| {
                    Box::pin(c.wait())
                        as Pin<
                            Box<
                                dyn Future<Output = std::io::Result<std::process::ExitStatus>> + '_,
                            >,
                        >
                })
                .collect();
            // Poll every wait once: each is now registered and pending (its child waits on us).
            poll_fn(|cx| {
                for w in &mut waits {
                    assert!(w.as_mut().poll(cx).is_pending());
                }
                Poll::Ready(())
            })
            .await;
            assert_eq!(
                threads(),
                before,
                "{name}: waiting on 100 children added threads"
            );
            for mut s in stdins {
                s.write_all(b"x").await.unwrap();
            }
            for w in waits {
                assert!(w.await.unwrap().success(), "{name}");
            }
            assert!(children.iter().all(|c| c.id().is_none()), "all reaped");
            assert_eq!(threads(), before, "{name}");
        });
    }
}
