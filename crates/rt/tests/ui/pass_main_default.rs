// `#[rt::main]` with no options: a multi_thread runtime runs the body and the tasks it spawns.

#![deny(warnings)]

#[rt::main]
async fn main() {
    let value = rt::spawn(async { 1 }).await.unwrap();
    assert_eq!(value, 1);
}
