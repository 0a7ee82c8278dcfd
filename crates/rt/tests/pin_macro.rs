//! `rt::pin!`, as tokio's: pins named variables in place, or declares and pins in one step.

mod support;

#[test]
fn pins_variables_so_they_can_be_polled_by_reference() {
    support::current_thread().block_on(async {
        let a = async { 1 };
        let b = async { 2 };
        rt::pin!(a, b);
        // `a` is `Pin<&mut impl Future>`: `select!` polls it by reference, as in a loop.
        let mut sum = 0;
        rt::select! {
            v = &mut a => sum += v,
        }
        sum += (&mut b).await;
        assert_eq!(sum, 3);
    });
}

#[test]
fn declares_and_pins() {
    support::current_thread().block_on(async {
        rt::pin! {
            let x = async { 5 };
            let y = rt::time::sleep(std::time::Duration::ZERO);
        }
        y.as_mut().await;
        assert_eq!(x.await, 5);
    });
}
