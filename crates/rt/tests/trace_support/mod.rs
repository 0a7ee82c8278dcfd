//! Reads a Chrome trace written by `Builder::trace_file` / `RT_TRACE` and checks its structure.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

/// A path named `name` in a new directory of its own under the temp dir, for one test's
/// trace; the directory goes when this drops. The directory's name is unique to this call (the
/// process id, the time and a count), so a directory another run left behind (with the same
/// process id, perhaps another user's) is never reused.
pub fn temp_path(name: &str) -> TempPath {
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "rt-trace-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join(name);
    TempPath { dir, path }
}

/// [`temp_path`]'s path; removes its directory when dropped.
pub struct TempPath {
    dir: PathBuf,
    path: PathBuf,
}

impl TempPath {
    /// Another file's path in the same directory.
    pub fn sibling(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl std::ops::Deref for TempPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A parsed trace.
pub struct Trace {
    pub events: Vec<Value>,
    pub metadata: Value,
}

fn ts(e: &Value) -> f64 {
    e["ts"].as_f64().unwrap_or_else(|| panic!("no ts: {e}"))
}

impl Trace {
    /// Parses `path` (panicking if it is not complete, valid JSON) and checks:
    /// - only `X` (complete), `i`, `s`/`f`, `C` and `M` events (so no `B` without its `E`);
    /// - each flow id has exactly one `s` and one `f`, with the same name, `s` no later than
    ///   `f`, the `f` bound inside an `X` slice on its track and the `s` inside one on its own;
    /// - per track, `X` and `i` timestamps never go back (and per counter name);
    /// - every track with events has a `thread_name`;
    /// - the metadata counts the dropped events, in total and per track.
    pub fn check(path: &Path) -> Trace {
        let text = std::fs::read_to_string(path).unwrap();
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", path.display()));
        let events = v["traceEvents"].as_array().expect("traceEvents").clone();
        let metadata = v["metadata"].clone();
        let total = metadata["rt.dropped_events"]
            .as_u64()
            .expect("dropped count");
        let by_track: u64 = metadata["rt.dropped_by_track"]
            .as_object()
            .expect("dropped by track")
            .values()
            .map(|d| d.as_u64().unwrap())
            .sum();
        assert_eq!(total, by_track);

        let mut last: HashMap<String, f64> = HashMap::new();
        let mut slices: HashMap<i64, Vec<(f64, f64)>> = HashMap::new();
        let mut flows: BTreeMap<u64, (Vec<&Value>, Vec<&Value>)> = BTreeMap::new();
        let mut names: HashMap<i64, String> = HashMap::new();
        let mut used: Vec<i64> = Vec::new();
        for e in &events {
            let ph = e["ph"].as_str().expect("ph");
            let tid = e["tid"].as_i64();
            match ph {
                "M" => {
                    if e["name"] == "thread_name" {
                        names.insert(tid.unwrap(), e["args"]["name"].as_str().unwrap().into());
                    }
                }
                "X" | "i" => {
                    let tid = tid.expect("tid");
                    used.push(tid);
                    let key = format!("t{tid}");
                    let t = ts(e);
                    let prev = last.insert(key, t).unwrap_or(f64::MIN);
                    assert!(t >= prev, "track {tid} goes back in time at {e}");
                    if ph == "X" {
                        let dur = e["dur"].as_f64().expect("dur");
                        assert!(dur >= 0.0);
                        slices.entry(tid).or_default().push((t, t + dur));
                    }
                }
                "C" => {
                    let key = format!("c{}", e["name"]);
                    let t = ts(e);
                    let prev = last.insert(key, t).unwrap_or(f64::MIN);
                    assert!(t >= prev, "counter goes back in time at {e}");
                    assert!(e["args"]["value"].is_u64());
                }
                "s" | "f" => {
                    let id = e["id"].as_u64().expect("flow id");
                    let entry = flows.entry(id).or_default();
                    if ph == "s" {
                        entry.0.push(e);
                    } else {
                        assert_eq!(e["bp"], "e");
                        entry.1.push(e);
                    }
                }
                other => panic!("unexpected event kind {other}: {e}"),
            }
        }
        let inside = |tid: i64, t: f64| {
            slices
                .get(&tid)
                .is_some_and(|v| v.iter().any(|&(a, b)| a <= t && t <= b))
        };
        for (id, (s, f)) in &flows {
            assert_eq!((s.len(), f.len()), (1, 1), "flow {id}: {s:?} {f:?}");
            let (s, f) = (s[0], f[0]);
            assert_eq!(s["name"], f["name"]);
            assert!(ts(s) <= ts(f), "flow {id} goes back: {s} {f}");
            assert!(
                inside(f["tid"].as_i64().unwrap(), ts(f)),
                "flow end outside a slice: {f}"
            );
            assert!(
                inside(s["tid"].as_i64().unwrap(), ts(s)),
                "flow start outside a slice: {s}"
            );
        }
        for tid in used {
            assert!(names.contains_key(&tid), "track {tid} has no thread_name");
        }
        Trace { events, metadata }
    }

    /// The poll slices of task `id`, in time order (checked to match their poll numbers, and
    /// never to overlap: a task is polled by one thread at a time).
    pub fn polls(&self, id: u64) -> Vec<&Value> {
        let mut v: Vec<&Value> = self
            .events
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == "poll" && e["args"]["task.id"] == id)
            .collect();
        v.sort_by(|a, b| ts(a).total_cmp(&ts(b)));
        for (i, w) in v.windows(2).enumerate() {
            assert!(
                ts(w[0]) + w[0]["dur"].as_f64().unwrap() <= ts(w[1]) + 1e-6,
                "task {id}: polls overlap: {} {}",
                w[0],
                w[1]
            );
            assert_eq!(w[1]["args"]["poll"], i as u64 + 2);
        }
        v
    }

    /// The flow ends (`f`) bound into the poll `poll` (an `X` event).
    pub fn flows_into(&self, poll: &Value) -> Vec<&Value> {
        let (t0, t1) = (ts(poll), ts(poll) + poll["dur"].as_f64().unwrap());
        self.events
            .iter()
            .filter(|e| e["ph"] == "f" && e["tid"] == poll["tid"] && t0 <= ts(e) && ts(e) <= t1)
            .collect()
    }

    /// Thread names by track.
    pub fn thread_names(&self) -> Vec<(i64, String)> {
        self.events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
            .map(|e| {
                (
                    e["tid"].as_i64().unwrap(),
                    e["args"]["name"].as_str().unwrap().into(),
                )
            })
            .collect()
    }

    pub fn count(&self, ph: &str, name: &str) -> usize {
        self.events
            .iter()
            .filter(|e| e["ph"] == ph && e["name"] == name)
            .count()
    }

    pub fn dropped(&self) -> u64 {
        self.metadata["rt.dropped_events"].as_u64().unwrap()
    }
}
