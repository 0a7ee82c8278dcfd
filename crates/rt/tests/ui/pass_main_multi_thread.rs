// The multi_thread flavor named explicitly.

#![deny(warnings)]

#[rt::main(flavor = "multi_thread")]
async fn main() {
    let handles: Vec<_> = (0..16u32)
        .map(|i| rt::spawn(async move { i * 2 }))
        .collect();
    let mut sum = 0;
    for handle in handles {
        sum += handle.await.unwrap();
    }
    assert_eq!(sum, 240);
}
