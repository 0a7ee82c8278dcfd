#[rt::main(foo = 1)]
async fn with_value() {}

#[rt::main(core_threads = 2)]
async fn tokio_only_option() {}

#[rt::test(multi_thread)]
async fn bare_flavor() {}

fn main() {}
