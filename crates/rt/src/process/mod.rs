//! Child processes, tokio's `process` shape: [`Command`] builds and spawns, [`Child`] waits.
//!
//! A child's exit is noticed through its **pidfd** (`pidfd_open`, Linux 5.3+), registered with
//! the reactor for readability: no thread per child, no SIGCHLD handler. The pidfd becomes
//! readable when the child exits; the wait then reaps it with a non-blocking `waitpid`. Its
//! standard streams, when piped, are non-blocking pipe ends registered with the reactor
//! (`pipe.rs`).
//!
//! The pidfd is registered with the spawning runtime's reactor. A wait that finds that reactor
//! shut down (the runtime was dropped) registers a copy with the reactor of the runtime it runs
//! on and goes on waiting there, as tokio's pidfd reaper does; so a child may be spawned on one
//! runtime and waited on from another.
//!
//! Spawning (fork/exec) is synchronous, as in tokio: it is quick and does not wait on the child.
//!
//! A `Child` dropped before it was reaped (and killed first with [`Command::kill_on_drop`]) is
//! kept in a process-wide orphan list and reaped, without blocking, at the next spawn or wait of
//! any child — tokio's orphan queue, without its SIGCHLD listener: a zombie lasts at most until
//! the program next spawns or waits.
//!
//! ```
//! # rt::Runtime::new()?.block_on(async {
//! let out = rt::process::Command::new("echo").arg("hi").output().await?;
//! assert!(out.status.success());
//! assert_eq!(out.stdout, b"hi\n");
//! # Ok::<(), std::io::Error>(()) })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Child processes (`rt::process`)
//!
//! ```rust
//! use std::process::Stdio;
//! use rt::io::{AsyncReadExt, AsyncWriteExt};
//!
//! let rt = rt::Runtime::new()?;
//! rt.block_on(async {
//!     let out = rt::process::Command::new("sh").args(["-c", "echo hi; exit 3"]).output().await?;
//!     assert_eq!((out.status.code(), &out.stdout[..]), (Some(3), &b"hi\n"[..]));
//!
//!     let mut cat = rt::process::Command::new("cat")
//!         .stdin(Stdio::piped())
//!         .stdout(Stdio::piped())
//!         .kill_on_drop(true)
//!         .spawn()?;
//!     cat.stdin.take().unwrap().write_all(b"ping").await?; // dropped: cat sees end-of-file
//!     let mut echoed = String::new();
//!     cat.stdout.take().unwrap().read_to_string(&mut echoed).await?;
//!     assert_eq!(echoed, "ping");
//!     assert!(cat.wait().await?.success());
//!     Ok::<(), std::io::Error>(())
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! A child's exit is noticed through its pidfd (Linux 5.3+) registered with the reactor — no thread
//! per child, no SIGCHLD handler; piped streams are non-blocking pipes on the reactor. A `Child`
//! dropped before it was reaped (killed first with `kill_on_drop(true)`) is reaped at the next
//! spawn or wait.

mod pipe;

pub use pipe::{ChildStderr, ChildStdin, ChildStdout};
pub use std::process::{ExitStatus, Output, Stdio};

use std::ffi::OsStr;
use std::fmt;
use std::future::Future;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;

use rt_core::sync::unmodelled;
use rt_io::io::{AsyncFd, Interest};

/// Builds a child process: tokio's `Command` (std's builder, with async `output`/`status`, rt
/// streams for piped stdio, and [`Command::kill_on_drop`]).
pub struct Command {
    std: std::process::Command,
    kill_on_drop: bool,
    /// Which of stdin/stdout/stderr the caller set: `output` fills in the others with its own
    /// defaults (null, piped, piped) for that call only.
    set: [bool; 3],
}

impl Command {
    /// A command running `program`, with std's defaults (inherit the environment, the working
    /// directory and the three streams).
    pub fn new(program: impl AsRef<OsStr>) -> Command {
        Command::from(std::process::Command::new(program))
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Sets an environment variable.
    pub fn env(&mut self, key: impl AsRef<OsStr>, val: impl AsRef<OsStr>) -> &mut Command {
        self.std.env(key, val);
        self
    }

    /// Sets environment variables.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Clears the environment (nothing is inherited).
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// The child's working directory.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// The child's standard input.
    pub fn stdin(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.std.stdin(cfg);
        self.set[0] = true;
        self
    }

    /// The child's standard output.
    pub fn stdout(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.std.stdout(cfg);
        self.set[1] = true;
        self
    }

    /// The child's standard error.
    pub fn stderr(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.std.stderr(cfg);
        self.set[2] = true;
        self
    }

    /// Whether dropping the [`Child`] before it was reaped kills it (default `false`: the child
    /// runs on, and is reaped in the background when it exits).
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// Whether [`Command::kill_on_drop`] is set.
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// The child's `argv[0]`, instead of the program's path (`CommandExt::arg0`).
    pub fn arg0(&mut self, arg: impl AsRef<std::ffi::OsStr>) -> &mut Command {
        self.std.arg0(arg);
        self
    }

    /// The child's user id.
    pub fn uid(&mut self, id: u32) -> &mut Command {
        self.std.uid(id);
        self
    }

    /// The child's group id.
    pub fn gid(&mut self, id: u32) -> &mut Command {
        self.std.gid(id);
        self
    }

    /// The child's process group (`0`: a new group led by the child).
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        self.std.process_group(pgroup);
        self
    }

    /// The std builder inside.
    pub fn as_std(&self) -> &std::process::Command {
        &self.std
    }

    /// The std builder inside, mutably (streams set through it count as unset for `output`).
    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        &mut self.std
    }

    /// Starts the child. Its piped streams become rt streams in [`Child`]'s fields.
    ///
    /// The child belongs to no runtime: [`Child::wait`] may be awaited on another runtime than
    /// the one it was spawned on, even after that one was dropped (its exit is then watched
    /// from the runtime of the wait). Its pipes stay on the runtime of the spawn.
    ///
    /// # Panics
    /// Outside an rt runtime (the pidfd and pipes register with its reactor), before the fork,
    /// so no child is left running unwatched. rt's message says where to call it from; under
    /// the `tokio-face` feature it is tokio's ("there is no reactor running, must be called
    /// from the context of a Tokio 1.x runtime"; tokio panics after the fork).
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        // Checked before the fork: a child must never be left running unwatched.
        if rt_io::Handle::try_current().is_none() {
            #[cfg(feature = "tokio-face")]
            panic!("{}", rt_core::messages::NO_RUNTIME);
            #[cfg(not(feature = "tokio-face"))]
            panic!(
                "rt::process::Command::spawn called outside of an rt runtime: call it from a \
                 task, inside Runtime::block_on or #[rt::main] (the child's pidfd and pipes \
                 register with the runtime's reactor)"
            );
        }
        reap_orphans();
        let mut std = self.std.spawn()?;
        let pidfd = match pidfd_open(std.id()) {
            Ok(fd) => AsyncFd::with_interest(fd, Interest::READABLE),
            Err(e) => Err(e),
        };
        let pidfd = match pidfd {
            Ok(p) => p,
            Err(e) => {
                // Not left running unwatched: kill and reap it (it has not exec'd anything
                // that could ignore SIGKILL), then report.
                let _ = std.kill();
                let _ = std.wait();
                return Err(e);
            }
        };
        let stdin = std
            .stdin
            .take()
            .map(ChildStdin::from_std_child)
            .transpose()?;
        let stdout = std
            .stdout
            .take()
            .map(ChildStdout::from_std_child)
            .transpose()?;
        let stderr = std
            .stderr
            .take()
            .map(ChildStderr::from_std_child)
            .transpose()?;
        Ok(Child {
            std: Some(std),
            pidfd,
            status: None,
            kill_on_drop: self.kill_on_drop,
            stdin,
            stdout,
            stderr,
        })
    }

    /// Spawns the child now and returns a future of its exit status, as tokio's `status`: the
    /// future does not borrow the `Command` (it may be dropped, or reused, before the wait), and
    /// the child runs whether or not the future is ever polled. The streams default to
    /// inherited; a piped one is closed at once, so the child cannot block on a pipe nobody
    /// reads. Dropping the future drops the [`Child`] (killed first with
    /// [`Command::kill_on_drop`]).
    ///
    /// # Panics
    /// Outside an rt runtime, as [`Command::spawn`].
    #[track_caller]
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> + Send + 'static {
        let child = self.spawn();
        async move {
            let mut child = child?;
            child.stdin = None;
            child.stdout = None;
            child.stderr = None;
            child.wait().await
        }
    }

    /// Spawns the child now and returns a future of its exit status and whole output, as
    /// tokio's `output`: the future does not borrow the `Command`. Streams the caller did not
    /// set default to null (stdin) and piped (stdout, stderr) for this call, as in std.
    ///
    /// # Panics
    /// Outside an rt runtime, as [`Command::spawn`].
    #[track_caller]
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> + Send + 'static {
        let set = self.set;
        if !set[0] {
            self.std.stdin(Stdio::null());
        }
        if !set[1] {
            self.std.stdout(Stdio::piped());
        }
        if !set[2] {
            self.std.stderr(Stdio::piped());
        }
        let child = self.spawn();
        // Back to `spawn`'s defaults for the streams this call chose.
        if !set[0] {
            self.std.stdin(Stdio::inherit());
        }
        if !set[1] {
            self.std.stdout(Stdio::inherit());
        }
        if !set[2] {
            self.std.stderr(Stdio::inherit());
        }
        async move { child?.wait_with_output().await }
    }
}

impl From<std::process::Command> for Command {
    fn from(std: std::process::Command) -> Command {
        Command {
            std,
            kill_on_drop: false,
            set: [false; 3],
        }
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Command")
            .field("std", &self.std)
            .field("kill_on_drop", &self.kill_on_drop)
            .finish()
    }
}

/// A spawned child process: tokio's `Child`.
pub struct Child {
    /// `None` once reaped (the pid may then belong to another process).
    std: Option<std::process::Child>,
    /// Readable once the child has exited.
    pidfd: AsyncFd<OwnedFd>,
    status: Option<ExitStatus>,
    kill_on_drop: bool,
    /// The child's stdin, when it was `Stdio::piped()`.
    pub stdin: Option<ChildStdin>,
    /// The child's stdout, when it was `Stdio::piped()`.
    pub stdout: Option<ChildStdout>,
    /// The child's stderr, when it was `Stdio::piped()`.
    pub stderr: Option<ChildStderr>,
}

impl Child {
    /// The child's process id, or `None` once it has been reaped.
    pub fn id(&self) -> Option<u32> {
        self.std.as_ref().map(|c| c.id())
    }

    /// The exit status if the child has exited (reaping it), without waiting.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(s) = self.status {
            return Ok(Some(s));
        }
        let std = self
            .std
            .as_mut()
            .expect("a child without status is not reaped");
        let status = std.try_wait()?;
        if let Some(s) = status {
            self.status = Some(s);
            self.std = None;
        }
        Ok(status)
    }

    /// Waits for the child to exit and reaps it. Closes the child's stdin first (if piped and
    /// still here), so a child reading it sees end-of-file.
    ///
    /// The wait may run on another runtime than the spawn's: while the spawn's runtime runs, its
    /// reactor watches the child; once that runtime has shut down, the child is watched from
    /// the runtime of the wait, as tokio's. Polled outside any runtime after the spawn's one
    /// shut down, it returns that runtime's shutdown error
    /// ([`is_rt_shutdown_err`](crate::runtime::is_rt_shutdown_err)).
    ///
    /// # Cancel safety
    /// Cancel safe: call it again to go on waiting.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        loop {
            if let Some(s) = self.try_wait()? {
                reap_orphans();
                return Ok(s);
            }
            let mut guard = match self.pidfd.readable().await {
                Ok(guard) => guard,
                Err(e) if rt_io::is_rt_shutdown_err(&e) => {
                    self.watch_from_current(e)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let exited = self.std.as_mut().map_or(Ok(None), |c| c.try_wait())?;
            match exited {
                Some(s) => {
                    self.status = Some(s);
                    self.std = None;
                }
                None => guard.clear_ready(),
            }
        }
    }

    /// The reactor watching the pidfd has shut down (`stopped`, its error): registers a copy
    /// of the pidfd with the current runtime's reactor instead, or returns `stopped` outside
    /// any runtime.
    fn watch_from_current(&mut self, stopped: io::Error) -> io::Result<()> {
        if rt_io::Handle::try_current().is_none() {
            return Err(stopped);
        }
        let fd = self.pidfd.get_ref().try_clone()?;
        // The old registration (on the stopped reactor) goes with its fd.
        self.pidfd = AsyncFd::with_interest(fd, Interest::READABLE)?;
        Ok(())
    }

    /// Sends SIGKILL without waiting. Once the child has exited and been reaped (by
    /// [`wait`](Child::wait) or [`try_wait`](Child::try_wait)) there is nothing to kill, and
    /// it returns `Ok(())`, as tokio's does.
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.std {
            // Not reaped, so the pid is still this child's.
            Some(c) => c.kill(),
            None => Ok(()),
        }
    }

    /// Sends SIGKILL and waits for the child to exit (`Ok(())` at once if it already has been
    /// reaped).
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await.map(drop)
    }

    /// Waits for the child to exit while reading all of its piped stdout and stderr.
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        let stdout = self.stdout.take();
        let stderr = self.stderr.take();
        let (status, stdout, stderr) = crate::join!(
            self.wait(),
            pipe::read_to_end(stdout),
            pipe::read_to_end(stderr)
        );
        Ok(Output {
            status: status?,
            stdout: stdout?,
            stderr: stderr?,
        })
    }
}

impl fmt::Debug for Child {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Child")
            .field("pid", &self.id())
            .field("status", &self.status)
            .field("kill_on_drop", &self.kill_on_drop)
            .field("stdin", &self.stdin)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .finish()
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let Some(mut std) = self.std.take() else {
            return;
        };
        if self.kill_on_drop {
            let _ = std.kill();
        }
        // Otherwise reaped now, or not ours to reap any more.
        if let Ok(None) = std.try_wait() {
            ORPHANS.lock().unwrap_or_else(|e| e.into_inner()).push(std);
        }
    }
}

/// Children dropped before they were reaped; reaped by [`reap_orphans`]. Process-wide and part
/// of no lock-free protocol: `rt_core::sync::unmodelled`'s std `Mutex`.
static ORPHANS: unmodelled::Mutex<Vec<std::process::Child>> = unmodelled::Mutex::new(Vec::new());

/// Reaps every orphan that has exited, without blocking.
fn reap_orphans() {
    let mut orphans = ORPHANS.lock().unwrap_or_else(|e| e.into_inner());
    orphans.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
}

/// `pidfd_open(pid, 0)`: an fd that becomes readable when the process exits.
fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1; no memory is passed.
    let fd =
        rt_io::syscall::cvt(unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) })?;
    // SAFETY: the syscall returned a new fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}
