//! `Dump`'s `Display` is a table, longest-idle first (tasks with a kept last-poll time, oldest
//! poll first, then the others by id), and iteration follows the same order.

use rt::TaskState;

/// Runs the current-thread runtime's queued tasks until they wait.
fn settle(rt: &rt::Runtime) {
    rt.block_on(async {
        for _ in 0..4 {
            rt::task::yield_now().await;
        }
    });
}

fn named(rt: &rt::Runtime, name: &str) -> rt::task::JoinHandle<()> {
    rt::task::Builder::new()
        .name(name)
        .spawn_on(std::future::pending::<()>(), rt.handle())
        .unwrap()
}

#[test]
fn display_lists_longest_idle_first() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let unnamed_old = rt.spawn(std::future::pending::<()>());
    let oldest = named(&rt, "oldest-poll");
    settle(&rt);
    let newest = named(&rt, "newest-poll");
    settle(&rt);
    let unnamed_new = rt.spawn(std::future::pending::<()>());

    let d = rt.dump();
    let order: Vec<_> = d.iter().map(|t| t.id()).collect();
    assert_eq!(
        order,
        vec![oldest.id(), newest.id(), unnamed_old.id(), unnamed_new.id()],
        "{d}"
    );
    let owned: Vec<_> = rt.dump().into_iter().map(|t| t.id()).collect();
    assert_eq!(owned, order);

    let text = d.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 + 4, "{text}");
    assert!(lines[0].starts_with("4 live tasks"), "{text}");
    for col in [
        "ID",
        "STATE",
        "PRIORITY",
        "POLLS",
        "LAST POLL",
        "LAST WAKE",
        "NAME",
        "SPAWNED AT",
    ] {
        assert!(lines[1].contains(col), "{text}");
    }
    assert!(lines[2].starts_with(&oldest.id().to_string()), "{text}");
    assert!(lines[2].contains("oldest-poll"), "{text}");
    assert!(lines[3].contains("newest-poll"), "{text}");
    assert!(
        lines[4].starts_with(&unnamed_old.id().to_string()),
        "{text}"
    );
    assert!(
        lines[5].starts_with(&unnamed_new.id().to_string()),
        "{text}"
    );
    assert!(lines[2].contains("idle, no waker"), "{text}");
    assert!(lines[5].contains("scheduled"), "{text}");
    assert!(lines[2].contains(file!()), "{text}");
    assert_eq!(d.iter().nth(3).unwrap().state(), TaskState::Scheduled);
    // Named tasks show their poll count; the others a dash.
    assert!(lines[2].split_whitespace().any(|w| w == "1"), "{text}");
}
