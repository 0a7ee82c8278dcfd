//! `resume_async`: a body that awaits an rt timer (and a channel) between yields runs inside
//! a task without blocking its worker; the synchronous `resume` of such a body on a worker
//! panics with a message that says to use `resume_async`.

use std::time::Duration;

use rt::coro::{Co, Coroutine, Resumed};

fn timed() -> Coroutine<&'static str, u32, u32> {
    Coroutine::new(|co: Co<&'static str, u32>, first: u32| async move {
        rt::time::sleep(Duration::from_millis(2)).await;
        let got = co.yield_("slept").await;
        let (tx, rx) = rt::sync::oneshot::channel();
        rt::spawn(async move {
            rt::time::sleep(Duration::from_millis(1)).await;
            tx.send(got * 2).unwrap();
        });
        first + rx.await.unwrap()
    })
}

#[test]
fn resume_async_awaits_a_timer_inside_the_body() {
    for (flavour, rt) in [
        (
            "multi_thread",
            rt::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap(),
        ),
        (
            "current_thread",
            rt::Builder::new_current_thread().build().unwrap(),
        ),
    ] {
        let out = rt.block_on(async {
            rt::spawn(async {
                let mut co = timed();
                let a = co.resume_async(1).await.unwrap();
                let b = co.resume_async(20).await.unwrap();
                (a, b, co.is_alive())
            })
            .await
            .unwrap()
        });
        assert!(
            matches!(out, (Resumed::Yield("slept"), Resumed::Return(41), false)),
            "{flavour}"
        );
    }
}

#[test]
fn sync_resume_of_an_awaiting_body_on_a_worker_panics_with_a_message() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let err = rt
        .block_on(rt.spawn(async {
            let mut co = timed();
            let _ = co.resume(1);
        }))
        .unwrap_err();
    let payload = err.into_panic();
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        msg.contains("use `resume_async(arg).await` instead"),
        "{msg}"
    );
}

#[test]
fn sync_resume_of_a_yielding_body_works_on_a_worker() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let v = rt
        .block_on(rt.spawn(async {
            let g: Coroutine<u32> = Coroutine::new(|co: Co<u32>, ()| async move {
                co.yield_(1).await;
                co.yield_(2).await;
            });
            g.sum::<u32>()
        }))
        .unwrap();
    assert_eq!(v, 3);
}

#[test]
fn a_resume_async_dropped_mid_await_leaves_the_body_where_it_was() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, rx) = rt::sync::oneshot::channel::<u32>();
        let mut co: Coroutine<u32, u32, (u32, u32)> =
            Coroutine::new(move |co: Co<u32, u32>, first: u32| async move {
                let got = rx.await.unwrap();
                let next = co.yield_(first + got).await;
                (got, next)
            });
        // Polled once: the body waits on the oneshot; then the resume is dropped (select! lost).
        rt::select! {
            biased;
            _ = co.resume_async(1) => unreachable!("the oneshot is not sent yet"),
            _ = std::future::ready(()) => {}
        }
        assert!(co.is_alive());
        tx.send(10).unwrap();
        // The next resume continues the await; its own argument (99) had no yield_ to go to.
        assert!(matches!(co.resume_async(99).await, Ok(Resumed::Yield(11))));
        assert!(matches!(
            co.resume_async(5).await,
            Ok(Resumed::Return((10, 5)))
        ));
    });
}
