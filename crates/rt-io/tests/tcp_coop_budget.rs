//! Socket reads spend the cooperative budget: a task reading an always-ready socket still yields,
//! so a task queued behind it on a single-threaded runtime gets to run before it finishes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rt_io::net::{TcpListener, TcpStream};

const BYTES: usize = 8 * 1024;

#[test]
fn always_ready_reads_yield_to_other_tasks() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut c = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut s, _) = listener.accept().await.unwrap();
        // All the data sits in the receiver's socket buffer before anyone reads.
        c.write_all(&[1u8; BYTES]).await.unwrap();

        let reader = rt::spawn(async move {
            let mut one = [0u8; 1];
            // The first read may wait for the reactor to report readiness; after it, every
            // 1-byte read finds data at once and never has to wait.
            assert_eq!(s.read(&mut one).await.unwrap(), 1);
            let other_ran = Arc::new(AtomicBool::new(false));
            let flag = other_ran.clone();
            rt::spawn(async move { flag.store(true, Ordering::SeqCst) });
            for read in 1..BYTES {
                if other_ran.load(Ordering::SeqCst) {
                    return Some(read);
                }
                assert_eq!(s.read(&mut one).await.unwrap(), 1);
            }
            None
        });
        let seen_after = reader.await.unwrap();
        let seen_after = seen_after.expect("the reader never yielded: reads spent no budget");
        // Each read spends one unit: the reader yields once its poll's budget is gone.
        let budget = usize::from(rt_core::coop::BUDGET);
        assert!(
            seen_after <= budget + 1,
            "yielded only after {seen_after} reads"
        );
    });
}
