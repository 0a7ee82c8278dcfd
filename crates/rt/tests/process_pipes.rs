//! A child's piped stdin and stdout are rt streams: `cat` echoes what we write, through rt's
//! traits and futures-io's; `output` collects stdout, stderr and the status; `status` and `env`,
//! `current_dir`, `env_clear` reach the child.

mod support;

use std::process::Stdio;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::process::Command;

#[test]
fn cat_echoes_stdin_to_stdout() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            // More than a pipe holds (64 KiB), so writer and reader must take turns.
            let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
            let writer = {
                let data = data.clone();
                rt::spawn(async move {
                    stdin.write_all(&data).await.unwrap();
                    // Dropping stdin closes the pipe: cat sees end-of-file.
                })
            };
            let mut out = Vec::new();
            stdout.read_to_end(&mut out).await.unwrap();
            writer.await.unwrap();
            assert_eq!(out.len(), data.len(), "{name}");
            assert!(out == data, "{name}: cat's output differs");
            assert!(child.wait().await.unwrap().success());
            assert_eq!(child.id(), None, "reaped");
        });
    }
}

#[test]
fn futures_io_streams() {
    use futures_io::{AsyncRead, AsyncWrite};
    use std::future::poll_fn;
    use std::pin::Pin;

    let rt = support::current_thread();
    rt.block_on(async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let n = poll_fn(|cx| Pin::new(&mut stdin).poll_write(cx, b"ping"))
            .await
            .unwrap();
        assert_eq!(n, 4);
        drop(stdin);
        let mut stdout = child.stdout.take().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 16];
        loop {
            let n = poll_fn(|cx| Pin::new(&mut stdout).poll_read(cx, &mut buf))
                .await
                .unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, b"ping");
        assert!(child.wait().await.unwrap().success());
    });
}

#[test]
fn output_and_status() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let out = Command::new("sh")
                .args(["-c", "echo out; echo err >&2; echo \"$RT_X\"; pwd; exit 3"])
                .env("RT_X", "from-env")
                .current_dir("/")
                .output()
                .await
                .unwrap();
            assert_eq!(out.status.code(), Some(3), "{name}");
            assert_eq!(out.stdout, b"out\nfrom-env\n/\n");
            assert_eq!(out.stderr, b"err\n");

            // `output`'s defaults were for that call only; stdin is null there.
            let out = Command::new("cat").output().await.unwrap();
            assert!(out.status.success());
            assert!(out.stdout.is_empty());

            let st = Command::new("sh")
                .args(["-c", "test -z \"$HOME\""])
                .env_clear()
                .status()
                .await
                .unwrap();
            assert!(st.success(), "{name}: env_clear left HOME set");
            let st = Command::new("sh")
                .args(["-c", "exit \"$A\""])
                .envs([("A", "7"), ("B", "1")])
                .env_remove("B")
                .status()
                .await
                .unwrap();
            assert_eq!(st.code(), Some(7));

            let err = Command::new("/nonexistent/rt-no-such-program")
                .spawn()
                .unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        });
    }
}

/// `status` spawns at the call and its future borrows nothing: the child writes to a pipe that
/// is read before the future is first polled, with the `Command` (a temporary) already gone.
#[test]
fn status_spawns_at_the_call() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let (tx, mut rx) = rt::net::unix::pipe::pipe().unwrap();
            let status = Command::new("echo")
                .arg("-n")
                .arg("spawned")
                .stdout(tx.into_blocking_fd().unwrap())
                .status();
            let mut buf = [0u8; 7];
            rx.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"spawned", "{name}");
            assert!(status.await.unwrap().success(), "{name}");
            // The child and the dropped `Command` held the only write ends.
            assert_eq!(rx.read(&mut buf).await.unwrap(), 0, "{name}");
        });
    }
}

/// A piped stream is closed as soon as `status` spawns: a child writing more than a pipe holds
/// ends (on SIGPIPE) instead of blocking on a pipe nobody reads.
#[test]
fn status_closes_piped_streams() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let status = Command::new("sh")
                .args(["-c", "head -c 1000000 /dev/zero"])
                .stdout(Stdio::piped())
                .status()
                .await
                .unwrap();
            assert!(
                !status.success(),
                "{name}: the write to a closed pipe succeeded"
            );
        });
    }
}

/// `output` also spawns at the call: its future outlives the `Command` it came from.
#[test]
fn output_future_outlives_its_command() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let out = {
                let mut cmd = Command::new("echo");
                cmd.arg("hi");
                cmd.output()
            };
            let out = out.await.unwrap();
            assert_eq!(out.stdout, b"hi\n", "{name}");
        });
    }
}
