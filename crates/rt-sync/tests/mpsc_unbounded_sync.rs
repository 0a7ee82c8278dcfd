//! `UnboundedSender::send` is synchronous like tokio's: `let _ = tx.send(msg);` sends (an
//! `async` send would compile and silently do nothing); it works from any thread, keeps FIFO
//! order per sender, and fails with the value once the receiver is gone. The errors print
//! tokio's messages.

use std::thread;

use rt::sync::mpsc::{self, error::SendError, error::TryRecvError};

#[test]
fn send_without_await_delivers() {
    let (tx, mut rx) = mpsc::unbounded_channel::<&str>();
    let _ = tx.send("hello"); // tokio's idiom: no `.await`
    assert_eq!(rx.try_recv(), Ok("hello"));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
}

#[test]
fn sends_from_many_threads_arrive_in_each_senders_order() {
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, u32)>();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let tx = tx.clone();
            thread::spawn(move || {
                for i in 0..1000 {
                    tx.send((t, i)).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    for t in threads {
        t.join().unwrap();
    }
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let mut next = [0u32; 4];
    rt.block_on(async {
        while let Some((t, i)) = rx.recv().await {
            assert_eq!(i, next[t]);
            next[t] += 1;
        }
    });
    assert_eq!(next, [1000; 4]);
}

#[test]
fn send_fails_with_the_value_once_the_receiver_is_gone() {
    let (tx, rx) = mpsc::unbounded_channel::<String>();
    drop(rx);
    let err = tx.send("kept".to_string()).unwrap_err();
    let SendError(v) = &err;
    assert_eq!(v, "kept");
    assert_eq!(err.to_string(), "channel closed");
    assert_eq!(
        TryRecvError::Empty.to_string(),
        "receiving on an empty channel"
    );
    assert_eq!(
        mpsc::error::TrySendError::Full(()).to_string(),
        "no available capacity"
    );
    assert_eq!(
        mpsc::error::SendTimeoutError::Timeout(()).to_string(),
        "timed out waiting on send operation"
    );
}

#[test]
fn send_timeout_times_out_when_full_and_sends_when_room_appears() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        tx.send(1).await.unwrap();
        let err = tx
            .send_timeout(2, std::time::Duration::from_millis(5))
            .await
            .unwrap_err();
        assert!(matches!(err, mpsc::error::SendTimeoutError::Timeout(2)));
        assert_eq!(rx.recv().await, Some(1));
        tx.send_timeout(3, std::time::Duration::from_secs(60))
            .await
            .unwrap();
        assert_eq!(rx.recv().await, Some(3));
        drop(rx);
        let err = tx
            .send_timeout(4, std::time::Duration::from_secs(60))
            .await
            .unwrap_err();
        assert!(matches!(err, mpsc::error::SendTimeoutError::Closed(4)));
    });
}
