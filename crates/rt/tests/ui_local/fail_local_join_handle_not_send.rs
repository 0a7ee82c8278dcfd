// The `JoinHandle` of a local task with a `!Send` output is `!Send`, and so is a `LocalSet`.
fn assert_send<T: Send>(_: &T) {}

fn main() {
    let set = rt::task::LocalSet::new();
    let handle = set.spawn_local(async { std::rc::Rc::new(1) });
    assert_send(&handle);
    assert_send(&set);
}
