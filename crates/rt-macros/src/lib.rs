//! `#[rt::main]` and `#[rt::test]`: run an `async fn` to completion on a fresh `rt` runtime.
//!
//! Users reach these through the facade, as `rt::main` and `rt::test`; this crate is not meant to be named
//! directly. Each attribute turns
//!
//! ```text
//! #[rt::main]
//! async fn main() -> std::io::Result<()> {
//!     let answer = rt::spawn(async { 42 }).await.unwrap();
//!     println!("{answer}");
//!     Ok(())
//! }
//! ```
//!
//! into a plain `fn main() -> std::io::Result<()>` that builds a runtime with `rt::Builder` and calls
//! `block_on` on the body. The options (see `config.rs`) are
//!
//! - `flavor = "multi_thread"` (the default for `main`) or `flavor = "current_thread"` (the default for
//!   `test`, as in tokio);
//! - `worker_threads = N`, only with the multi_thread flavor;
//! - `crate = "path"`, when the facade is depended on under another name.
//!
//! The examples here are `text` because this crate cannot depend on the facade; `crates/rt/tests/ui`
//! compiles and runs them.
//!
//! Invariants:
//! - The generated code names the runtime only through `<crate>::Builder` (`new_multi_thread`,
//!   `new_current_thread`, `worker_threads`, `build`, `block_on`) and `core`; nothing else of `rt`.
//! - Every rejected input is reported with `syn::Error` spanned on the offending tokens, and the function is
//!   still emitted (without running anything) so that one mistake does not cause a cascade of errors.
//!
//! Code map: `entry.rs` checks the function and writes the expansion, `config.rs` parses the options,
//! `errors.rs` gathers several errors into one.
#![warn(missing_docs)]

mod clean_pattern;
mod config;
mod entry;
mod errors;

use proc_macro::TokenStream;

use crate::entry::EntryKind;

/// Runs `async fn main` on an `rt` runtime (multi_thread unless `flavor = "current_thread"` is given).
///
/// Options: `flavor = "multi_thread" | "current_thread"`, `worker_threads = N` (multi_thread only),
/// `crate = "path"`.
///
/// ```text
/// #[rt::main(worker_threads = 4)]
/// async fn main() {
///     assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::expand(EntryKind::Main, args.into(), item.into()).into()
}

/// Marks an `async fn` as a test that runs on its own `rt` runtime (current_thread unless
/// `flavor = "multi_thread"` is given).
///
/// Takes the same options as [`macro@main`].
///
/// ```text
/// #[rt::test(flavor = "multi_thread", worker_threads = 2)]
/// async fn spawns() {
///     assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
/// }
/// ```
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::expand(EntryKind::Test, args.into(), item.into()).into()
}

/// The pattern of an `rt::select!` branch without `ref` and `mut` binding modes (an
/// implementation detail of `select!`, not a public API).
/// `#[tokio::main]` for the `tokio` face crate: [`macro@main`] with its paths under `::tokio`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::expand(EntryKind::TokioMain, args.into(), item.into()).into()
}

/// `#[tokio::test]` for the `tokio` face crate: [`macro@test`] with its paths under `::tokio`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry::expand(EntryKind::TokioTest, args.into(), item.into()).into()
}

#[doc(hidden)]
#[proc_macro]
pub fn select_clean_pattern(input: TokenStream) -> TokenStream {
    clean_pattern::clean(input.into()).into()
}
