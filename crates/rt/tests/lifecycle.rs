//! A runtime's life as tokio documents it: a runtime or `LocalSet` kept in a thread-local and
//! dropped at thread exit, a panicking task's future dropped during the unwind, what a
//! `Handle::block_on` gets once its runtime shut down, misuse panics with tokio's sentences,
//! `block_in_place` where tokio allows and refuses it, and a second thread's `block_on` taking
//! over a current-thread runtime's driver.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll};
use std::time::Duration;

use rt::runtime::Handle;
use rt::task::LocalSet;
use rt::Runtime;

mod support;

use support::{deadline, panic_text, quiet_expected_panics, EXPECTED};

/// Builds a fresh runtime.
type Make = fn() -> Runtime;

/// A fresh runtime of each flavour, by name.
fn each_flavour() -> [(&'static str, Make); 2] {
    [
        ("current_thread", support::current_thread),
        ("multi_thread", || support::multi_thread(2)),
    ]
}

thread_local! {
    static RUNTIME: RefCell<Option<Runtime>> = const { RefCell::new(None) };
}

#[test]
fn a_runtime_in_a_thread_local_shuts_down_at_thread_exit() {
    for (flavour, make) in each_flavour() {
        let dropped = Arc::new(AtomicBool::new(false));
        let seen = dropped.clone();
        std::thread::spawn(move || {
            RUNTIME.with(|cell| {
                let rt = make();
                // A pending task: its future is dropped by the shutdown the thread-local's
                // destructor runs, after this thread's runtime context is gone.
                let signal = SetOnDrop(seen);
                rt.spawn(async move {
                    // Moved in: dropped with the future, polled or not.
                    let _signal = signal;
                    std::future::pending::<()>().await;
                });
                rt.block_on(rt::task::yield_now());
                *cell.borrow_mut() = Some(rt);
            });
        })
        .join()
        .unwrap_or_else(|_| panic!("{flavour}: the thread panicked at exit"));
        assert!(
            dropped.load(Ordering::SeqCst),
            "{flavour}: the pending future was not dropped"
        );
    }
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn a_local_set_and_runtime_in_a_thread_local_drop_at_thread_exit() {
    struct Both {
        rt: Runtime,
        local: LocalSet,
    }
    thread_local! {
        static BOTH: Both = Both {
            rt: support::current_thread(),
            local: LocalSet::new(),
        };
    }
    let dropped = Arc::new(AtomicBool::new(false));
    let seen = dropped.clone();
    std::thread::spawn(move || {
        BOTH.with(|both| {
            both.rt.block_on(both.local.run_until(async move {
                // Left pending in the set: dropped with it at thread exit.
                let signal = SetOnDrop(seen);
                rt::task::spawn_local(async move {
                    let _signal = signal;
                    std::future::pending::<()>().await;
                });
                rt::task::yield_now().await;
            }));
        });
    })
    .join()
    .expect("the thread panicked at exit");
    assert!(
        dropped.load(Ordering::SeqCst),
        "the local task was not dropped"
    );
}

/// Panics when polled; its destructor records whether the thread was unwinding, and may panic
/// too.
struct Boom {
    unwinding_at_drop: mpsc::Sender<bool>,
    panic_in_drop: bool,
}

impl Future for Boom {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        panic!("{EXPECTED} poll");
    }
}

impl Drop for Boom {
    fn drop(&mut self) {
        let _ = self.unwinding_at_drop.send(std::thread::panicking());
        if self.panic_in_drop {
            panic!("{EXPECTED} drop");
        }
    }
}

#[test]
fn a_panicking_task_is_dropped_during_the_unwind() {
    quiet_expected_panics();
    for (flavour, make) in each_flavour() {
        let rt = make();
        for panic_in_drop in [false, true] {
            let (tx, rx) = mpsc::channel();
            let join = rt.spawn(Boom {
                unwinding_at_drop: tx,
                panic_in_drop,
            });
            let err = rt.block_on(join).expect_err("the task panicked");
            assert!(err.is_panic(), "{flavour}: {err}");
            assert!(
                panic_text(err.into_panic().as_ref()).contains("poll"),
                "{flavour}: the poll's panic is the one reported"
            );
            assert!(rx.recv().unwrap(), "{flavour}: dropped outside the unwind");
            // A second panic, from the destructor, cost that task alone.
            assert_eq!(rt.block_on(rt.spawn(async { 7 })).unwrap(), 7, "{flavour}");
        }
    }
}

#[test]
fn handle_block_on_after_shutdown() {
    quiet_expected_panics();
    for (flavour, make) in each_flavour() {
        let rt = make();
        // The guard's borrow of `rt` ends at its last use, as with tokio's `EnterGuard`, so the
        // runtime can be shut down while the guard is still in scope.
        let _enter = rt.enter();
        let handle = Handle::current();
        // Before the shutdown the blocking pool serves `Handle::block_on`.
        let text = handle
            .block_on(rt::fs::read_to_string("Cargo.toml"))
            .unwrap();
        assert!(text.contains("[package]"), "{flavour}");
        let sleep = rt::time::sleep(Duration::from_secs(3600));
        rt.shutdown_timeout(Duration::from_secs(60));

        // A file operation's blocking job is refused: tokio's error.
        let err = handle
            .block_on(rt::fs::read_to_string("Cargo.toml"))
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::Other, "{flavour}");
        assert_eq!(
            err.get_ref().expect("an inner error").to_string(),
            "background task failed",
            "{flavour}"
        );

        // The standard streams report a shut-down runtime at the write itself.
        let err = handle
            .block_on(async {
                use rt::io::AsyncWriteExt;
                rt::io::stdout().write_all(b"x").await
            })
            .unwrap_err();
        assert!(rt::runtime::is_rt_shutdown_err(&err), "{flavour}: {err}");

        // A timer made before the shutdown, or after it, panics with tokio's sentence.
        for sleep in [sleep, rt::time::sleep(Duration::from_secs(3600))] {
            let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handle.block_on(sleep);
            }))
            .expect_err("a timer polled after its runtime shut down");
            assert!(
                panic_text(panic.as_ref())
                    .starts_with("A Tokio 1.x context was found, but it is being shutdown."),
                "{flavour}: {}",
                panic_text(panic.as_ref())
            );
        }
    }
}

#[test]
fn dropping_a_runtime_inside_block_on_panics_with_tokio_wording() {
    let outer = support::multi_thread(1);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        outer.block_on(async {
            drop(support::current_thread());
        });
    }))
    .expect_err("dropping a runtime in an async context panics");
    // A `&'static str`, as tokio's payload is.
    let text = panic
        .downcast_ref::<&'static str>()
        .expect("a &'static str payload");
    assert!(
        text.starts_with(
            "Cannot drop a runtime in a context where blocking is not allowed. This happens \
             when a runtime is dropped from within an asynchronous context."
        ),
        "{text}"
    );
}

#[test]
fn block_in_place_inside_handle_block_on_of_a_current_thread_runtime_runs() {
    let rt = support::current_thread();
    let _enter = rt.enter();
    let out = Handle::current().block_on(async {
        rt::task::block_in_place(|| {
            // Blocking is allowed in there, a nested `block_on` included.
            Handle::current().block_on(async {
                rt::task::yield_now().await;
                5
            })
        })
    });
    assert_eq!(out, 5);
}

/// Pending forever; calls `block_in_place` when dropped.
struct BlockInPlaceOnDrop;

impl Future for BlockInPlaceOnDrop {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

impl Drop for BlockInPlaceOnDrop {
    fn drop(&mut self) {
        rt::task::block_in_place(|| {});
    }
}

const REFUSED: &str = "can call blocking only when running on the multi-threaded runtime";

fn assert_refused(panic: &(dyn std::any::Any + Send), what: &str) {
    let text = panic_text(panic);
    assert!(text.contains(REFUSED), "{what}: {text}");
}

#[test]
fn block_in_place_inside_a_local_set_on_the_multi_thread_runtime_panics() {
    quiet_expected_panics();
    let rt = support::multi_thread(2);
    // Inside `run_until`: the panic reaches the caller.
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            LocalSet::new()
                .run_until(async { rt::task::block_in_place(|| {}) })
                .await
        })
    }))
    .expect_err("refused in run_until");
    assert_refused(panic.as_ref(), "run_until");

    rt.block_on(async {
        // In a `spawn_local` task: the task panics.
        let set = LocalSet::new();
        let join = set.spawn_local(async { rt::task::block_in_place(|| {}) });
        set.await;
        let err = join.await.expect_err("refused in spawn_local");
        assert_refused(err.into_panic().as_ref(), "spawn_local");

        // In the destructor of a local task's future, run by the set's drop.
        let set = LocalSet::new();
        let join = set.spawn_local(BlockInPlaceOnDrop);
        set.run_until(rt::task::yield_now()).await;
        drop(set);
        let err = join.await.expect_err("refused in the set's drop");
        assert_refused(err.into_panic().as_ref(), "LocalSet drop");
    });

    // Outside a set, on a worker, it still hands the worker over and runs.
    let out = rt.block_on(rt.spawn(async { rt::task::block_in_place(|| 3) }));
    assert_eq!(out.unwrap(), 3);
}

#[test]
fn a_second_block_on_takes_over_the_current_thread_driver() {
    deadline(|| {
        let rt = Arc::new(support::current_thread());
        let (inside_tx, inside_rx) = mpsc::channel();
        let (release_tx, release_rx) = rt::sync::oneshot::channel::<()>();
        let (returned_tx, returned_rx) = rt::sync::oneshot::channel::<()>();
        let first = {
            let rt = rt.clone();
            std::thread::spawn(move || {
                rt.block_on(async move {
                    // This thread holds the driver while it waits here.
                    inside_tx.send(()).unwrap();
                    release_rx.await.unwrap();
                });
                // Sent from outside the runtime, once this thread gave the driver back.
                returned_tx.send(()).unwrap();
            })
        };
        inside_rx.recv().unwrap();
        // The driver is taken: this `block_on` waits for its own future. Once the first
        // thread has returned, only this one can run the task and fire the timer.
        let out = rt.block_on(async move {
            release_tx.send(()).unwrap();
            returned_rx.await.unwrap();
            let task = rt::spawn(async { 11 });
            rt::time::sleep(Duration::from_millis(1)).await;
            task.await.unwrap()
        });
        first.join().unwrap();
        assert_eq!(out, 11);
    });
}
