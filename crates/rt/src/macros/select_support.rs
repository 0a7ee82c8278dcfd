//! What `select!` expansions name through `$crate::__private`: the nested output enum, the
//! "all branches disabled" marker, the type of the disabled-branch mask, the budget check and
//! the thread-local random start branch.

use std::cell::Cell;
use std::task::{Context, Poll};

/// The output of one `select!` call: branch `k` finished with `There^k(Here(value))`, and
/// `There^n(Disabled)` means every branch was disabled. Nesting instead of one generated enum
/// keeps `select!` a `macro_rules!` macro. Not part of the public API.
#[doc(hidden)]
#[derive(Debug)]
pub enum Out<A, R> {
    /// This branch finished with this value.
    Here(A),
    /// A later branch (or none) finished.
    There(R),
}

/// Every branch of a `select!` was disabled. Not part of the public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct Disabled;

/// A `select!` of `N` branches: its [`BranchMask`]. Not part of the public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct Branches<const N: u32>;

/// The type of a `select!`'s disabled-branch mask: the smallest unsigned integer with a bit per
/// branch (`u8` up to 8 branches, ..., `u64` up to 64), so a small `select!`'s future stays
/// small. Not part of the public API.
#[doc(hidden)]
pub trait BranchMask {
    /// The mask.
    type Mask;
}

macro_rules! branch_masks {
    ($mask:ty: $($n:literal)*) => {
        $(impl BranchMask for Branches<$n> {
            type Mask = $mask;
        })*
    };
}
branch_masks!(u8: 1 2 3 4 5 6 7 8);
branch_masks!(u16: 9 10 11 12 13 14 15 16);
branch_masks!(u32: 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
branch_masks!(u64: 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58
    59 60 61 62 63 64);

/// `Pending` (with the task woken to come back) when the task's cooperative budget is spent:
/// a `select!` then yields before polling any branch, as tokio's does, since its budget-aware
/// branches would yield anyway and the others do not cooperate. Not part of the public API.
#[doc(hidden)]
pub fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    if rt_core::coop::has_budget_remaining() {
        Poll::Ready(())
    } else {
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

rt_core::sync::thread_local! {
    static RNG: Cell<u32> = const { Cell::new(0) };
}

/// A random number in `0..n` from a per-thread xorshift32 generator (seeded from the thread's
/// address of the generator on first use): where a non-`biased` `select!` starts polling.
#[doc(hidden)]
pub fn thread_rng_n(n: u32) -> u32 {
    RNG.with(|rng| {
        let mut x = rng.get();
        if x == 0 {
            // Any non-zero seed works; the address differs between threads.
            x = (rng as *const Cell<u32> as usize as u32) | 1;
        }
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        rng.set(x);
        // Lemire's multiply-shift: uniform enough for choosing a start branch.
        ((u64::from(x) * u64::from(n)) >> 32) as u32
    })
}
