//! `RT_TRACE=path`: every multi-thread runtime of the process writes a trace without a
//! builder call (the first to `path`, later ones to `path` numbered), and a `#[rt::main]`
//! program's trace is complete once its `block_on` has returned and the runtime has dropped.
//! One test in this binary: the variable is process-wide.

mod trace_support;

use trace_support::{temp_path, Trace};

#[rt::main(worker_threads = 2)]
async fn traced_main() -> u64 {
    let h = rt::task::Builder::new()
        .name("from-main")
        .spawn(async { 40 })
        .unwrap();
    h.await.unwrap() + 2
}

#[test]
fn rt_trace_writes_one_file_per_runtime() {
    let path = temp_path("env.json");
    let second = path.sibling("env.1.json");
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&second);
    // This binary has this one test, so no other thread reads the environment meanwhile.
    std::env::set_var("RT_TRACE", path.as_os_str());
    assert_eq!(traced_main(), 42);
    let first = Trace::check(&path);
    let polls: Vec<_> = first
        .events
        .iter()
        .filter(|e| e["ph"] == "X" && e["args"]["task.name"] == "from-main")
        .collect();
    assert_eq!(polls.len(), 1, "{polls:?}");
    assert_eq!(polls[0]["args"]["result"], "Ready");

    // A second runtime does not overwrite the first one's file.
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    rt.block_on(async { rt::spawn(async {}).await.unwrap() });
    drop(rt);
    std::env::remove_var("RT_TRACE");
    let again = Trace::check(&path);
    assert_eq!(again.events.len(), first.events.len());
    let numbered = Trace::check(&second);
    assert!(numbered
        .events
        .iter()
        .any(|e| e["ph"] == "X" && e["cat"] == "poll"));
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&second);
}
