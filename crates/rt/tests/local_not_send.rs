//! What must not compile around local tasks: sending a `LocalSet`, or the `JoinHandle` of a
//! local task whose output is `!Send`, to another thread (`tests/ui_local`; regenerate the
//! `.stderr` with `TRYBUILD=overwrite` and read it before keeping it).

#[test]
fn ui_local() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui_local/fail_*.rs");
}
