//! `Builder::max_io_events_per_tick` and `max_io_events_per_busy_tick`: zero is refused, and a
//! runtime that takes one event a turn while its worker is never idle still gets every event.

#[test]
#[should_panic(expected = "max_io_events_per_tick must be non-zero")]
fn zero_events_per_tick_panics() {
    rt::Builder::new_multi_thread().max_io_events_per_tick(0);
}

#[test]
#[should_panic(expected = "max_io_events_per_busy_tick must be non-zero")]
fn zero_events_per_busy_tick_panics() {
    rt::Builder::new_multi_thread().max_io_events_per_busy_tick(0);
}

fn echo_while_busy(rt: rt::Runtime) {
    // Tasks that never stop yielding: the worker always has something to run, so every turn
    // it takes is a busy one.
    for _ in 0..4 {
        rt.spawn(async {
            loop {
                rt::task::yield_now().await;
            }
        });
    }
    rt.block_on(async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                rt::spawn(async move {
                    let mut buf = [0u8; 4];
                    while s.read_exact(&mut buf).await.is_ok() {
                        s.write_all(&buf).await.unwrap();
                    }
                });
            }
        });
        let clients: Vec<_> = (0..8)
            .map(|_| {
                rt::spawn(async move {
                    let mut s = rt::net::TcpStream::connect(addr).await.unwrap();
                    for _ in 0..8 {
                        s.write_all(b"ping").await.unwrap();
                        let mut buf = [0u8; 4];
                        s.read_exact(&mut buf).await.unwrap();
                        assert_eq!(&buf, b"ping");
                    }
                })
            })
            .collect();
        for c in clients {
            c.await.unwrap();
        }
    });
}

#[test]
fn one_event_per_turn_multi_thread() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .max_io_events_per_tick(1)
        .max_io_events_per_busy_tick(1)
        .build()
        .unwrap();
    echo_while_busy(rt);
}

#[test]
fn one_event_per_busy_turn_current_thread() {
    let rt = rt::Builder::new_current_thread()
        .max_io_events_per_busy_tick(1)
        .build()
        .unwrap();
    echo_while_busy(rt);
}
