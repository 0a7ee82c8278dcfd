//! `select!`, `join!` and `try_join!`, and the `#[doc(hidden)]` helpers their expansions name through
//! `$crate::__private`.

mod join;
mod maybe_done;
mod select;
mod select_support;

pub use maybe_done::MaybeDone;
pub use select_support::{thread_rng_n, Disabled, Out};
