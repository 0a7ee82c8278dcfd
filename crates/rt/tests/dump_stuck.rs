//! A task stuck in a poll shows as running on its worker, and `dump` returns meanwhile, called
//! from another thread and from a task of the same runtime.

use std::sync::mpsc;
use std::time::Duration;

use rt::TaskState;

fn find(d: &rt::Dump, id: rt::task::Id) -> &rt::TaskDump {
    d.iter()
        .find(|t| t.id() == id)
        .unwrap_or_else(|| panic!("task {id} missing from the dump:\n{d}"))
}

/// A task that blocks its worker until `release` is sent to; `entered` says it is in the poll.
fn stuck(rt: &rt::Runtime, name: Option<&str>) -> (rt::task::JoinHandle<()>, mpsc::Sender<()>) {
    let (entered_tx, entered_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let fut = async move {
        entered_tx.send(()).unwrap();
        release_rx.recv().unwrap();
    };
    let h = match name {
        Some(n) => rt::task::Builder::new()
            .name(n)
            .spawn_on(fut, rt.handle())
            .unwrap(),
        None => rt.spawn(fut),
    };
    entered_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the stuck task never ran");
    (h, release_tx)
}

#[test]
fn stuck_tasks_show_running_on_their_worker() {
    // No stall detection: a stuck poll that outlasts the threshold (a slow machine) would have
    // a take-over substitute run the dumping task below, off any worker, and this test is about
    // what the dump says of tasks on workers (stall take-over has its own tests).
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(3)
        .stall_threshold(None)
        .build()
        .unwrap();
    let (named, release_named) = stuck(&rt, Some("stuck"));
    let (plain, release_plain) = stuck(&rt, None);

    // From a thread outside the runtime.
    let d = rt.dump();
    let TaskState::Running {
        worker: Some(w1),
        since: Some(since),
    } = find(&d, named.id()).state()
    else {
        panic!("named stuck task not running on a worker:\n{d}");
    };
    assert!(since <= std::time::Instant::now());
    let TaskState::Running {
        worker: Some(w2),
        since: None,
    } = find(&d, plain.id()).state()
    else {
        panic!("unnamed stuck task not running on a worker:\n{d}");
    };
    assert!(w1 < 3 && w2 < 3 && w1 != w2, "{d}");
    let text = d.to_string();
    assert!(text.contains(&format!("running on worker {w1}")), "{text}");
    assert!(text.contains(&format!("running on worker {w2}")), "{text}");

    // From a task, on the third worker.
    let h = rt.spawn(async { (rt::task::id(), rt::Handle::current().dump()) });
    let (me, d) = rt.block_on(h).unwrap();
    let TaskState::Running {
        worker: Some(w3), ..
    } = find(&d, me).state()
    else {
        panic!("the dumping task is not running on a worker:\n{d}");
    };
    assert!(w3 != w1 && w3 != w2, "{d}");
    assert!(matches!(
        find(&d, named.id()).state(),
        TaskState::Running { worker: Some(w), .. } if w == w1
    ));

    release_named.send(()).unwrap();
    release_plain.send(()).unwrap();
    rt.block_on(named).unwrap();
    rt.block_on(plain).unwrap();
}

#[test]
fn current_thread_dump_from_a_task_shows_it_running() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let h = rt.spawn(async { (rt::task::id(), rt::Handle::current().dump()) });
    let (me, d) = rt.block_on(h).unwrap();
    assert_eq!(
        find(&d, me).state(),
        TaskState::Running {
            worker: Some(0),
            since: None
        }
    );
}
