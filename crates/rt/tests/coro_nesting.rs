//! Nesting: a body that creates and resumes another coroutine, 1,000 deep, each level yielding
//! through every level above it. The bar is a release build on a thread with the
//! default 2 MiB stack; a debug build's frames are many times larger, so under
//! `debug_assertions` the same depth runs on a thread with a larger stack.

use rt::coro::{Co, Coroutine, Resumed};

const DEPTH: u32 = 1_000;

#[cfg(debug_assertions)]
const STACK: usize = 256 << 20;
#[cfg(not(debug_assertions))]
const STACK: usize = 2 << 20;

/// Level `depth` yields `depth`, then relays every yield of the level below it, then returns
/// the sum of what it relayed plus its own depth.
fn level(depth: u32) -> Coroutine<u32, (), u64> {
    Coroutine::new(move |co: Co<u32>, ()| async move {
        co.yield_(depth).await;
        if depth == 0 {
            return 0;
        }
        let mut inner = level(depth - 1);
        let mut sum = u64::from(depth);
        loop {
            match inner.resume(()).unwrap() {
                Resumed::Yield(y) => co.yield_(y).await,
                Resumed::Return(s) => {
                    sum += s;
                    break;
                }
            }
        }
        sum
    })
}

#[test]
fn nesting_a_thousand_deep() {
    let out = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(|| {
            let mut co = level(DEPTH);
            let mut yields = Vec::new();
            loop {
                match co.resume(()).unwrap() {
                    Resumed::Yield(y) => yields.push(y),
                    Resumed::Return(sum) => break (yields, sum),
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
    let (yields, sum) = out;
    assert_eq!(yields, (0..=DEPTH).rev().collect::<Vec<_>>());
    assert_eq!(sum, u64::from(DEPTH) * u64::from(DEPTH + 1) / 2);
}
