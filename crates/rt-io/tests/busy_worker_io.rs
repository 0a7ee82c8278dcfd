//! With one reactor shard per worker, a worker stuck in a long task must not hold up the IO
//! registered on its shard: another, idle worker notices the shard standing still and polls it.
//! The runtime asks for that layout (`reactor_shards(2)`); with the shared poll (the default)
//! a stuck worker's IO is the stall take-over's (`rt/tests/stall_takeover.rs`, both layouts).

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rt_io::net::TcpStream;

#[test]
fn io_on_a_busy_workers_shard_still_completes() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .reactor_shards(2)
        .build()
        .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let hogging = Arc::new(AtomicBool::new(false));
    let released = Arc::new(AtomicBool::new(false));
    let gave_up = Arc::new(AtomicBool::new(false));

    // The peer answers only once the hog holds the worker, so the answer's event arrives at a
    // shard whose owner is busy.
    let peer = {
        let hogging = hogging.clone();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut go = [0u8; 2];
            s.read_exact(&mut go).unwrap();
            while !hogging.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            s.write_all(b"answer").unwrap();
            s
        })
    };

    let got = rt.block_on({
        let hogging = hogging.clone();
        let released = released.clone();
        let gave_up = gave_up.clone();
        async move {
            rt::spawn(async move {
                // Created here, so registered on this worker's shard.
                let mut c = TcpStream::connect(addr).await.unwrap();
                c.write_all(b"go").await.unwrap();
                // Spawned from a worker: into its LIFO slot, which nobody steals, so the hog
                // runs on this worker as soon as the read below waits.
                let hog_released = released.clone();
                rt::spawn(async move {
                    hogging.store(true, Ordering::SeqCst);
                    // Busy, without yielding, until the read completes (hang guard: 20 s).
                    let deadline = Instant::now() + Duration::from_secs(20);
                    while !hog_released.load(Ordering::SeqCst) {
                        if Instant::now() > deadline {
                            gave_up.store(true, Ordering::SeqCst);
                            break;
                        }
                        std::hint::spin_loop();
                    }
                });
                let mut buf = [0u8; 6];
                c.read_exact(&mut buf).await.unwrap();
                released.store(true, Ordering::SeqCst);
                buf
            })
            .await
            .unwrap()
        }
    });
    assert_eq!(&got, b"answer");
    assert!(
        !gave_up.load(Ordering::SeqCst),
        "the read completed only after its worker's long task ended"
    );
    drop(peer.join().unwrap());
}
