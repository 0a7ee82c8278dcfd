//! `rt::task::id()` works while a task's future or output is dropped, as in tokio: the task's
//! id is current in those destructors, on whichever thread runs them.

use std::sync::{Arc, Mutex};

mod support;

/// Records `task::try_id()` when dropped.
struct RecordsId(Arc<Mutex<Option<Option<rt::task::Id>>>>);

impl Drop for RecordsId {
    fn drop(&mut self) {
        *self.0.lock().unwrap() = Some(rt::task::try_id());
    }
}

#[test]
fn in_the_future_destructor_when_aborted() {
    let seen = Arc::new(Mutex::new(None));
    let rt = support::current_thread();
    let record = RecordsId(seen.clone());
    let join = rt.spawn(async move {
        let _record = record;
        std::future::pending::<()>().await
    });
    let id = join.id();
    rt.block_on(async {
        rt::task::yield_now().await;
        join.abort();
        assert!(join.await.unwrap_err().is_cancelled());
    });
    assert_eq!(*seen.lock().unwrap(), Some(Some(id)));
}

#[test]
fn in_the_output_destructor_when_the_handle_drops_it() {
    let seen = Arc::new(Mutex::new(None));
    let rt = support::current_thread();
    let record = RecordsId(seen.clone());
    let join = rt.spawn(async move { record });
    let id = join.id();
    rt.block_on(async { rt::task::yield_now().await });
    // The task has finished; its output waits in the cell and drops with the handle, here,
    // outside any task.
    drop(join);
    assert_eq!(*seen.lock().unwrap(), Some(Some(id)));
    assert_eq!(rt::task::try_id(), None, "not left current afterwards");
}
