// Every form of `#[rt::test]` is accepted. (A non-test build drops test functions, so these only prove
// that the attribute expands; `macros_runtime.rs` runs them.)

#![deny(warnings)]

#[rt::test]
async fn default_flavor() {
    assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
}

#[rt::test(flavor = "current_thread")]
async fn current_thread() {}

#[rt::test(flavor = "multi_thread")]
async fn multi_thread() {}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers() {}

#[rt::test(crate = "rt")]
async fn crate_path() {}

#[rt::test]
async fn returns_result() -> Result<(), std::num::ParseIntError> {
    let _: u32 = "7".parse()?;
    Ok(())
}

#[rt::test]
#[should_panic(expected = "boom")]
async fn panics() {
    panic!("boom");
}

fn main() {}
