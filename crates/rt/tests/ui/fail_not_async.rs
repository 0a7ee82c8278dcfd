#[rt::main]
fn main() {}

#[rt::test]
fn not_async_test() {}
