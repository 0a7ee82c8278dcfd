//! A task spawned without an explicit priority inherits its spawner's: background under a
//! background task (through `rt::spawn`, `JoinSet::spawn`, `TaskGroup::spawn`), normal under a
//! normal task or from outside any task; an explicit priority wins either way. Both flavours.

use rt::task::{current_priority, JoinSet, Priority, TaskGroup};

async fn spawned_priorities() -> Vec<Priority> {
    let mut out = vec![current_priority()];
    out.push(rt::spawn(async { current_priority() }).await.unwrap());
    let mut set = JoinSet::new();
    set.spawn(async { current_priority() });
    out.push(set.join_next().await.unwrap().unwrap());
    set.spawn_with_priority(Priority::Normal, async { current_priority() });
    out.push(set.join_next().await.unwrap().unwrap());
    set.spawn_with_priority(Priority::Background, async { current_priority() });
    out.push(set.join_next().await.unwrap().unwrap());
    let group = TaskGroup::<Priority, ()>::new();
    group.spawn(async { Ok(current_priority()) });
    group.spawn_with_priority(Priority::Normal, async { Ok(current_priority()) });
    out.extend(group.join().await.unwrap());
    out
}

fn check(rt: &rt::Runtime) {
    use Priority::{Background as B, Normal as N};
    let from_bg = rt.block_on(async {
        rt::task::Builder::new()
            .priority(B)
            .spawn(spawned_priorities())
            .unwrap()
            .await
            .unwrap()
    });
    // Itself, rt::spawn, JoinSet::spawn, explicit N, explicit B, TaskGroup::spawn, explicit N.
    assert_eq!(from_bg, [B, B, B, N, B, B, N]);
    let from_normal = rt.block_on(async { rt::spawn(spawned_priorities()).await.unwrap() });
    assert_eq!(from_normal, [N, N, N, N, B, N, N]);
    // Outside any task (the `block_on` future is none).
    assert_eq!(rt.block_on(async { current_priority() }), N);
    let outside = rt.spawn(async { current_priority() });
    assert_eq!(rt.block_on(outside).unwrap(), N);
}

#[test]
fn multi_thread() {
    check(
        &rt::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap(),
    );
}

#[test]
fn current_thread() {
    check(&rt::Builder::new_current_thread().build().unwrap());
}
