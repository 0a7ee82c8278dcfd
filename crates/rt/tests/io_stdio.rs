//! `rt::io::stdin` / `stdout` / `stderr` over rt's blocking pool: this test runs its own binary
//! as a child with piped standard streams; the child (an rt runtime) reads its stdin line by
//! line and writes each line upper-cased to stdout and its length to stderr.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const CHILD: &str = "RT_IO_STDIO_CHILD";

/// The child's body, when this binary runs as the child.
fn child() {
    rt::Runtime::new().unwrap().block_on(async {
        let mut lines = BufReader::new(rt::io::stdin()).lines();
        let mut out = rt::io::stdout();
        let mut err = rt::io::stderr();
        while let Some(line) = lines.next_line().await.unwrap() {
            out.write_all(format!("{}\n", line.to_uppercase()).as_bytes())
                .await
                .unwrap();
            err.write_all(format!("{}\n", line.len()).as_bytes())
                .await
                .unwrap();
        }
        out.flush().await.unwrap();
        err.shutdown().await.unwrap();
    });
}

#[test]
fn stdio_round_trip_through_a_child() {
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut c = Command::new(exe)
        .args([
            "--exact",
            "stdio_round_trip_through_a_child",
            "--nocapture",
            "--quiet",
        ])
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    stdin.write_all(b"hello\nrt io\n").unwrap();
    drop(stdin);
    let out = c.wait_with_output().unwrap();
    assert!(out.status.success(), "child failed: {out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    // The test harness prints its own lines around the child's; ours are the upper-case ones.
    let ours: Vec<&str> = stdout
        .lines()
        .filter(|l| *l == "HELLO" || *l == "RT IO")
        .collect();
    assert_eq!(ours, ["HELLO", "RT IO"]);
    assert_eq!(stderr.lines().collect::<Vec<_>>(), ["5", "5"]);
}
