#[rt::main(worker_threads = 0)]
async fn zero() {}

#[rt::main(worker_threads = -2)]
async fn negative() {}

#[rt::main(worker_threads = "4")]
async fn string() {}

#[rt::main(worker_threads = 99999999999999999999999)]
async fn too_large() {}

#[rt::main(flavor = "current_thread", worker_threads = 4)]
async fn current_thread() {}

// `#[rt::test]` defaults to current_thread, so `worker_threads` needs the flavor named.
#[rt::test(worker_threads = 2)]
async fn test_default_flavor() {}

fn main() {}
