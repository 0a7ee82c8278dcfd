#[rt::main]
struct Main;

fn main() {}
