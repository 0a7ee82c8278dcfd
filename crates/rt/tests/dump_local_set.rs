//! `Handle::dump` lists the tasks of the `LocalSet`s driven in the runtime, with id, name,
//! spawn location and state: a local task is running only while its set polls it (on worker 0
//! for a set driven by a current-thread runtime's `block_on` thread, with no worker on a
//! multi-thread runtime, whose `block_on` thread is none of its workers); it can be dumped from
//! any thread; a dropped set's tasks are gone from the dump.

use rt::task::LocalSet;
use rt::{TaskDump, TaskState};

fn find(d: &rt::Dump, id: rt::task::Id) -> &TaskDump {
    d.iter()
        .find(|t| t.id() == id)
        .unwrap_or_else(|| panic!("task {id} missing from the dump:\n{d}"))
}

fn listed(d: &rt::Dump, id: rt::task::Id) -> bool {
    d.iter().any(|t| t.id() == id)
}

/// Spawns, on the set driven here, a named task that waits forever holding a `!Send` value,
/// and a named task that dumps the runtime from inside its own poll. Returns the waiting
/// task's id and spawn line, the dumper's id, and the dump it took.
async fn spawn_and_dump() -> (rt::task::Id, u32, rt::task::Id, rt::Dump) {
    let line = line!() + 3;
    let waiting = rt::task::Builder::new()
        .name("local-waiting")
        .spawn_local(async {
            let _rc = std::rc::Rc::new(());
            std::future::pending::<()>().await
        })
        .unwrap();
    let dumper = rt::task::Builder::new()
        .name("local-dumper")
        .spawn_local(async {
            // The waiting task has had its first poll by now.
            rt::task::yield_now().await;
            rt::Handle::current().dump()
        })
        .unwrap();
    let id = dumper.id();
    let d = dumper.await.unwrap();
    (waiting.id(), line, id, d)
}

#[test]
fn current_thread_lists_local_tasks_running_on_worker_0() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let local = LocalSet::new();
    let (waiting, line, dumper, d) = local.block_on(&rt, spawn_and_dump());
    let t = find(&d, dumper);
    assert_eq!(t.name(), Some("local-dumper"));
    assert!(
        matches!(
            t.state(),
            TaskState::Running {
                worker: Some(0),
                ..
            }
        ),
        "{d}"
    );
    let t = find(&d, waiting);
    assert_eq!(t.name(), Some("local-waiting"));
    assert_eq!(t.state(), TaskState::Idle, "{d}");
    assert!(t.lost_waker(), "`pending()` keeps no waker: {d}");
    assert_eq!(t.location().file(), file!());
    assert_eq!(t.location().line(), line);
    assert_eq!(t.polls(), Some(1));

    // Not driven now, still live: listed (idle) from outside the runtime.
    let d = rt.dump();
    assert_eq!(find(&d, waiting).state(), TaskState::Idle);
    assert!(!listed(&d, dumper), "a finished task is gone:\n{d}");
    drop(local);
    let d = rt.dump();
    assert!(!listed(&d, waiting), "a dropped set's task is gone:\n{d}");
}

#[test]
fn multi_thread_lists_local_tasks_of_its_block_on_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let local = LocalSet::new();
    let (waiting, _, dumper, d) = local.block_on(&rt, spawn_and_dump());
    let t = find(&d, dumper);
    assert!(
        matches!(t.state(), TaskState::Running { worker: None, .. }),
        "{d}"
    );
    assert_eq!(find(&d, waiting).state(), TaskState::Idle, "{d}");

    // From another thread while the set is driven (its driver waits on that thread).
    let handle = rt.handle().clone();
    let d = local.block_on(&rt, async move {
        let (tx, rx) = rt::sync::oneshot::channel();
        let t = std::thread::spawn(move || tx.send(handle.dump()).unwrap());
        let d = rx.await.unwrap();
        t.join().unwrap();
        d
    });
    assert_eq!(find(&d, waiting).state(), TaskState::Idle, "{d}");
    assert_eq!(find(&d, waiting).name(), Some("local-waiting"));
    drop(local);
    assert!(!listed(&rt.dump(), waiting));
}

#[test]
fn a_set_spawned_onto_inside_the_runtime_is_listed_before_it_runs() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let after = rt.block_on(async {
        let local = LocalSet::new();
        let h = local.spawn_local(async {});
        let d = rt::Handle::current().dump();
        assert_eq!(find(&d, h.id()).state(), TaskState::Scheduled, "{d}");
        // Driven: it runs and leaves the dump.
        local.run_until(h).await.unwrap();
        rt::Handle::current().dump()
    });
    assert!(after.is_empty(), "{after}");
}
