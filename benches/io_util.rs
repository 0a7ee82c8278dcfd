//! The IO toolkit: rt's own `rt::io` helpers against crates.io tokio's `tokio::io`, each on a
//! current-thread runtime of its own, paired (alternating rounds, median of the per-round
//! ratios). The same source runs on both sides (`io_workload!` over the crate name).
//!
//! - `copy_duplex`: a task writes 32 MiB into a `duplex(64 KiB)` with `write_all` (16 KiB
//!   chunks) while `copy` moves it from the other end into `sink()`.
//! - `buf_reader_lines`: `BufReader::new(&[u8]).lines()` over 200,000 lines of 40 bytes.
//! - `read_exact`: 262,144 `read_exact`s of 64 bytes from a `BufReader` over 16 MiB in memory.
//! - `write_all`: 262,144 `write_all`s of 64 bytes into a `BufWriter` over `sink()`, then a
//!   flush.
//!
//! Run: `cargo bench -p rt-benches --bench io_util`

use rt_benches::paired;

const ROUNDS: usize = 21;

macro_rules! io_workload {
    ($krate:ident, $rt:expr, $which:expr, $data:expr, $lines:expr) => {{
        use $krate::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
        let data: &'static [u8] = $data;
        let lines: &'static [u8] = $lines;
        $rt.block_on(async move {
            match $which {
                "copy_duplex" => {
                    let (mut a, mut b) = $krate::io::duplex(64 * 1024);
                    let writer = $krate::spawn(async move {
                        for chunk in data[..32 << 20].chunks(16 * 1024) {
                            a.write_all(chunk).await.unwrap();
                        }
                    });
                    let n = $krate::io::copy(&mut b, &mut $krate::io::sink())
                        .await
                        .unwrap();
                    assert_eq!(n, 32 << 20);
                    writer.await.unwrap();
                }
                "buf_reader_lines" => {
                    let mut it = $krate::io::BufReader::new(lines).lines();
                    let mut n = 0usize;
                    while let Some(line) = it.next_line().await.unwrap() {
                        n += line.len();
                    }
                    assert_eq!(n, 200_000 * 39);
                }
                "read_exact" => {
                    let mut r = $krate::io::BufReader::new(&data[..16 << 20]);
                    let mut frame = [0u8; 64];
                    let mut sum = 0u64;
                    for _ in 0..(16 << 20) / 64 {
                        r.read_exact(&mut frame).await.unwrap();
                        sum += frame[7] as u64;
                    }
                    std::hint::black_box(sum);
                }
                "write_all" => {
                    let mut w = $krate::io::BufWriter::new($krate::io::sink());
                    for frame in data[..16 << 20].chunks(64) {
                        w.write_all(frame).await.unwrap();
                    }
                    w.flush().await.unwrap();
                }
                other => unreachable!("{other}"),
            }
        })
    }};
}

fn main() {
    let data: &'static [u8] = Vec::leak((0..32u32 << 20).map(|i| (i % 251) as u8).collect());
    let mut text = Vec::with_capacity(200_000 * 40);
    for i in 0..200_000u32 {
        text.extend_from_slice(format!("{:038}x\n", i).as_bytes());
    }
    let lines: &'static [u8] = Vec::leak(text);
    let rt = rt::Builder::new_current_thread().build().unwrap();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    for which in ["copy_duplex", "buf_reader_lines", "read_exact", "write_all"] {
        if filter.as_deref().is_some_and(|f| !which.contains(f)) {
            continue;
        }
        paired(
            which,
            ROUNDS,
            || io_workload!(rt, rt, which, data, lines),
            || io_workload!(tokio, tokio, which, data, lines),
        );
    }
}
