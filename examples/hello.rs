//! The smallest `rt` program: `#[rt::main]` starts a multi-threaded runtime, runs `main`'s body on it and
//! shuts it down when the body returns.
//!
//! Run with `cargo run --example hello`.

#[rt::main]
async fn main() {
    let squares: Vec<_> = (1..=4u32)
        .map(|i| rt::spawn(async move { i * i }))
        .collect();
    let mut sum = 0;
    for square in squares {
        sum += square.await.expect("a task panicked");
    }
    println!("hello from rt: 1 + 4 + 9 + 16 = {sum}");
}
