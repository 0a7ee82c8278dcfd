//! `rt_core::timer::sleep` with no timer installed (no runtime started in this process) panics
//! with a message that says so.

#[test]
#[should_panic(expected = "there is no timer")]
fn sleep_without_a_timer_panics() {
    drop(rt_core::timer::sleep(std::time::Duration::from_millis(1)));
}
