//! A signal-handling task takes a dump when the process gets `SIGQUIT` (what
//! `examples/dump.rs` does), while another task blocks its worker.

use std::sync::mpsc;
use std::time::Duration;

use rt::signal::unix::{signal, SignalKind};
use rt::TaskState;

#[test]
fn a_signal_task_dumps_on_sigquit() {
    let rt = rt::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (entered_tx, entered_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let busy = rt::task::Builder::new()
        .name("busy")
        .spawn_on(
            async move {
                entered_tx.send(()).unwrap();
                release_rx.recv().unwrap();
            },
            rt.handle(),
        )
        .unwrap();
    entered_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the busy task never ran");
    let (ready_tx, ready_rx) = mpsc::channel();
    let watcher = rt::task::Builder::new()
        .name("on-sigquit")
        .spawn_on(
            async move {
                let mut quit = signal(SignalKind::quit()).unwrap();
                ready_tx.send(()).unwrap();
                quit.recv().await.unwrap();
                rt::Handle::current().dump()
            },
            rt.handle(),
        )
        .unwrap();
    ready_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the signal task never ran");
    // SAFETY: raising a signal this process handles (the watcher's handler is installed).
    assert_eq!(unsafe { libc::raise(libc::SIGQUIT) }, 0);
    let d = rt.block_on(watcher).unwrap();
    let find = |name| {
        d.iter()
            .find(|t| t.name() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{d}"))
    };
    assert!(
        matches!(
            find("busy").state(),
            TaskState::Running {
                worker: Some(_),
                since: Some(_)
            }
        ),
        "{d}"
    );
    assert!(
        matches!(
            find("on-sigquit").state(),
            TaskState::Running {
                worker: Some(_),
                ..
            }
        ),
        "{d}"
    );
    release_tx.send(()).unwrap();
    rt.block_on(busy).unwrap();
}
