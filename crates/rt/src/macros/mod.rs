//! `select!`, `join!`, `try_join!` and `pin!`, and the `#[doc(hidden)]` helpers their expansions name through
//! `$crate::__private`.

mod join;
mod maybe_done;
mod pin;
mod rotator;
mod select;
mod select_support;

pub use maybe_done::MaybeDone;
pub use rotator::{BiasedRotator, JoinRotator};
pub use select_support::{
    poll_budget_available, thread_rng_n, BranchMask, Branches, Disabled, Out,
};

/// What tokio's macros name at `tokio::macros::support`, at the same path: code written
/// against tokio calls `poll_fn` there (its `PollFn` is `Unpin` exactly when the closure is,
/// as tokio's).
#[doc(hidden)]
pub mod support {
    pub use std::future::poll_fn;
}
