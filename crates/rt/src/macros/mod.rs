//! `join!` and `try_join!`, and the `#[doc(hidden)]` helpers their expansions name through
//! `$crate::__private`.

mod join;
mod maybe_done;

pub use maybe_done::MaybeDone;
