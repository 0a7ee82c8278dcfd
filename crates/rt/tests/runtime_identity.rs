//! `Builder::name`, `Handle::name` and `Handle::id`, as tokio's.

mod support;

#[test]
fn a_runtime_has_no_name_unless_given_one() {
    let plain = support::current_thread();
    assert_eq!(plain.handle().name(), None);
    let named = rt::Builder::new_multi_thread()
        .worker_threads(1)
        .name("ingest")
        .build()
        .unwrap();
    assert_eq!(named.handle().name(), Some("ingest"));
    let inside = named.block_on(async { rt::Handle::current().name().map(str::to_owned) });
    assert_eq!(inside.as_deref(), Some("ingest"));
}

#[test]
fn an_empty_name_panics_at_the_caller() {
    let err = std::panic::catch_unwind(|| {
        rt::Builder::new_current_thread().name("  ");
    })
    .unwrap_err();
    assert_eq!(
        err.downcast_ref::<&str>().copied(),
        Some("runtime name shouldn't be empty")
    );
}

#[test]
fn ids_are_per_runtime() {
    let a = support::current_thread();
    let b = support::current_thread();
    assert_eq!(a.handle().id(), a.handle().clone().id());
    assert_ne!(a.handle().id(), b.handle().id());
    let inside: rt::runtime::Id = a.block_on(async { rt::Handle::current().id() });
    assert_eq!(inside, a.handle().id());
    assert_ne!(a.handle().id().to_string(), b.handle().id().to_string());
}

#[rt::test(name = "from-the-attribute")]
async fn the_test_attribute_names_the_runtime() {
    assert_eq!(rt::Handle::current().name(), Some("from-the-attribute"));
}
