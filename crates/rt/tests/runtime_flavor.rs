//! `Handle::runtime_flavor` names the scheduler, and tokio's `runtime::{Builder, Runtime,
//! Handle, RuntimeFlavor}` import paths resolve.

use rt::runtime::{Builder, Handle, Runtime, RuntimeFlavor};

#[test]
fn each_builder_reports_its_flavor() {
    let multi: Runtime = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let current: Runtime = Builder::new_current_thread().build().unwrap();
    assert_eq!(multi.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
    assert_eq!(
        current.handle().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    // From inside a task, through `Handle::current`, as tokio code asks it.
    let inside = multi
        .block_on(multi.spawn(async { Handle::current().runtime_flavor() }))
        .unwrap();
    assert_eq!(inside, RuntimeFlavor::MultiThread);
    let inside = current.block_on(async { Handle::current().runtime_flavor() });
    assert_eq!(inside, RuntimeFlavor::CurrentThread);
}
