// `#[rt::main]` on a function that is not `main` makes an ordinary blocking function, which may take
// arguments, return a value and be public.

#![deny(warnings)]

#[rt::main(flavor = "current_thread")]
pub async fn double(n: u32) -> u32 {
    rt::spawn(async move { n * 2 }).await.unwrap()
}

fn main() {
    assert_eq!(double(21), 42);
    assert_eq!(double(1), 2);
}
