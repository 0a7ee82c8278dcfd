//! Stall detection on a current-thread runtime: a poll that blocks the thread inside
//! `block_on` past the threshold is reported while it still runs (task id, name, spawn
//! location, worker 0, elapsed), through `on_stall`, `metrics().stall_count()` and the trace, then
//! once more when it returns; a `LocalSet` task that blocks that thread is named as well. The
//! blocking polls wait on a channel the `on_stall` callback feeds, so the first report must
//! come while they block; the receive timeouts only turn a missing report into a failure.

mod trace_support;

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use trace_support::{temp_path, Trace};

const DEADLOCK: Duration = Duration::from_secs(60);
const THRESHOLD: Duration = Duration::from_millis(50);

/// A current-thread runtime whose stall reports go to `tx`, and to `log`.
fn runtime(
    tx: mpsc::Sender<rt::StallInfo>,
    log: Arc<Mutex<Vec<rt::StallInfo>>>,
    trace: Option<&std::path::Path>,
) -> rt::Runtime {
    let tx = Mutex::new(tx);
    let mut b = rt::Builder::new_current_thread();
    b.stall_threshold(Some(THRESHOLD))
        .on_stall(move |info: &rt::StallInfo| {
            log.lock().unwrap().push(info.clone());
            let _ = tx.lock().unwrap().send(info.clone());
        });
    if let Some(p) = trace {
        b.trace_file(p);
    }
    b.build().unwrap()
}

/// The body of a poll that blocks its thread until the stall it causes is reported.
fn block_until_reported(rx: &mpsc::Receiver<rt::StallInfo>) -> rt::StallInfo {
    let info = rx
        .recv_timeout(DEADLOCK)
        .expect("the stall was not reported while the poll ran");
    assert!(!info.ended());
    info
}

#[test]
fn a_blocking_task_is_reported_while_running_then_ended() {
    let path = temp_path("stall-ct.json");
    let (tx, rx) = mpsc::channel();
    let log = Arc::new(Mutex::new(Vec::new()));
    let rt = runtime(tx, log.clone(), Some(&path));
    let (line, id, first) = rt.block_on(async move {
        // Another task runs first and returns, then the `block_on` future itself blocks the
        // thread past the threshold: neither is a task's poll, so the first report must
        // name the task below (a stamp left naming the finished task would be reported here).
        // (Unnamed: a named task's finished poll is never reported, its record being gone.)
        rt::spawn(async {}).await.unwrap();
        std::thread::sleep(4 * THRESHOLD);
        let h = rt::task::Builder::new()
            .name("sleepy-ct")
            .spawn(async move { block_until_reported(&rx) })
            .unwrap();
        let line = line!() - 2;
        let id = h.id();
        (line, id, h.await.unwrap())
    });
    assert_eq!(first.task_id(), id.as_u64());
    assert_eq!(first.name(), Some("sleepy-ct"));
    assert_eq!(first.location().file(), file!());
    assert_eq!(first.location().line(), line);
    assert_eq!(first.worker(), 0);
    assert!(first.elapsed() >= THRESHOLD, "{:?}", first.elapsed());
    // The follow-up comes from the monitor once it sees the stamp move (the log is the
    // callback's own record).
    let end = wait_for(&log, 2);
    assert!(end[1].ended(), "{end:?}");
    assert_eq!(end[1].task_id(), id.as_u64());
    assert_eq!(end[1].name(), Some("sleepy-ct"));
    assert!(end[1].elapsed() >= first.elapsed());
    assert_eq!(rt.metrics().stall_count(), 1);
    drop(rt);
    assert_eq!(
        log.lock().unwrap().len(),
        2,
        "a stall is reported once, then ended once"
    );

    let trace = Trace::check(&path);
    let stall = trace
        .events
        .iter()
        .find(|e| e["name"] == "stall")
        .expect("no stall instant in the trace");
    assert_eq!(stall["args"]["task.id"], id.as_u64());
    assert_eq!(stall["args"]["worker"], 0);
    assert_eq!(trace.count("i", "stall ended"), 1);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_blocking_local_set_task_is_named() {
    let (tx, rx) = mpsc::channel();
    let log = Arc::new(Mutex::new(Vec::new()));
    let rt = runtime(tx, log.clone(), None);
    let local = rt::task::LocalSet::new();
    let (line, id, first) = local.block_on(&rt, async move {
        let h = rt::task::Builder::new()
            .name("sleepy-local")
            .spawn_local(async move {
                let rc = std::rc::Rc::new(()); // a `!Send` task
                let info = block_until_reported(&rx);
                drop(rc);
                info
            })
            .unwrap();
        let line = line!() - 7;
        let id = h.id();
        (line, id, h.await.unwrap())
    });
    assert_eq!(first.task_id(), id.as_u64());
    assert_eq!(first.name(), Some("sleepy-local"));
    assert_eq!(first.location().line(), line);
    assert_eq!(first.worker(), 0);
    let end = wait_for(&log, 2);
    assert!(end[1].ended());
    assert_eq!(end[1].task_id(), id.as_u64());
    assert_eq!(rt.metrics().stall_count(), 1);
}

/// Waits (generously, failing only on a hang) until the callback has logged `n` reports.
fn wait_for(log: &Mutex<Vec<rt::StallInfo>>, n: usize) -> Vec<rt::StallInfo> {
    let deadline = std::time::Instant::now() + DEADLOCK;
    loop {
        let l = log.lock().unwrap().clone();
        if l.len() >= n {
            return l;
        }
        assert!(std::time::Instant::now() < deadline, "only {l:?}");
        std::thread::yield_now();
    }
}
