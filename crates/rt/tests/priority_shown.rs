//! Each task's priority shows where a task is described: the task dump (`TaskDump::priority`
//! and its table) and every poll slice of the trace file (`task.priority`).

mod trace_support;

use rt::task::Priority;
use trace_support::{temp_path, Trace};

#[test]
fn the_dump_shows_each_tasks_priority() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let bg = rt::task::Builder::new()
        .priority(Priority::Background)
        .spawn_on(std::future::pending::<()>(), rt.handle())
        .unwrap();
    let normal = rt.spawn(std::future::pending::<()>());
    rt.block_on(rt::task::yield_now());
    let dump = rt.dump();
    let of = |id| dump.iter().find(|t| t.id() == id).unwrap();
    assert_eq!(of(bg.id()).priority(), Priority::Background);
    assert_eq!(of(normal.id()).priority(), Priority::Normal);
    let text = dump.to_string();
    let line = |id: rt::task::Id| {
        text.lines()
            .skip(2)
            .find(|l| l.starts_with(&format!("{} ", id.as_u64())))
            .unwrap()
            .to_string()
    };
    assert!(line(bg.id()).contains(" background "), "{text}");
    assert!(line(normal.id()).contains(" normal "), "{text}");
}

#[test]
fn the_trace_shows_each_polls_priority() {
    let path = temp_path("priority.json");
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .trace_file(&path)
        .build()
        .unwrap();
    let (bg, normal) = rt.block_on(async {
        let bg = rt::task::Builder::new()
            .priority(Priority::Background)
            .spawn(async {})
            .unwrap();
        let normal = rt::spawn(async {});
        let ids = (bg.id().as_u64(), normal.id().as_u64());
        bg.await.unwrap();
        normal.await.unwrap();
        ids
    });
    drop(rt);
    let trace = Trace::check(&path);
    for (id, want) in [(bg, "background"), (normal, "normal")] {
        let polls = trace.polls(id);
        assert!(!polls.is_empty());
        for p in polls {
            assert_eq!(p["args"]["task.priority"], want, "{p}");
        }
    }
}
