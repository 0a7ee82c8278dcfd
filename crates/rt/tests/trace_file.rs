//! `Builder::trace_file`: the Chrome trace a runtime writes is complete and valid after the
//! runtime is dropped or shut down with a timeout, and describes what ran: every poll of every
//! task (id, name, spawn location, poll number, `Ready`/`Pending`), a flow from each spawn and
//! wake to the poll it caused, worker and blocking-thread names, counters and the drop count.

mod trace_support;

use std::time::Duration;

use trace_support::{temp_path, Trace};

const YIELDS: u64 = 3;

#[test]
fn polls_names_locations_and_flows_match_the_tasks() {
    let path = temp_path("polls.json");
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .trace_file(&path)
        .build()
        .unwrap();
    let line = line!() + 7;
    let (named, woken) = rt.block_on(async {
        let mut named = Vec::new();
        for k in 0..16 {
            let name = format!("t-{k}");
            let h = rt::task::Builder::new()
                .name(&name)
                .spawn(async move {
                    for _ in 0..YIELDS {
                        rt::task::yield_now().await;
                    }
                    k
                })
                .unwrap();
            named.push((h.id(), name, h));
        }
        // A task woken from another thread: its first poll hands its waker out and returns
        // Pending; the block_on thread wakes it; its second poll is Ready.
        let slot = std::sync::Arc::new(std::sync::Mutex::new(None::<std::task::Waker>));
        let (stored_tx, stored_rx) = rt::sync::oneshot::channel::<()>();
        let waiter = {
            let slot = slot.clone();
            let mut stored_tx = Some(stored_tx);
            rt::spawn(std::future::poll_fn(move |cx| match stored_tx.take() {
                Some(tx) => {
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    tx.send(()).unwrap();
                    std::task::Poll::Pending
                }
                None => std::task::Poll::Ready(7),
            }))
        };
        let woken = waiter.id();
        stored_rx.await.unwrap();
        slot.lock().unwrap().take().unwrap().wake();
        let mut ids = Vec::new();
        for (id, name, h) in named {
            h.await.unwrap();
            ids.push((id, name));
        }
        assert_eq!(waiter.await.unwrap(), 7);
        let b = rt::spawn_blocking(|| 5).await.unwrap();
        assert_eq!(b, 5);
        (ids, woken)
    });
    // The park event below: with nothing left to run, a worker parks, but on a loaded machine
    // not necessarily before the drop (a worker out of work first yields its CPU once). Wait
    // for the first park (traced before it is counted), without ordering anything by time.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while (0..2).all(|w| rt.metrics().worker_park_count(w) == 0) {
        assert!(std::time::Instant::now() < deadline, "no worker parked");
        std::thread::yield_now();
    }
    drop(rt);

    let trace = Trace::check(&path);
    assert_eq!(trace.dropped(), 0);
    for (id, name) in &named {
        let polls = trace.polls(id.as_u64());
        assert_eq!(polls.len() as u64, YIELDS + 1, "{name}: {polls:?}");
        for (i, p) in polls.iter().enumerate() {
            let args = &p["args"];
            assert_eq!(args["task.name"], name.as_str());
            assert_eq!(p["name"], name.as_str());
            assert_eq!(args["poll"], i as u64 + 1);
            let loc = args["loc"].as_str().unwrap();
            assert!(
                loc.starts_with(&format!("{}:{line}:", file!())),
                "{loc} is not {}:{line}",
                file!()
            );
            let result = if i as u64 == YIELDS {
                "Ready"
            } else {
                "Pending"
            };
            assert_eq!(args["result"], result, "{p}");
            // The first poll is where the spawn's flow arrives; each later one, a wake's.
            let flows = trace.flows_into(p);
            let expect = if i == 0 { "spawn" } else { "wake" };
            assert!(
                flows.iter().any(|f| f["name"] == expect),
                "{name} poll {}: no {expect} flow in {flows:?}",
                i + 1
            );
        }
    }
    // The task woken from the block_on thread: first poll Pending, then a wake flow into its
    // Ready poll.
    let polls = trace.polls(woken.as_u64());
    assert_eq!(polls.len(), 2, "{polls:?}");
    assert_eq!(polls[1]["args"]["result"], "Ready");
    assert!(trace
        .flows_into(polls[1])
        .iter()
        .any(|f| f["name"] == "wake"));
    assert!(polls[0]["args"].get("task.name").is_none());
    assert_eq!(polls[0]["name"], format!("task {}", woken.as_u64()));

    let names = trace.thread_names();
    for w in 0..2 {
        assert!(
            names
                .iter()
                .any(|(t, n)| *t == w && n.ends_with(&format!(" {w}"))),
            "worker {w} unnamed: {names:?}"
        );
    }
    let blocking: Vec<_> = names
        .iter()
        .filter(|(_, n)| n.ends_with("(blocking)"))
        .collect();
    assert_eq!(blocking.len(), 1, "{names:?}");
    assert!(
        trace
            .events
            .iter()
            .any(|e| e["ph"] == "X" && e["cat"] == "poll" && e["tid"] == blocking[0].0),
        "no poll on the blocking thread's track"
    );
    assert!(trace.count("C", "live tasks") >= 1);
    assert!(trace.count("C", "injector depth") >= 1);
    assert!(trace.count("i", "park") >= 1);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn file_is_complete_after_shutdown_timeout_with_a_stuck_task() {
    let path = temp_path("stuck.json");
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .trace_file(&path)
        .build()
        .unwrap();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
    let stuck = rt.spawn(async move {
        started_tx.send(()).unwrap();
        // Blocks its worker until the test lets go, after the shutdown.
        let _ = release_rx.recv_timeout(Duration::from_secs(30));
    });
    let stuck_id = stuck.id();
    rt.block_on(async {
        for _ in 0..10 {
            rt::spawn(async { rt::task::yield_now().await })
                .await
                .unwrap();
        }
    });
    started_rx.recv().unwrap();
    rt.shutdown_timeout(Duration::from_millis(10));
    let trace = Trace::check(&path);
    // The stuck poll had not returned when the file was closed: it has no slice.
    assert!(trace.polls(stuck_id.as_u64()).is_empty());
    assert!(trace.count("X", "spawn") >= 1);
    release_tx.send(()).unwrap();
    let _ = std::fs::remove_file(&path);
}

#[test]
fn runtime_without_a_trace_file_writes_none() {
    // (Nothing to look at but the lack of a file: the builder's default is off, unless RT_TRACE
    // is set for the whole test run, in which case this says nothing.)
    if std::env::var_os("RT_TRACE").is_some() {
        return;
    }
    let path = temp_path("never.json");
    let _ = std::fs::remove_file(&path);
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async { rt::spawn(async {}).await.unwrap() });
    drop(rt);
    assert!(!path.exists());
}

#[test]
fn current_thread_runtime_traces_its_polls_on_the_block_on_thread() {
    let path = temp_path("current.json");
    let rt = rt::Builder::new_current_thread()
        .trace_file(&path)
        .build()
        .unwrap();
    let ids = rt.block_on(async {
        let hs: Vec<_> = (0..4)
            .map(|k| {
                rt::task::Builder::new()
                    .name(&format!("c-{k}"))
                    .spawn(async {
                        rt::task::yield_now().await;
                    })
                    .unwrap()
            })
            .collect();
        let mut ids = Vec::new();
        for h in hs {
            ids.push(h.id());
            h.await.unwrap();
        }
        ids
    });
    drop(rt);
    let trace = Trace::check(&path);
    let track = trace.polls(ids[0].as_u64())[0]["tid"].clone();
    for (k, id) in ids.iter().enumerate() {
        let polls = trace.polls(id.as_u64());
        assert_eq!(polls.len(), 2, "{polls:?}");
        assert_eq!(polls[0]["args"]["task.name"], format!("c-{k}"));
        assert_eq!(polls[0]["args"]["result"], "Pending");
        assert_eq!(polls[1]["args"]["result"], "Ready");
        assert!(
            polls.iter().all(|p| p["tid"] == track),
            "one thread runs them all"
        );
        assert!(trace
            .flows_into(polls[0])
            .iter()
            .any(|f| f["name"] == "spawn"));
        assert!(trace
            .flows_into(polls[1])
            .iter()
            .any(|f| f["name"] == "wake"));
    }
    let _ = std::fs::remove_file(&path);
}
