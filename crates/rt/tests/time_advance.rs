//! `rt::time::advance`: fires every timer up to the new time, in deadline order, and
//! `Instant::now()` follows it.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt::time::{advance, sleep, sleep_until, Instant};

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[test]
fn instant_now_follows_advance() {
    let rt = rt::Builder::new_current_thread()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let start = Instant::now();
        assert_eq!(Instant::now(), start, "paused: the clock stands still");
        advance(secs(5)).await;
        assert_eq!(Instant::now() - start, secs(5));
        assert_eq!(start.elapsed(), secs(5));
        advance(Duration::from_millis(1)).await;
        assert_eq!(start.elapsed(), secs(5) + Duration::from_millis(1));
    });
}

#[test]
fn advance_fires_timers_in_deadline_order() {
    let rt = rt::Builder::new_current_thread()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let start = Instant::now();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        // Spawned out of order; each records its number and the clock when it runs.
        for n in [3u64, 1, 4, 2, 5] {
            let order = order.clone();
            tasks.push(rt::spawn(async move {
                sleep_until(start + secs(n)).await;
                order.lock().unwrap().push((n, start.elapsed()));
            }));
        }
        rt::task::yield_now().await; // let them register their timers
        advance(secs(3)).await;
        {
            let seen: Vec<u64> = order.lock().unwrap().iter().map(|p| p.0).collect();
            assert_eq!(seen, [1, 2, 3], "up to the new time, in deadline order");
        }
        advance(secs(10)).await;
        for t in tasks {
            t.await.unwrap();
        }
        let seen: Vec<u64> = order.lock().unwrap().iter().map(|p| p.0).collect();
        assert_eq!(seen, [1, 2, 3, 4, 5]);
        assert_eq!(start.elapsed(), secs(13));
    });
}

#[test]
fn advance_fires_every_timer_it_passes_multi_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let start = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        for n in 1..=10u64 {
            let tx = tx.clone();
            // A pending timer each; advance must fire them even though the runtime is busy
            // with nothing else.
            let mut s = Box::pin(sleep(secs(n)));
            std::future::poll_fn(|cx| {
                let _ = s.as_mut().poll(cx);
                std::task::Poll::Ready(())
            })
            .await;
            rt::spawn(async move {
                s.await;
                tx.send(n).unwrap();
            });
        }
        advance(secs(10)).await;
        let mut got: Vec<u64> = (0..10).map(|_| rx.recv().unwrap()).collect();
        got.sort_unstable();
        assert_eq!(got, (1..=10).collect::<Vec<_>>());
        assert_eq!(start.elapsed(), secs(10));
    });
}
