//! The options of `#[rt::main(..)]` and `#[rt::test(..)]`.
//!
//! The attribute's arguments are a comma-separated list of `name = value` pairs:
//!
//! | option           | value                                  | default                                    |
//! |------------------|----------------------------------------|--------------------------------------------|
//! | `flavor`         | `"current_thread"`, `"multi_thread"` or `"local"` (a `LocalRuntime`) | main: multi_thread; test: current_thread |
//! | `worker_threads` | an integer literal, at least 1         | the builder's own                          |
//! | `crate`          | a path in a string literal (`"my_rt"`) | `::rt`                                     |
//! | `unhandled_panic`| `"ignore"` or `"shutdown_runtime"`     | `ignore` (the builder's own)               |
//! | `start_paused`   | `true` or `false`                      | `false` (the builder's own)                |
//! | `name`           | the runtime's name, a string literal   | none (`Builder::name`)                     |
//!
//! `worker_threads` is only accepted with the `multi_thread` flavor, whether that flavor was named or is the
//! default. `start_paused` is accepted with both flavours (tokio takes it with `current_thread` only: rt's
//! paused clock works on both). Every option may be given once. All problems found are reported together, each spanned on the
//! token at fault.

use std::fmt;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitInt, LitStr, Meta, MetaNameValue, Token};

use crate::entry::EntryKind;
use crate::errors::Errors;

/// Which scheduler the generated function builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `Builder::new_current_thread()`: every task runs on the thread that calls `block_on`.
    CurrentThread,
    /// `Builder::new_multi_thread()`: a pool of work-stealing workers.
    MultiThread,
    /// `Builder::new_current_thread().build_local(..)`: a `LocalRuntime`, whose thread runs
    /// `!Send` tasks too.
    Local,
}

impl Flavor {
    /// The spelling used in `flavor = "..."`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Flavor::CurrentThread => "current_thread",
            Flavor::MultiThread => "multi_thread",
            Flavor::Local => "local",
        }
    }

    /// The `Builder` constructor for this flavor.
    pub(crate) fn constructor(self) -> &'static str {
        match self {
            Flavor::CurrentThread | Flavor::Local => "new_current_thread",
            Flavor::MultiThread => "new_multi_thread",
        }
    }

    fn from_name(name: &str) -> Option<Flavor> {
        [Flavor::CurrentThread, Flavor::MultiThread, Flavor::Local]
            .into_iter()
            .find(|flavor| flavor.name() == name)
    }
}

/// The checked options of one attribute.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) flavor: Flavor,
    /// `Some` only when the attribute names it; implies `flavor == MultiThread`.
    pub(crate) worker_threads: Option<usize>,
    /// The path the generated code names the runtime crate by (`::rt` unless `crate = ".."` is given).
    pub(crate) crate_path: syn::Path,
    /// `Some("Ignore" | "ShutdownRuntime")`, the `UnhandledPanic` variant, only when the attribute names it.
    pub(crate) unhandled_panic: Option<&'static str>,
    /// `Some(b)` only when the attribute names `start_paused = b`.
    pub(crate) start_paused: Option<bool>,
    /// `Some(name)` only when the attribute names `name = "..."`: `Builder::name`.
    pub(crate) name: Option<LitStr>,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("flavor", &self.flavor)
            .field("worker_threads", &self.worker_threads)
            .field("crate_path", &path_text(&self.crate_path))
            .field("unhandled_panic", &self.unhandled_panic)
            .field("start_paused", &self.start_paused)
            .field("name", &self.name.as_ref().map(LitStr::value))
            .finish()
    }
}

/// Parses and checks the attribute's arguments (the tokens inside the parentheses).
pub(crate) fn parse(kind: EntryKind, args: TokenStream) -> syn::Result<Config> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    let mut options = Options::default();
    let mut errors = Errors::default();
    for meta in &metas {
        errors.record(options.apply(kind, meta));
    }
    errors.finish()?;
    options.finish(kind)
}

/// The options as written, before the checks that relate one option to another.
#[derive(Default)]
struct Options {
    flavor: Option<Flavor>,
    /// The value and the whole `worker_threads = N` option, to span errors on.
    worker_threads: Option<(usize, Meta)>,
    crate_path: Option<syn::Path>,
    unhandled_panic: Option<&'static str>,
    start_paused: Option<bool>,
    name: Option<LitStr>,
}

impl Options {
    fn apply(&mut self, kind: EntryKind, meta: &Meta) -> syn::Result<()> {
        let name = path_text(meta.path());
        match name.as_str() {
            "flavor" => {
                let lit = string_value(kind, meta, "flavor = \"multi_thread\"")?;
                let flavor = Flavor::from_name(&lit.value()).ok_or_else(|| {
                    let msg = format!(
                        "unknown runtime flavor `{}`: expected `current_thread`, `multi_thread` or `local`",
                        lit.value()
                    );
                    syn::Error::new_spanned(&lit, msg)
                })?;
                set_once(&mut self.flavor, flavor, meta)
            }
            "worker_threads" => {
                let lit = int_value(kind, meta)?;
                // syn reads `-1` as one literal, whose digits would not parse as a usize.
                let negative = lit.base10_digits().starts_with('-');
                let count = if negative {
                    0
                } else {
                    lit.base10_parse::<usize>().map_err(|err| {
                        let msg = format!(
                            "the value of `worker_threads` is not a valid thread count: {err}"
                        );
                        syn::Error::new_spanned(&lit, msg)
                    })?
                };
                if count == 0 {
                    let msg = "`worker_threads` must be at least 1";
                    return Err(syn::Error::new_spanned(&lit, msg));
                }
                set_once(&mut self.worker_threads, (count, meta.clone()), meta)
            }
            "unhandled_panic" => {
                let lit = string_value(kind, meta, "unhandled_panic = \"shutdown_runtime\"")?;
                let variant = match lit.value().as_str() {
                    "ignore" => "Ignore",
                    "shutdown_runtime" => "ShutdownRuntime",
                    other => {
                        let msg = format!(
                            "unknown `unhandled_panic` behavior `{other}`: expected `ignore` or `shutdown_runtime`"
                        );
                        return Err(syn::Error::new_spanned(&lit, msg));
                    }
                };
                set_once(&mut self.unhandled_panic, variant, meta)
            }
            "start_paused" => {
                let value = name_value(kind, meta, "start_paused = true")?;
                match &value.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => set_once(&mut self.start_paused, b.value, meta),
                    other => {
                        let msg = format!(
                            "the value of `start_paused` must be `true` or `false`: `{}`",
                            kind.attribute("start_paused = true")
                        );
                        Err(syn::Error::new_spanned(other, msg))
                    }
                }
            }
            "name" => {
                let lit = string_value(kind, meta, "name = \"my-runtime\"")?;
                if lit.value().trim().is_empty() {
                    let msg = "the runtime `name` must not be empty";
                    return Err(syn::Error::new_spanned(&lit, msg));
                }
                set_once(&mut self.name, lit, meta)
            }
            "crate" => {
                let lit = string_value(kind, meta, "crate = \"my_rt\"")?;
                let path = lit.parse::<syn::Path>().map_err(|_| {
                    let msg = format!("`crate = \"{}\"` does not name a path", lit.value());
                    syn::Error::new_spanned(&lit, msg)
                })?;
                set_once(&mut self.crate_path, path, meta)
            }
            _ => {
                let msg = match (meta, Flavor::from_name(&name)) {
                    (Meta::Path(_), Some(flavor)) => format!(
                        "set the runtime flavor with `{}`",
                        kind.attribute(&format!("flavor = \"{}\"", flavor.name()))
                    ),
                    _ => format!(
                        "unknown option `{name}`: expected `flavor`, `worker_threads`, `unhandled_panic`, `start_paused`, `name` or `crate`"
                    ),
                };
                Err(syn::Error::new_spanned(meta.path(), msg))
            }
        }
    }

    fn finish(self, kind: EntryKind) -> syn::Result<Config> {
        let flavor = self.flavor.unwrap_or(kind.default_flavor());
        let worker_threads = match (flavor, self.worker_threads) {
            (Flavor::CurrentThread | Flavor::Local, Some((count, meta))) => {
                let msg = format!(
                    "the `worker_threads` option requires the `multi_thread` flavor: use `{}`",
                    kind.attribute(&format!(
                        "flavor = \"multi_thread\", worker_threads = {count}"
                    ))
                );
                return Err(syn::Error::new_spanned(meta, msg));
            }
            (_, worker_threads) => worker_threads.map(|(count, _)| count),
        };
        Ok(Config {
            flavor,
            worker_threads,
            crate_path: self.crate_path.unwrap_or_else(|| kind.default_crate_path()),
            unhandled_panic: self.unhandled_panic,
            start_paused: self.start_paused,
            name: self.name,
        })
    }
}

/// Stores `value` in `slot` unless an earlier option already did.
fn set_once<T>(slot: &mut Option<T>, value: T, meta: &Meta) -> syn::Result<()> {
    if slot.is_some() {
        let msg = format!(
            "the `{}` option is set more than once",
            path_text(meta.path())
        );
        return Err(syn::Error::new_spanned(meta, msg));
    }
    *slot = Some(value);
    Ok(())
}

/// The value of `name = "..."`; `example` shows the expected form in errors.
fn string_value(kind: EntryKind, meta: &Meta, example: &str) -> syn::Result<LitStr> {
    let value = name_value(kind, meta, example)?;
    match &value.value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(lit.clone()),
        other => {
            let msg = format!(
                "the value of `{}` must be a string literal: `{}`",
                path_text(meta.path()),
                kind.attribute(example)
            );
            Err(syn::Error::new_spanned(other, msg))
        }
    }
}

/// The value of `worker_threads = N`.
fn int_value(kind: EntryKind, meta: &Meta) -> syn::Result<LitInt> {
    let example = "worker_threads = 4";
    let value = name_value(kind, meta, example)?;
    match &value.value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => Ok(lit.clone()),
        other => {
            let msg = format!(
                "the value of `worker_threads` must be an integer literal: `{}`",
                kind.attribute(example)
            );
            Err(syn::Error::new_spanned(other, msg))
        }
    }
}

/// Rejects a known option written without `= value` (`flavor`, `flavor(..)`).
fn name_value<'a>(
    kind: EntryKind,
    meta: &'a Meta,
    example: &str,
) -> syn::Result<&'a MetaNameValue> {
    match meta {
        Meta::NameValue(value) => Ok(value),
        Meta::Path(_) | Meta::List(_) => {
            let msg = format!(
                "the `{}` option takes a value: `{}`",
                path_text(meta.path()),
                kind.attribute(example)
            );
            Err(syn::Error::new_spanned(meta, msg))
        }
    }
}

/// A path as the user wrote it, without the spaces `to_token_stream` puts around `::`.
fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn main_config(args: TokenStream) -> syn::Result<Config> {
        parse(EntryKind::Main, args)
    }

    fn test_config(args: TokenStream) -> syn::Result<Config> {
        parse(EntryKind::Test, args)
    }

    fn main_error(args: TokenStream) -> String {
        main_config(args)
            .expect_err("the options should be rejected")
            .to_string()
    }

    fn test_error(args: TokenStream) -> String {
        test_config(args)
            .expect_err("the options should be rejected")
            .to_string()
    }

    #[test]
    fn defaults_follow_the_entry_kind() {
        let main = main_config(quote!()).unwrap();
        assert_eq!(main.flavor, Flavor::MultiThread);
        assert_eq!(main.worker_threads, None);
        assert_eq!(path_text(&main.crate_path), "::rt");

        let test = test_config(quote!()).unwrap();
        assert_eq!(test.flavor, Flavor::CurrentThread);
        assert_eq!(test.worker_threads, None);
    }

    #[test]
    fn flavor_is_read() {
        for kind in [EntryKind::Main, EntryKind::Test] {
            let config = parse(kind, quote!(flavor = "current_thread")).unwrap();
            assert_eq!(config.flavor, Flavor::CurrentThread);
            let config = parse(kind, quote!(flavor = "multi_thread")).unwrap();
            assert_eq!(config.flavor, Flavor::MultiThread);
        }
    }

    #[test]
    fn worker_threads_is_read_with_multi_thread() {
        let config = main_config(quote!(worker_threads = 4)).unwrap();
        assert_eq!(
            (config.flavor, config.worker_threads),
            (Flavor::MultiThread, Some(4))
        );

        let config = test_config(quote!(flavor = "multi_thread", worker_threads = 2,)).unwrap();
        assert_eq!(
            (config.flavor, config.worker_threads),
            (Flavor::MultiThread, Some(2))
        );

        // Order does not matter, and a suffix is allowed.
        let config = test_config(quote!(worker_threads = 3usize, flavor = "multi_thread")).unwrap();
        assert_eq!(config.worker_threads, Some(3));
    }

    #[test]
    fn crate_path_is_read() {
        let config = main_config(quote!(crate = "my_rt")).unwrap();
        assert_eq!(path_text(&config.crate_path), "my_rt");
        let config = main_config(quote!(crate = "::deps::rt")).unwrap();
        assert_eq!(path_text(&config.crate_path), "::deps::rt");
        let config = main_config(quote!(crate = "crate")).unwrap();
        assert_eq!(path_text(&config.crate_path), "crate");
    }

    #[test]
    fn unhandled_panic_is_read() {
        assert_eq!(main_config(quote!()).unwrap().unhandled_panic, None);
        let config = test_config(quote!(unhandled_panic = "shutdown_runtime")).unwrap();
        assert_eq!(config.unhandled_panic, Some("ShutdownRuntime"));
        let config = main_config(quote!(unhandled_panic = "ignore")).unwrap();
        assert_eq!(config.unhandled_panic, Some("Ignore"));
        assert_eq!(
            main_error(quote!(unhandled_panic = "abort")),
            "unknown `unhandled_panic` behavior `abort`: expected `ignore` or `shutdown_runtime`"
        );
        assert_eq!(
            main_error(quote!(unhandled_panic = shutdown_runtime)),
            "the value of `unhandled_panic` must be a string literal: \
             `#[rt::main(unhandled_panic = \"shutdown_runtime\")]`"
        );
    }

    #[test]
    fn unknown_option_is_named() {
        assert_eq!(
            main_error(quote!(foo = 1)),
            "unknown option `foo`: expected `flavor`, `worker_threads`, `unhandled_panic`, `start_paused`, `name` or `crate`"
        );
        assert_eq!(
            main_error(quote!(foo)),
            "unknown option `foo`: expected `flavor`, `worker_threads`, `unhandled_panic`, `start_paused`, `name` or `crate`"
        );
        assert_eq!(
            main_error(quote!(a::flavor = "multi_thread")),
            "unknown option `a::flavor`: expected `flavor`, `worker_threads`, `unhandled_panic`, `start_paused`, `name` or `crate`"
        );
    }

    #[test]
    fn bare_flavor_name_suggests_the_option() {
        assert_eq!(
            main_error(quote!(current_thread)),
            "set the runtime flavor with `#[rt::main(flavor = \"current_thread\")]`"
        );
        assert_eq!(
            test_error(quote!(multi_thread)),
            "set the runtime flavor with `#[rt::test(flavor = \"multi_thread\")]`"
        );
    }

    #[test]
    fn unknown_flavor_is_named() {
        assert_eq!(
            main_error(quote!(flavor = "single")),
            "unknown runtime flavor `single`: expected `current_thread`, `multi_thread` or `local`"
        );
    }

    #[test]
    fn flavor_must_be_a_string() {
        assert_eq!(
            main_error(quote!(flavor = multi_thread)),
            "the value of `flavor` must be a string literal: `#[rt::main(flavor = \"multi_thread\")]`"
        );
        assert_eq!(
            main_error(quote!(flavor)),
            "the `flavor` option takes a value: `#[rt::main(flavor = \"multi_thread\")]`"
        );
        assert_eq!(
            main_error(quote!(flavor("multi_thread"))),
            "the `flavor` option takes a value: `#[rt::main(flavor = \"multi_thread\")]`"
        );
    }

    #[test]
    fn worker_threads_needs_multi_thread() {
        let expected = "the `worker_threads` option requires the `multi_thread` flavor: \
                        use `#[rt::main(flavor = \"multi_thread\", worker_threads = 4)]`";
        assert_eq!(
            main_error(quote!(flavor = "current_thread", worker_threads = 4)),
            expected
        );
        assert_eq!(
            main_error(quote!(worker_threads = 4, flavor = "current_thread")),
            expected
        );
        // `#[rt::test]` defaults to current_thread, so the flavor must be named.
        assert_eq!(
            test_error(quote!(worker_threads = 2)),
            "the `worker_threads` option requires the `multi_thread` flavor: \
             use `#[rt::test(flavor = \"multi_thread\", worker_threads = 2)]`"
        );
    }

    #[test]
    fn worker_threads_must_be_a_positive_integer() {
        assert_eq!(
            main_error(quote!(worker_threads = 0)),
            "`worker_threads` must be at least 1"
        );
        assert_eq!(
            main_error(quote!(worker_threads = -1)),
            "`worker_threads` must be at least 1"
        );
        let not_int = "the value of `worker_threads` must be an integer literal: `#[rt::main(worker_threads = 4)]`";
        assert_eq!(main_error(quote!(worker_threads = "4")), not_int);
        assert_eq!(main_error(quote!(worker_threads = 4.0)), not_int);
        assert_eq!(main_error(quote!(worker_threads = N)), not_int);
        assert_eq!(
            main_error(quote!(worker_threads)),
            "the `worker_threads` option takes a value: `#[rt::main(worker_threads = 4)]`"
        );
        assert_eq!(
            main_error(quote!(worker_threads = 99999999999999999999999)),
            "the value of `worker_threads` is not a valid thread count: number too large to fit in target type"
        );
    }

    #[test]
    fn crate_must_be_a_string_path() {
        assert_eq!(
            main_error(quote!(crate = my_rt)),
            "the value of `crate` must be a string literal: `#[rt::main(crate = \"my_rt\")]`"
        );
        assert_eq!(
            main_error(quote!(crate = "a b")),
            "`crate = \"a b\"` does not name a path"
        );
    }

    #[test]
    fn options_may_be_given_once() {
        assert_eq!(
            main_error(quote!(flavor = "multi_thread", flavor = "multi_thread")),
            "the `flavor` option is set more than once"
        );
        assert_eq!(
            main_error(quote!(worker_threads = 1, worker_threads = 2)),
            "the `worker_threads` option is set more than once"
        );
        assert_eq!(
            main_error(quote!(crate = "rt", crate = "rt")),
            "the `crate` option is set more than once"
        );
    }

    #[test]
    fn every_bad_option_is_reported() {
        let err = main_config(quote!(foo = 1, flavor = "x", worker_threads = 0)).unwrap_err();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [
                "unknown option `foo`: expected `flavor`, `worker_threads`, `unhandled_panic`, `start_paused`, `name` or `crate`",
                "unknown runtime flavor `x`: expected `current_thread`, `multi_thread` or `local`",
                "`worker_threads` must be at least 1",
            ]
        );
    }

    #[test]
    fn malformed_list_is_a_syntax_error() {
        assert!(main_config(quote!(flavor = "multi_thread" worker_threads = 1)).is_err());
        assert!(main_config(quote!("multi_thread")).is_err());
    }
}
