// A crate path that does not resolve is reported on the option, not on the body.

#[rt::main(crate = "not_rt")]
async fn main() {}
