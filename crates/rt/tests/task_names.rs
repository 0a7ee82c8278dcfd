//! Every spawn path records its caller's location (`#[track_caller]`), and
//! `rt::task::Builder::name` names the task (the name is copied at spawn).

use std::panic::Location;

fn check(loc: &'static Location<'static>, line: u32, what: &str) {
    assert_eq!(loc.file(), file!(), "{what}: file");
    assert_eq!(loc.line(), line, "{what}: line");
}

fn runtimes() -> Vec<(&'static str, rt::Runtime)> {
    vec![
        (
            "multi_thread",
            rt::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap(),
        ),
        (
            "current_thread",
            rt::Builder::new_current_thread().build().unwrap(),
        ),
    ]
}

#[test]
fn plain_spawns_record_the_caller() {
    for (flavor, rt) in runtimes() {
        let l = line!() + 1;
        let h = rt.spawn(async {});
        check(h.spawn_location(), l, flavor);
        assert_eq!(h.name(), None);
        rt.block_on(h).unwrap();

        let l = line!() + 1;
        let h = rt.handle().spawn(async {});
        check(h.spawn_location(), l, flavor);
        rt.block_on(h).unwrap();

        let l = line!() + 1;
        let h = rt.spawn_blocking(|| {});
        check(h.spawn_location(), l, flavor);
        assert_eq!(h.name(), None);
        rt.block_on(h).unwrap();

        rt.block_on(async {
            let l = line!() + 1;
            let h = rt::spawn(async {});
            check(h.spawn_location(), l, flavor);
            h.await.unwrap();

            let l = line!() + 1;
            let h = rt::task::spawn_blocking(|| {});
            check(h.spawn_location(), l, flavor);
            h.await.unwrap();

            let mut set = rt::task::JoinSet::new();
            let l = line!() + 1;
            let a = set.spawn(async {});
            check(a.spawn_location(), l, flavor);
            let l = line!() + 1;
            let a = set.spawn_blocking(|| {});
            check(a.spawn_location(), l, flavor);
            while set.join_next().await.is_some() {}

            let group = rt::task::TaskGroup::<(), ()>::new();
            let l = line!() + 1;
            let a = group.spawn(async { Ok(()) });
            check(a.spawn_location(), l, flavor);
            group.join().await.unwrap();
        });
    }
}

#[test]
fn local_spawns_record_the_caller() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let local = rt::task::LocalSet::new();
    let l = line!() + 1;
    let h = local.spawn_local(async {});
    check(h.spawn_location(), l, "LocalSet::spawn_local");
    local.block_on(&rt, async move {
        h.await.unwrap();
        let l = line!() + 1;
        let h = rt::task::spawn_local(async {});
        check(h.spawn_location(), l, "spawn_local");
        h.await.unwrap();
        let h = rt::task::Builder::new()
            .name("local")
            .spawn_local(async {})
            .unwrap();
        let l = line!() - 2;
        check(h.spawn_location(), l, "Builder::spawn_local");
        assert_eq!(h.name(), Some("local"));
        h.await.unwrap();
    });
    let h = rt::task::Builder::new()
        .name("local-on")
        .spawn_local_on(async { 3 }, &local)
        .unwrap();
    let l = line!() - 2;
    check(h.spawn_location(), l, "Builder::spawn_local_on");
    assert_eq!(h.name(), Some("local-on"));
    assert_eq!(local.block_on(&rt, h).unwrap(), 3);
}

#[test]
fn builder_names_are_copied_and_every_builder_path_records_the_caller() {
    for (flavor, rt) in runtimes() {
        // A name that does not outlive the spawn: the task keeps its own copy.
        let name = format!("conn-{flavor}");
        let h = rt::task::Builder::new()
            .name(&name)
            .spawn_on(async { 1 }, rt.handle())
            .unwrap();
        let l = line!() - 2;
        drop(name);
        assert_eq!(h.name(), Some(&*format!("conn-{flavor}")));
        check(h.spawn_location(), l, flavor);
        assert_eq!(rt.block_on(h).unwrap(), 1);

        let h = rt::task::Builder::new()
            .name("blocking")
            .spawn_blocking_on(|| 2, rt.handle())
            .unwrap();
        let l = line!() - 2;
        assert_eq!(h.name(), Some("blocking"));
        check(h.spawn_location(), l, flavor);
        assert_eq!(rt.block_on(h).unwrap(), 2);

        rt.block_on(async {
            let l = line!() + 3;
            let h = rt::task::Builder::new()
                .name("inside")
                .spawn(async { 3 })
                .unwrap();
            assert_eq!(h.name(), Some("inside"));
            check(h.spawn_location(), l, flavor);
            let a = h.abort_handle();
            assert_eq!(a.name(), Some("inside"));
            assert_eq!(h.await.unwrap(), 3);

            let l = line!() + 1;
            let h = rt::task::Builder::new().spawn_blocking(|| 4).unwrap();
            assert_eq!(h.name(), None);
            check(h.spawn_location(), l, flavor);
            assert_eq!(h.await.unwrap(), 4);
        });
    }
}

#[test]
#[should_panic(expected = "rt::task::Builder::spawn called outside of an rt runtime")]
fn builder_spawn_outside_a_runtime_says_what_to_do() {
    let _ = rt::task::Builder::new().name("x").spawn(async {});
}
