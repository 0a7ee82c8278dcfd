#[rt::main(crate = rt)]
async fn not_a_string() {}

#[rt::main(crate = "not a path")]
async fn not_a_path() {}

fn main() {}
