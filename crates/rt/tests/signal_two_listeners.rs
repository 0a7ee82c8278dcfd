//! Two (and more) listeners of one signal are each woken by one delivery: two in one runtime,
//! one more in a runtime of the other flavour; a dropped listener does not take the others'
//! deliveries with it.

mod support;

use rt::signal::unix::{signal, SignalKind};

fn raise_usr2() {
    // SAFETY: raise(3) sends SIGUSR2 to the calling thread; listeners (rt's actions) exist.
    assert_eq!(unsafe { libc::raise(libc::SIGUSR2) }, 0);
}

#[test]
fn every_listener_is_woken() {
    let mt = support::multi_thread(2);
    let ct = support::current_thread();
    let (mut a, mut b) = mt.block_on(async {
        (
            signal(SignalKind::user_defined2()).unwrap(),
            signal(SignalKind::user_defined2()).unwrap(),
        )
    });
    let mut c = ct.block_on(async { signal(SignalKind::user_defined2()).unwrap() });
    let dropped = mt.block_on(async { signal(SignalKind::user_defined2()).unwrap() });
    drop(dropped);

    raise_usr2();
    let (ra, rb) = mt.block_on(async {
        let ta = rt::spawn(async move {
            let r = a.recv().await;
            (a, r)
        });
        let rb = b.recv().await;
        let (a, ra) = ta.await.unwrap();
        drop(a);
        (ra, rb)
    });
    assert_eq!((ra, rb), (Some(()), Some(())));
    assert_eq!(ct.block_on(c.recv()), Some(()));

    // Again, with one listener fewer.
    raise_usr2();
    assert_eq!(mt.block_on(b.recv()), Some(()));
    assert_eq!(ct.block_on(c.recv()), Some(()));
}
