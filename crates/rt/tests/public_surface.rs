//! rt's public boundary is written out item by item (`src/net.rs`, `src/time.rs`,
//! `src/sync.rs`): an inner crate's test-only item stays out of `rt::` even when feature
//! unification turns it on, as `cargo test --workspace` does for rt-io's `test-hooks`
//! (`tests/ui_surface`; regenerate the `.stderr` with `TRYBUILD=overwrite` and read it before
//! keeping it).

#[test]
fn test_only_items_are_not_public() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui_surface/pass_*.rs");
    cases.compile_fail("tests/ui_surface/fail_*.rs");
}

/// tokio's paths that the explicit lists must keep.
#[test]
fn tokio_paths_resolve() {
    use rt::sync::futures::Notified;
    use rt::time::error::{Elapsed, Error};
    fn named<T>() -> &'static str {
        std::any::type_name::<T>()
    }
    assert!(named::<Notified<'static>>().contains("Notified"));
    assert!(named::<Elapsed>().contains("Elapsed"));
    assert!(Error::shutdown().is_shutdown());
    assert!(!Error::invalid().is_at_capacity());
    assert_eq!(
        Error::at_capacity().to_string(),
        "timer is at capacity and cannot create a new entry"
    );
    assert!(named::<rt::net::tcp::OwnedReadHalf>().contains("OwnedReadHalf"));
    assert!(named::<rt::net::unix::UCred>().contains("UCred"));
    assert_eq!(
        rt::sync::mutex::DEFAULT_FAIRNESS_BOUND,
        std::time::Duration::from_micros(500)
    );
}
