//! A killed child's status says SIGKILL (`kill().await` and `start_kill` + `wait`), killing a
//! reaped child again does nothing and succeeds, and `try_wait` sees the exit.

mod support;

use std::os::unix::process::ExitStatusExt;

use rt::process::Command;

#[test]
fn a_killed_childs_status() {
    for (name, rt) in support::runtimes() {
        rt.block_on(async {
            let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
            assert!(child.id().is_some());
            assert!(child.try_wait().unwrap().is_none(), "{name}");
            child.kill().await.unwrap();
            let status = child.wait().await.unwrap();
            assert_eq!(status.signal(), Some(libc::SIGKILL), "{name}");
            assert!(!status.success());
            assert_eq!(child.try_wait().unwrap(), Some(status));
            // Reaped: nothing left to kill, and that is no error (as tokio's).
            child.start_kill().unwrap();
            child.kill().await.unwrap();
            assert_eq!(child.wait().await.unwrap(), status);

            let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
            child.start_kill().unwrap();
            let status = child.wait().await.unwrap();
            assert_eq!(status.signal(), Some(libc::SIGKILL), "{name}");
        });
    }
}
