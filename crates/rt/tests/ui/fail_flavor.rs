#[rt::main(flavor = "single_thread")]
async fn unknown() {}

#[rt::main(flavor = multi_thread)]
async fn not_a_string() {}

#[rt::main(flavor)]
async fn no_value() {}

#[rt::main(flavor = "multi_thread", flavor = "current_thread")]
async fn twice() {}

fn main() {}
