//! Creating, resuming and dropping coroutines (and resetting one) in a loop allocates nothing
//! from the global allocator once warm: frames come from the rt-core frame pool. Counted by a
//! `#[global_allocator]` that counts this thread's allocations only while a test asks it to.
//!
//! Compiled out under `--cfg rt_pool_bypass`, where the pool sends every block to the global
//! allocator on purpose (as the pool's own tests are).
#![cfg(not(rt_pool_bypass))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rt::coro::{Co, Coroutine, Resumed};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every method forwards to `System` with the caller's arguments; counting touches only
// const-initialised thread-locals of `Cell`s, which neither allocate nor register destructors.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations this thread makes while running `f`.
fn allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    COUNT.with(Cell::get)
}

fn cycle(n: u64) {
    let payload = [n; 16]; // a body of a few hundred bytes
    let mut co: Coroutine<u64, u64, u64> =
        Coroutine::new(move |co: Co<u64, u64>, first: u64| async move {
            let got = co.yield_(first + payload[0]).await;
            got + payload[15]
        });
    assert!(matches!(co.resume(1), Ok(Resumed::Yield(y)) if y == n + 1));
    assert!(matches!(co.resume(2), Ok(Resumed::Return(r)) if r == n + 2));
    co.reset(move |_co: Co<u64, u64>, first: u64| async move { first * 2 });
    assert!(matches!(co.resume(3), Ok(Resumed::Return(6))));
}

#[test]
fn coroutines_in_a_loop_allocate_nothing_once_warm() {
    // Warm: the pool's slab for this size class, the id block, the resume waker.
    for n in 0..100 {
        cycle(n);
    }
    let counted = allocations(|| {
        for n in 0..10_000 {
            cycle(n);
        }
    });
    assert_eq!(
        counted, 0,
        "global allocations in 10,000 create/resume/reset/drop cycles"
    );
    // The counter counts: a Box is one allocation.
    assert_eq!(allocations(|| drop(std::hint::black_box(Box::new(1u8)))), 1);
}

/// A body larger than the pool's biggest class (4 KiB) has its frame from the global
/// allocator, which makes `reset`'s reuse of the frame countable.
#[test]
fn reset_reuses_a_frame_the_new_body_fits() {
    fn big_body(fill: u8) -> impl FnOnce(Co<u64, u64>, u64) -> std::future::Ready<u64> + Send {
        let big = [fill; 8 << 10];
        move |_co, first| std::future::ready(first + u64::from(big[0]))
    }
    let mut co: Coroutine<u64, u64, u64> = Coroutine::new(big_body(1));
    assert!(matches!(co.resume(1), Ok(Resumed::Return(2))));
    let counted = allocations(|| {
        for i in 0..100u8 {
            co.reset(big_body(i));
            assert!(matches!(co.resume(1), Ok(Resumed::Return(r)) if r == 1 + u64::from(i)));
        }
    });
    assert_eq!(counted, 0, "reset into a same-size body reuses the frame");

    // A body that does not fit needs a new frame: one allocation.
    let larger = [3u8; 16 << 10];
    let counted = allocations(|| {
        co.reset(move |_co: Co<u64, u64>, first: u64| {
            std::future::ready(first + u64::from(larger[1]))
        })
    });
    assert_eq!(counted, 1);
    assert!(matches!(co.resume(1), Ok(Resumed::Return(4))));
}
