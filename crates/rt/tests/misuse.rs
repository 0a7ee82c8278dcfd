//! Using the runtime where it cannot work fails loudly, with a message that says what to do instead.
//!
//! The expected texts are the facade's own panic messages (`crates/rt/src/lib.rs`, `handle.rs` and
//! `context.rs`); `should_panic(expected = ..)` matches a substring, so each test names the part that tells
//! the user what went wrong and how to fix it.

use rt::{Builder, Runtime};

/// The message `Runtime::block_on` panics with on a thread that already drives tasks.
const BLOCK_ON_IN_RUNTIME: &str = "Cannot start a runtime from within a runtime. This happens \
                                   because a function (like `block_on`) attempted to block the \
                                   current thread while the thread is being used to drive \
                                   asynchronous tasks. If you are in an async function, use \
                                   `.await` on the future instead of blocking on it. \
                                   (Runtime::block_on was called on a thread that drives rt \
                                   tasks: a worker, or a thread already in block_on. Use \
                                   `.await` instead, or run blocking code with \
                                   rt::spawn_blocking.)";

fn current_thread() -> Runtime {
    Builder::new_current_thread()
        .build()
        .expect("failed to build a current_thread runtime")
}

fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .expect("failed to build a multi_thread runtime")
}

/// The text of a panic payload, which is a `&str` or a `String` for `panic!` with a message.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .expect("the panic carries a message")
}

#[test]
#[should_panic(
    expected = "rt::spawn called outside of an rt runtime: call it from a task, inside \
                Runtime::block_on or #[rt::main], or spawn through a Handle \
                (Runtime::handle().spawn(..)) from other threads"
)]
fn spawn_outside_a_runtime_panics() {
    let _task = rt::spawn(async {});
}

#[test]
fn spawn_after_the_runtime_is_gone_panics() {
    let runtime = current_thread();
    // Inside the runtime spawning works...
    let value = runtime.block_on(async { rt::spawn(async { 1 }).await.unwrap() });
    assert_eq!(value, 1);
    drop(runtime);
    // ...and once it is gone the thread is outside any runtime again.
    let panic = std::panic::catch_unwind(|| {
        let _task = rt::spawn(async {});
    })
    .expect_err("rt::spawn without a runtime must panic");
    let text = panic_text(panic.as_ref());
    assert!(
        text.starts_with("rt::spawn called outside of an rt runtime"),
        "{text}"
    );
}

#[test]
#[should_panic(
    expected = "rt::Handle::current() called outside of an rt runtime: call it from a task \
                (rt::spawn), inside Runtime::block_on or #[rt::main], or pass a Handle \
                (Runtime::handle) to this thread"
)]
fn handle_current_outside_a_runtime_panics() {
    let _handle = rt::Handle::current();
}

#[test]
fn block_on_inside_a_worker_fails_the_task() {
    let runtime = multi_thread(2);
    let other = current_thread();
    let task = runtime.spawn(async move { other.block_on(async { 1 }) });
    let err = runtime
        .block_on(task)
        .expect_err("block_on on a worker must not return");
    assert!(err.is_panic(), "expected a panic, got {err}");
    assert_eq!(panic_text(err.into_panic().as_ref()), BLOCK_ON_IN_RUNTIME);
    // The worker survived the panic and still runs tasks.
    assert_eq!(runtime.block_on(runtime.spawn(async { 2 })).unwrap(), 2);
}

#[test]
fn block_on_a_fresh_runtime_inside_a_worker_fails_the_task() {
    let runtime = multi_thread(1);
    let task = runtime.spawn(async { Runtime::new().unwrap().block_on(async { 1 }) });
    let err = runtime
        .block_on(task)
        .expect_err("block_on on a worker must not return");
    assert!(err.is_panic(), "expected a panic, got {err}");
    assert_eq!(panic_text(err.into_panic().as_ref()), BLOCK_ON_IN_RUNTIME);
}

#[test]
#[should_panic(expected = "Runtime::block_on was called on a thread that drives rt tasks")]
fn nested_block_on_panics() {
    let outer = current_thread();
    let inner = current_thread();
    outer.block_on(async { inner.block_on(async {}) });
}

/// `#[rt::main]` on a helper makes a blocking function, which must not be called from async code.
#[rt::main(flavor = "current_thread")]
async fn blocking_helper() -> u32 {
    1
}

#[rt::test]
#[should_panic(expected = "Runtime::block_on was called on a thread that drives rt tasks")]
async fn calling_an_rt_main_function_from_a_test_panics() {
    blocking_helper();
}

#[test]
fn an_rt_main_function_works_outside_a_runtime() {
    assert_eq!(blocking_helper(), 1);
}
