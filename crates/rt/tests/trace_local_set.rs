//! `LocalSet` tasks in the trace file: each poll is a slice on the track of the thread that
//! drives the set (with its task id, name, spawn location, poll number and result), with a flow
//! from the spawn to the first poll and from each wake to the poll it causes, on both runtime
//! flavours; a set driven inside a local task's poll draws its polls nested in that poll's
//! slice, and the file stays valid (per-track timestamps never go back).

mod trace_support;

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll, Waker};

use rt::task::LocalSet;
use trace_support::{temp_path, Trace};

const YIELDS: u64 = 2;

fn runtime(multi: bool, path: &std::path::Path) -> rt::Runtime {
    let mut b = if multi {
        let mut b = rt::Builder::new_multi_thread();
        b.worker_threads(2);
        b
    } else {
        rt::Builder::new_current_thread()
    };
    b.trace_file(path).build().unwrap()
}

/// Pending until woken once: sends its waker to `out` at the first poll.
struct WakeFromElsewhere {
    out: Option<mpsc::Sender<Waker>>,
}

impl Future for WakeFromElsewhere {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.out.take() {
            Some(out) => {
                out.send(cx.waker().clone()).unwrap();
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
    }
}

fn polls_spawns_and_wakes(multi: bool) {
    let path = temp_path(if multi {
        "local-mt.json"
    } else {
        "local-ct.json"
    });
    let rt = runtime(multi, &path);
    let local = LocalSet::new();
    let line = line!() + 7;
    let (named, woken) = local.block_on(&rt, async {
        let hs: Vec<_> = (0..4)
            .map(|k| {
                let name = format!("local-{k}");
                let h = rt::task::Builder::new()
                    .name(&name)
                    .spawn_local(async move {
                        // A `!Send` value held across the yields: a local task for sure.
                        let rc = std::rc::Rc::new(k);
                        for _ in 0..YIELDS {
                            rt::task::yield_now().await;
                        }
                        *rc
                    })
                    .unwrap();
                (name, h)
            })
            .collect();
        // Woken from a plain thread once its first poll has returned (else the wake would
        // only mark it, and the set's thread would schedule it after that poll): a wake
        // recorded on that thread's track.
        let (tx, rx) = mpsc::channel::<Waker>();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let waker_thread = std::thread::spawn(move || {
            let w = rx.recv().unwrap();
            go_rx.recv().unwrap();
            w.wake();
        });
        let waiter = rt::task::spawn_local(WakeFromElsewhere { out: Some(tx) });
        let woken = waiter.id();
        // The set polls this future, then its queued tasks: past this yield, the waiter's
        // first poll is over.
        rt::task::yield_now().await;
        go_tx.send(()).unwrap();
        waiter.await.unwrap();
        waker_thread.join().unwrap();
        let mut named = Vec::new();
        for (k, (name, h)) in hs.into_iter().enumerate() {
            named.push((h.id(), name));
            assert_eq!(h.await.unwrap(), k);
        }
        (named, woken)
    });
    drop(local);
    drop(rt);

    let trace = Trace::check(&path);
    assert_eq!(trace.dropped(), 0);
    let track = trace.polls(named[0].0.as_u64())[0]["tid"].clone();
    for (id, name) in &named {
        let polls = trace.polls(id.as_u64());
        assert_eq!(polls.len() as u64, YIELDS + 1, "{name}: {polls:?}");
        for (i, p) in polls.iter().enumerate() {
            assert_eq!(p["tid"], track, "one thread runs the set: {p}");
            let args = &p["args"];
            assert_eq!(args["task.name"], name.as_str());
            assert_eq!(args["task.id"], id.as_u64());
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
            let expect = if i == 0 { "spawn" } else { "wake" };
            assert!(
                trace.flows_into(p).iter().any(|f| f["name"] == expect),
                "{name} poll {}: no {expect} flow",
                i + 1
            );
        }
    }
    let polls = trace.polls(woken.as_u64());
    assert_eq!(polls.len(), 2, "{polls:?}");
    assert_eq!(polls[1]["args"]["result"], "Ready");
    assert_eq!(polls[1]["tid"], track);
    // The wake that caused the second poll was recorded on the waking thread's track.
    let wake = trace
        .flows_into(polls[1])
        .into_iter()
        .find(|f| f["name"] == "wake")
        .expect("no wake flow into the second poll");
    let start = trace
        .events
        .iter()
        .find(|e| e["ph"] == "s" && e["id"] == wake["id"])
        .unwrap();
    assert_ne!(start["tid"], track, "woken from another thread: {start}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn current_thread_local_set_polls_spawns_and_wakes() {
    polls_spawns_and_wakes(false);
}

#[test]
fn multi_thread_local_set_polls_spawns_and_wakes() {
    polls_spawns_and_wakes(true);
}

#[test]
fn a_set_driven_inside_a_local_poll_is_drawn_nested() {
    let path = temp_path("local-nested.json");
    let rt = runtime(false, &path);
    let local = LocalSet::new();
    let (outer, inner) = local.block_on(&rt, async {
        let (tx, rx) = rt::sync::oneshot::channel();
        let outer = rt::task::Builder::new()
            .name("outer")
            .spawn_local(async move {
                let inner = LocalSet::new();
                inner
                    .run_until(async {
                        let h = rt::task::Builder::new()
                            .name("inner")
                            .spawn_local(async {
                                for _ in 0..YIELDS {
                                    rt::task::yield_now().await;
                                }
                            })
                            .unwrap();
                        tx.send(h.id()).unwrap();
                        h.await.unwrap();
                    })
                    .await;
            })
            .unwrap();
        let id = outer.id();
        outer.await.unwrap();
        (id, rx.await.unwrap())
    });
    drop(local);
    drop(rt);

    // `check` also proves the held-back nested slices keep each track's time order.
    let trace = Trace::check(&path);
    let outer = trace.polls(outer.as_u64());
    let inner = trace.polls(inner.as_u64());
    assert!(!outer.is_empty(), "the enclosing poll's slice is kept");
    assert_eq!(inner.len() as u64, YIELDS + 1, "{inner:?}");
    let span = |e: &serde_json::Value| {
        let t = e["ts"].as_f64().unwrap();
        (t, t + e["dur"].as_f64().unwrap())
    };
    for p in &inner {
        let (a, b) = span(p);
        assert!(
            outer.iter().any(|o| {
                let (oa, ob) = span(o);
                o["tid"] == p["tid"] && oa <= a && b <= ob
            }),
            "inner poll {p} is not inside an outer poll: {outer:?}"
        );
    }
    let _ = std::fs::remove_file(&path);
}
