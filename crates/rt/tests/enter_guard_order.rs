//! `EnterGuard`s dropped out of order panic (tokio documents the same for `Handle::enter`):
//! dropping the outer guard first would make the inner guard's runtime current again at its
//! own drop, long after the caller meant to leave it.

mod support;

#[test]
fn guards_dropped_in_reverse_order_are_fine() {
    let (a, b) = (support::current_thread(), support::multi_thread(1));
    let ga = a.enter();
    let gb = b.enter();
    drop(gb);
    drop(ga);
    assert!(rt::Handle::try_current().is_err());
}

#[test]
fn a_guard_dropped_out_of_order_panics() {
    let (a, b) = (support::current_thread(), support::multi_thread(1));
    let ga = a.enter();
    let gb = b.enter();
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(ga)))
        .expect_err("dropping the outer guard first panics");
    assert!(
        support::panic_text(&*err).contains("dropped out of order"),
        "{}",
        support::panic_text(&*err)
    );
    drop(gb);
}
