//! Misuse panics name the caller's line, not a line inside rt (`#[track_caller]`), as tokio's:
//! `spawn_local` outside a `LocalSet` (and on a thread that entered a `LocalRuntime` built on
//! another), `JoinError::into_panic` on a cancellation, `task::id()` outside a task, in-memory
//! pipes of capacity 0 and a `BufStream` with no read buffer. One test, since the panic hook it
//! swaps is process-wide.

mod support;

/// Runs `f`, which must panic, and returns the file and line the panic reported.
fn panic_location(f: impl FnOnce()) -> (String, u32) {
    let (file, line, _) = support::panic_of(f);
    (file, line)
}

#[test]
fn misuse_panics_point_at_the_caller() {
    let expected = line!() + 2;
    let got = panic_location(|| {
        drop(rt::task::spawn_local(async {}));
    });
    assert_eq!(got, (file!().to_string(), expected), "spawn_local");

    let rt = support::current_thread();
    let join = rt.spawn(std::future::pending::<()>());
    join.abort();
    let err = rt.block_on(join).unwrap_err();
    let expected = line!() + 2;
    let got = panic_location(|| {
        drop(err.into_panic());
    });
    assert_eq!(got, (file!().to_string(), expected), "into_panic");

    let expected = line!() + 2;
    let got = panic_location(|| {
        rt::task::id();
    });
    assert_eq!(
        got,
        (file!().to_string(), expected),
        "task::id outside a task"
    );
    let pipe_panic = |line: u32| {
        (
            file!().to_string(),
            line,
            "`max_buf_size` must be greater than 0: a pipe that buffers no byte can pass none"
                .to_string(),
        )
    };
    let expected = line!() + 2;
    let got = support::panic_of(|| {
        drop(rt::io::duplex(0));
    });
    assert_eq!(got, pipe_panic(expected), "duplex");
    let expected = line!() + 2;
    let got = support::panic_of(|| {
        drop(rt::io::simplex(0));
    });
    assert_eq!(got, pipe_panic(expected), "simplex");
    let expected = line!() + 2;
    let got = support::panic_of(|| {
        drop(rt::io::SimplexStream::new_unsplit(0));
    });
    assert_eq!(got, pipe_panic(expected), "new_unsplit");

    let expected = line!() + 2;
    let got = panic_location(|| {
        drop(rt::io::BufStream::with_capacity(0, 1, rt::io::duplex(1).0));
    });
    assert_eq!(got, (file!().to_string(), expected), "BufStream");

    // A `LocalRuntime`'s handle entered on another thread: no local task can run there.
    let handle = std::thread::spawn(|| {
        let local = rt::runtime::LocalRuntime::new().unwrap();
        let handle = local.handle().clone();
        // The runtime goes away with this thread; the handle still names it.
        handle
    })
    .join()
    .unwrap();
    let _guard = handle.enter();
    let expected = line!() + 2;
    let got = support::panic_of(|| {
        drop(rt::task::spawn_local(async {}));
    });
    assert_eq!(
        got,
        (
            file!().to_string(),
            expected,
            "Local tasks can only be spawned on a LocalRuntime from the thread the runtime was \
             created on"
                .to_string()
        ),
        "spawn_local on another thread's LocalRuntime"
    );
}
