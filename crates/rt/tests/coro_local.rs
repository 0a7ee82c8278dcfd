//! `LocalCoroutine` takes a `!Send` body: an `Rc` and a `RefCell` of local state shared with
//! the resumer. (`LocalCoroutine` staying `!Send` is a `compile_fail` doctest on the type.)

use std::cell::RefCell;
use std::rc::Rc;

use rt::coro::{Co, LocalCoroutine, Resumed, Status};

#[test]
fn a_local_coroutine_shares_an_rc_with_its_resumer() {
    let state = Rc::new(RefCell::new(Vec::<String>::new()));
    let inner = state.clone();
    let mut co: LocalCoroutine<Rc<str>, Rc<str>, usize> =
        LocalCoroutine::new(move |co: Co<Rc<str>, Rc<str>>, first: Rc<str>| async move {
            inner.borrow_mut().push(format!("body got {first}"));
            let second = co.yield_(Rc::from("to main")).await;
            inner.borrow_mut().push(format!("body got {second}"));
            inner.borrow().len()
        });
    match co.resume(Rc::from("first")).unwrap() {
        Resumed::Yield(y) => assert_eq!(&*y, "to main"),
        Resumed::Return(_) => panic!("returned early"),
    }
    state.borrow_mut().push("main in between".into());
    assert!(matches!(
        co.resume(Rc::from("second")),
        Ok(Resumed::Return(3))
    ));
    assert_eq!(co.status(), Status::Dead);
    assert_eq!(
        *state.borrow(),
        ["body got first", "main in between", "body got second"]
    );
    co.reset(|_co: Co<Rc<str>, Rc<str>>, first: Rc<str>| async move { first.len() });
    assert!(matches!(
        co.resume(Rc::from("four")),
        Ok(Resumed::Return(4))
    ));
    assert_eq!(Rc::strong_count(&state), 1, "the first body was dropped");
}
