#[rt::test]
async fn takes_an_argument(_n: u32) {}

fn main() {}
