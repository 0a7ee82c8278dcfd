// rt-io's test hook, public in rt-io under its `test-hooks` feature, is never part of `rt::net`.
use rt::net::TestResolver;

fn main() {}
