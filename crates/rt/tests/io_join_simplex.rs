//! `rt::io::simplex` (a one-way in-memory pipe) and `rt::io::join` (a reader and a writer as
//! one stream), tokio's names.

use rt::io::{AsyncReadExt, AsyncWriteExt};

mod support;

#[test]
fn join_reads_from_one_pipe_and_writes_to_another() {
    support::current_thread().block_on(async {
        let (inbound_rx, mut inbound_tx) = rt::io::simplex(64);
        let (mut outbound_rx, outbound_tx) = rt::io::simplex(64);
        let mut joined = rt::io::join(inbound_rx, outbound_tx);
        inbound_tx.write_all(b"in").await.unwrap();
        let mut buf = [0; 2];
        joined.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"in");
        joined.write_all(b"out").await.unwrap();
        let mut out = [0; 3];
        outbound_rx.read_exact(&mut out).await.unwrap();
        assert_eq!(&out, b"out");
    });
}
