//! `Handle::dump` lists every live task with its id, name, spawn location and state (idle,
//! scheduled, running), poll count and last-poll time for named tasks, and drops a task once
//! it finishes.

use std::time::{Duration, Instant};

use rt::{TaskDump, TaskState};

fn find(d: &rt::Dump, id: rt::task::Id) -> &TaskDump {
    d.iter()
        .find(|t| t.id() == id)
        .unwrap_or_else(|| panic!("task {id} missing from the dump:\n{d}"))
}

fn at(t: &TaskDump, line: u32) {
    assert_eq!(t.location().file(), file!(), "{t}");
    assert_eq!(t.location().line(), line, "{t}");
}

/// Dumps until `ok` holds (a generous deadline that only fires on failure).
fn dump_until(h: &rt::Handle, what: &str, ok: impl Fn(&rt::Dump) -> bool) -> rt::Dump {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let d = h.dump();
        if ok(&d) {
            return d;
        }
        assert!(Instant::now() < deadline, "{what}:\n{d}");
        std::thread::yield_now();
    }
}

#[test]
fn current_thread_lists_names_locations_and_states() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    assert!(rt.dump().is_empty());
    let (tx, rx) = rt::sync::oneshot::channel::<()>();
    let l_named = line!() + 3;
    let named = rt::task::Builder::new()
        .name("waiter")
        .spawn_on(
            async move {
                let _ = rx.await;
            },
            rt.handle(),
        )
        .unwrap();
    let l_plain = line!() + 1;
    let plain = rt.spawn(std::future::pending::<()>());

    // Nothing has run yet (no thread is in `block_on`): both are scheduled.
    let d = rt.dump();
    assert_eq!(d.len(), 2, "{d}");
    let t = find(&d, named.id());
    assert_eq!(t.state(), TaskState::Scheduled);
    assert_eq!(t.name(), Some("waiter"));
    at(t, l_named);
    assert_eq!(t.polls(), Some(0));
    assert_eq!(t.since_last_poll(), None);
    let t = find(&d, plain.id());
    assert_eq!(t.state(), TaskState::Scheduled);
    assert_eq!(t.name(), None);
    at(t, l_plain);
    assert_eq!(t.polls(), None, "unnamed tasks keep no statistics");

    // Run both until they wait.
    rt.block_on(async {
        for _ in 0..4 {
            rt::task::yield_now().await;
        }
    });
    let d = rt.dump();
    assert_eq!(d.len(), 2, "{d}");
    let t = find(&d, named.id());
    assert_eq!(t.state(), TaskState::Idle, "{d}");
    assert_eq!(t.polls(), Some(1));
    assert!(t.since_last_poll().is_some());
    assert_eq!(t.since_last_wake(), None, "never woken");
    assert!(!t.lost_waker(), "the oneshot holds its waker:\n{d}");
    assert_eq!(find(&d, plain.id()).state(), TaskState::Idle);

    // Woken: scheduled again, with a wake time.
    tx.send(()).unwrap();
    let d = rt.dump();
    let t = find(&d, named.id());
    assert_eq!(t.state(), TaskState::Scheduled, "{d}");
    assert!(t.since_last_wake().is_some());

    // Finished: gone from the dump, even though its JoinHandle is not joined yet.
    rt.block_on(rt::task::yield_now());
    assert!(named.is_finished());
    let d = rt.dump();
    assert_eq!(d.len(), 1, "{d}");
    assert!(d.iter().all(|t| t.id() != named.id()));
    rt.block_on(named).unwrap();
    plain.abort();
    rt.block_on(rt::task::yield_now());
    assert!(rt.dump().is_empty());
}

#[test]
fn multi_thread_lists_every_live_task() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let mut senders = Vec::new();
    let mut expect = Vec::new();
    for i in 0..50u32 {
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        senders.push(tx);
        let name = format!("t{i}");
        let line = line!() + 3;
        let h = rt::task::Builder::new()
            .name(&name)
            .spawn_on(
                async move {
                    let _ = rx.await;
                },
                rt.handle(),
            )
            .unwrap();
        expect.push((h, name, line));
    }
    let d = dump_until(rt.handle(), "all idle", |d| {
        d.len() == 50 && d.iter().all(|t| t.state() == TaskState::Idle)
    });
    for (h, name, line) in &expect {
        let t = find(&d, h.id());
        assert_eq!(t.name(), Some(name.as_str()));
        at(t, *line);
        assert_eq!(t.polls(), Some(1));
        assert!(!t.lost_waker());
    }
    drop(senders);
    for (h, _, _) in expect {
        rt.block_on(h).unwrap();
    }
    assert!(rt.dump().is_empty());
}
