//! The seeds' two-coroutine example, reproduced exactly: two coroutines created with the
//! arguments 111 and 222, driven by one loop that resumes each while it is alive; the whole
//! interleaved log is asserted.

use std::sync::{Arc, Mutex};

use rt::coro::{Co, Coroutine, Resumed};

type Log = Arc<Mutex<Vec<String>>>;

fn func1(log: Log, arg: i32) -> Coroutine<&'static str, &'static str, i32> {
    Coroutine::new(
        move |co: Co<&'static str, &'static str>, first: &'static str| async move {
            log.lock()
                .unwrap()
                .push(format!("func1 start: arg {arg}, resumed with {first}"));
            let got = co.yield_("func1 yield 1").await;
            log.lock()
                .unwrap()
                .push(format!("func1 resumed with {got}"));
            let got = co.yield_("func1 yield 2").await;
            log.lock()
                .unwrap()
                .push(format!("func1 resumed with {got}, returning"));
            arg + 1
        },
    )
}

fn func2(log: Log, arg: i32) -> Coroutine<&'static str, &'static str, i32> {
    Coroutine::new(
        move |co: Co<&'static str, &'static str>, first: &'static str| async move {
            log.lock()
                .unwrap()
                .push(format!("func2 start: arg {arg}, resumed with {first}"));
            let got = co.yield_("func2 yield 1").await;
            log.lock()
                .unwrap()
                .push(format!("func2 resumed with {got}, returning"));
            arg + 2
        },
    )
}

fn drive(
    log: &Log,
    name: &str,
    co: &mut Coroutine<&'static str, &'static str, i32>,
    arg: &'static str,
) {
    let entry = match co.resume(arg).expect("a live coroutine resumes") {
        Resumed::Yield(y) => format!("main: {name} yielded {y}"),
        Resumed::Return(v) => format!("main: {name} returned {v}"),
    };
    log.lock().unwrap().push(entry);
}

#[test]
fn two_coroutines_interleave_as_in_the_seeds() {
    let log: Log = Arc::default();
    let mut co1 = func1(log.clone(), 111);
    let mut co2 = func2(log.clone(), 222);
    while co1.is_alive() || co2.is_alive() {
        if co1.is_alive() {
            drive(&log, "func1", &mut co1, "resume func1");
        }
        if co2.is_alive() {
            drive(&log, "func2", &mut co2, "resume func2");
        }
    }
    assert_eq!(
        *log.lock().unwrap(),
        [
            "func1 start: arg 111, resumed with resume func1",
            "main: func1 yielded func1 yield 1",
            "func2 start: arg 222, resumed with resume func2",
            "main: func2 yielded func2 yield 1",
            "func1 resumed with resume func1",
            "main: func1 yielded func1 yield 2",
            "func2 resumed with resume func2, returning",
            "main: func2 returned 224",
            "func1 resumed with resume func1, returning",
            "main: func1 returned 112",
        ]
    );
    assert!(co1.resume("again").unwrap_err().is_dead());
    assert!(co2.resume("again").unwrap_err().is_dead());
}
