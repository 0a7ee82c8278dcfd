//! Weak senders do not keep the channel open: the receiver sees `None` once the strong senders
//! are gone, and `upgrade` fails from then on; while a strong sender lives, `upgrade` gives a
//! working sender.

use rt::sync::mpsc;

#[test]
fn a_weak_sender_upgrades_only_while_a_strong_one_lives() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        let weak = tx.downgrade();
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
        let again = weak.upgrade().expect("a strong sender lives");
        again.send(1).await.unwrap();
        assert_eq!(tx.strong_count(), 2);
        drop(again);
        drop(tx);
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(
            rx.recv().await,
            None,
            "the weak sender must not keep it open"
        );
        assert!(weak.upgrade().is_none());
    });
}

#[test]
fn a_weak_unbounded_sender_too() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        let weak = tx.downgrade().clone();
        weak.upgrade().unwrap().send(2).unwrap();
        drop(tx);
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, None);
        assert!(weak.upgrade().is_none());
    });
}
