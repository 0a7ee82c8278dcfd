//! What `#[rt::main]` and `#[rt::test]` accept and reject, checked by compiling the files in `tests/ui`.
//!
//! `ui/pass_*.rs` must compile and their `main` must run to completion; `ui/fail_*.rs` must fail to compile
//! with exactly the diagnostics in the `.stderr` file next to them (regenerate with `TRYBUILD=overwrite`
//! and read the result before keeping it). The behaviour of the generated code at run time is checked in
//! `macros_runtime.rs`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_*.rs");
    cases.compile_fail("tests/ui/fail_*.rs");
}
