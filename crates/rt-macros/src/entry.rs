//! Checking the annotated function and writing the synchronous function that replaces it.
//!
//! For `#[rt::main(worker_threads = 4)] async fn main() -> R { BODY }` the expansion is
//!
//! ```text
//! fn main() -> R {
//!     let body = async { BODY };
//!     #[allow(clippy::expect_used)]
//!     let runtime = ::rt::Builder::new_multi_thread()
//!         .worker_threads(4)
//!         .build()
//!         .expect("failed to build the rt runtime");
//!     runtime.block_on(body)
//! }
//! ```
//!
//! and `#[rt::test]` puts `#[::core::prelude::v1::test]` in front. Attributes, visibility, generics and the
//! return type are kept as written; only `async` goes. `runtime.block_on(body)` is spanned on the last token of
//! `BODY`, so that a mismatch between the body's value and the return type is reported inside the user's
//! function rather than on the attribute; the building of the runtime keeps the attribute's span, so that a
//! wrong crate path is reported there.
//!
//! When a check fails the function is still emitted, next to the errors, with the body wrapped the same way
//! but never run (see `fallback`): the body keeps being type-checked, and the user sees only the errors
//! that name the problem rather than a cascade ("`main` function not found", "unresolved `::rt`").

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::{Attribute, Ident, ItemFn};

use crate::config::{self, Config, Flavor};
use crate::errors::Errors;

/// Which attribute is being expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// `#[rt::main]`: the program's entry point; multi_thread unless told otherwise.
    Main,
    /// `#[rt::test]`: one test; current_thread unless told otherwise, as in tokio.
    Test,
    /// `#[tokio::main]` of the `tokio` face crate: `Main`, with paths under `::tokio`.
    TokioMain,
    /// `#[tokio::test]` of the `tokio` face crate: `Test`, with paths under `::tokio`.
    TokioTest,
}

impl EntryKind {
    pub(crate) fn default_flavor(self) -> Flavor {
        if self.is_test() {
            Flavor::CurrentThread
        } else {
            Flavor::MultiThread
        }
    }

    /// Whether the attribute marks a test.
    pub(crate) fn is_test(self) -> bool {
        matches!(self, EntryKind::Test | EntryKind::TokioTest)
    }

    fn name(self) -> &'static str {
        if self.is_test() {
            "test"
        } else {
            "main"
        }
    }

    /// The crate the attribute is written under, and whose paths the expansion names unless a
    /// `crate` option says otherwise.
    fn crate_name(self) -> &'static str {
        match self {
            EntryKind::Main | EntryKind::Test => "rt",
            EntryKind::TokioMain | EntryKind::TokioTest => "tokio",
        }
    }

    /// `::rt` or `::tokio`: the paths of the expansion without a `crate` option.
    pub(crate) fn default_crate_path(self) -> syn::Path {
        let name = Ident::new(self.crate_name(), Span::call_site());
        syn::parse_quote!(::#name)
    }

    /// How the attribute is written with the arguments `args`, for messages: `#[rt::main(args)]`.
    pub(crate) fn attribute(self, args: &str) -> String {
        if args.is_empty() {
            format!("#[{}::{}]", self.crate_name(), self.name())
        } else {
            format!("#[{}::{}({args})]", self.crate_name(), self.name())
        }
    }
}

/// Expands `#[rt::main(args)]` or `#[rt::test(args)]` applied to `item`.
pub(crate) fn expand(kind: EntryKind, args: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(err) => {
            // Not a function at all: leave the item alone and say why.
            let err = match syn::parse2::<syn::Item>(item.clone()) {
                Ok(_) => {
                    let msg = format!(
                        "`{}` can only be applied to an `async fn`",
                        kind.attribute("")
                    );
                    syn::Error::new(err.span(), msg)
                }
                Err(_) => err,
            };
            let mut tokens = item;
            tokens.extend(err.to_compile_error());
            return tokens;
        }
    };
    let err = match (check_function(kind, &function), config::parse(kind, args)) {
        (Ok(()), Ok(config)) => return generate(kind, function, &config),
        (Err(err), Ok(_)) | (Ok(()), Err(err)) => err,
        (Err(mut err), Err(more)) => {
            err.combine(more);
            err
        }
    };
    let mut tokens = fallback(kind, function);
    tokens.extend(err.to_compile_error());
    tokens
}

/// The checks on the function itself, independent of the attribute's options.
fn check_function(kind: EntryKind, function: &ItemFn) -> syn::Result<()> {
    let mut errors = Errors::default();
    if kind.is_test() {
        if let Some(attr) = function.attrs.iter().find(|attr| is_test_attribute(attr)) {
            let msg = "second test attribute is supplied, consider removing or changing the order of your \
                       test attributes";
            errors.push(syn::Error::new_spanned(attr, msg));
        }
    }
    if function.sig.asyncness.is_none() {
        let msg = "the `async` keyword is missing from the function declaration";
        errors.push(syn::Error::new_spanned(function.sig.fn_token, msg));
    }
    if rejects_inputs(kind, function) {
        let msg = format!("the {} function cannot accept arguments", kind.name());
        errors.push(syn::Error::new_spanned(&function.sig.inputs, msg));
    }
    errors.finish()
}

/// A program's `main` and a test are called with no arguments. `#[rt::main]` on a function of another name
/// makes an ordinary blocking function, which may take arguments (as in tokio).
fn rejects_inputs(kind: EntryKind, function: &ItemFn) -> bool {
    let named_main = function.sig.ident == "main";
    !function.sig.inputs.is_empty() && (kind.is_test() || named_main)
}

/// `#[test]`, `#[core::prelude::v1::test]`, `#[::std::prelude::rust_2021::test]` and the like.
fn is_test_attribute(attr: &Attribute) -> bool {
    let segments = &attr.path().segments;
    let last_is_test = segments
        .last()
        .is_some_and(|segment| segment.ident == "test");
    let prefix_is_std = match segments.first() {
        Some(first) if segments.len() > 1 => first.ident == "core" || first.ident == "std",
        _ => attr.path().leading_colon.is_none(),
    };
    last_is_test && prefix_is_std
}

/// The synchronous function for a function and options that passed every check.
fn generate(kind: EntryKind, function: ItemFn, config: &Config) -> TokenStream {
    let crate_path = &config.crate_path;
    let constructor = Ident::new(config.flavor.constructor(), Span::call_site());
    let worker_threads = config.worker_threads.map(|count| {
        let count = Literal::usize_unsuffixed(count);
        quote!(.worker_threads(#count))
    });
    let unhandled_panic = config.unhandled_panic.map(|variant| {
        let variant = Ident::new(variant, Span::call_site());
        quote!(.unhandled_panic(#crate_path::runtime::UnhandledPanic::#variant))
    });
    let start_paused = config
        .start_paused
        .map(|paused| quote!(.start_paused(#paused)));
    let name = config.name.as_ref().map(|name| quote!(.name(#name)));
    // tokio's attributes turn IO and timers on (the face's builder leaves them off otherwise);
    // rt's builder has them always on.
    let enable_all =
        matches!(kind, EntryKind::TokioMain | EntryKind::TokioTest).then(|| quote!(.enable_all()));
    let build = match config.flavor {
        Flavor::Local => {
            quote!(.build_local(#crate_path::runtime::LocalOptions::default()))
        }
        Flavor::CurrentThread | Flavor::MultiThread => quote!(.build()),
    };
    let test_attr = (kind.is_test()).then(|| quote!(#[::core::prelude::v1::test]));
    rewrap(function, test_attr, |body, end| {
        let runtime = Ident::new("runtime", end);
        let run = quote_spanned!(end=> #runtime.block_on(#body));
        quote! {
            #[allow(clippy::expect_used)]
            let #runtime = #crate_path::runtime::Builder::#constructor()
                #enable_all
                #worker_threads
                #unhandled_panic
                #start_paused
                #name
                #build
                .expect("failed to build the rt runtime");
            #run
        }
    })
}

/// What stands in for the function when a check failed: the same signature (less `async`, and less the
/// arguments a `main` or a test may not take), with the body type-checked against the return type but
/// never run. It names nothing from the runtime crate, whose path may be the thing that was wrong.
fn fallback(kind: EntryKind, mut function: ItemFn) -> TokenStream {
    if rejects_inputs(kind, &function) {
        function.sig.inputs.clear();
    }
    let has_test_attr = function.attrs.iter().any(is_test_attribute);
    let test_attr =
        (kind.is_test() && !has_test_attr).then(|| quote!(#[::core::prelude::v1::test]));
    rewrap(function, test_attr, |body, end| {
        // The helper sits in a block of its own so that the body cannot see it.
        quote_spanned! {end=>
            {
                fn output_of<F: ::core::future::Future>(_: F) -> F::Output {
                    ::core::unreachable!("the function did not compile")
                }
                output_of(#body)
            }
        }
    })
}

/// `function` without `async`, preceded by `test_attr`, whose body is `let body = async { BODY };` then the
/// statements `rest(body, end)` writes, where `end` is the span of `BODY`'s last token.
fn rewrap(
    function: ItemFn,
    test_attr: Option<TokenStream>,
    rest: impl FnOnce(&Ident, Span) -> TokenStream,
) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        mut sig,
        block,
    } = function;
    sig.asyncness = None;
    let end = end_of(&block);
    // Spanned on the user's code like the rest of the tail; the body itself cannot see it.
    let body = Ident::new("body", end);
    let rest = rest(&body, end);
    quote! {
        #test_attr
        #(#attrs)*
        #vis #sig {
            let #body = async #block;
            #rest
        }
    }
}

/// The span of the body's last token, or of its closing brace when it is empty.
fn end_of(block: &syn::Block) -> Span {
    block
        .stmts
        .last()
        .and_then(|stmt| stmt.to_token_stream().into_iter().last())
        .map_or_else(|| block.brace_token.span.close(), |token| token.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansion as text, with whitespace normalised by reparsing it as a file.
    fn expand_text(kind: EntryKind, args: TokenStream, item: TokenStream) -> String {
        let tokens = expand(kind, args, item);
        let file: syn::File =
            syn::parse2(tokens.clone()).unwrap_or_else(|err| panic!("{err}: {tokens}"));
        file.into_token_stream().to_string()
    }

    fn tokens_text(tokens: TokenStream) -> String {
        tokens.to_string()
    }

    /// The messages of the `compile_error!`s in an expansion.
    fn errors_of(kind: EntryKind, args: TokenStream, item: TokenStream) -> Vec<String> {
        let file: syn::File = syn::parse2(expand(kind, args, item)).unwrap();
        file.items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Macro(mac)
                    if mac.mac.path.segments.last().unwrap().ident == "compile_error" =>
                {
                    Some(mac.mac.parse_body::<syn::LitStr>().unwrap().value())
                }
                _ => None,
            })
            .collect()
    }

    fn function_of(kind: EntryKind, args: TokenStream, item: TokenStream) -> ItemFn {
        let file: syn::File = syn::parse2(expand(kind, args, item)).unwrap();
        file.items
            .into_iter()
            .find_map(|item| match item {
                syn::Item::Fn(function) => Some(function),
                _ => None,
            })
            .expect("the expansion keeps a function")
    }

    #[test]
    fn main_expands_to_multi_thread_block_on() {
        let text = expand_text(
            EntryKind::Main,
            quote!(),
            quote! { async fn main() { work().await; } },
        );
        let expected = tokens_text(quote! {
            fn main() {
                let body = async { work().await; };
                #[allow(clippy::expect_used)]
                let runtime = ::rt::runtime::Builder::new_multi_thread()
                    .build()
                    .expect("failed to build the rt runtime");
                runtime.block_on(body)
            }
        });
        assert_eq!(text, expected);
    }

    #[test]
    fn start_paused_reaches_the_builder() {
        let text = expand_text(
            EntryKind::Test,
            quote!(flavor = "multi_thread", start_paused = true),
            quote!(
                async fn t() {}
            ),
        );
        assert!(text.contains(". start_paused (true) . build ()"), "{text}");
    }

    #[test]
    fn local_flavor_builds_a_local_runtime() {
        let text = expand_text(
            EntryKind::Test,
            quote!(flavor = "local"),
            quote!(
                async fn t() {}
            ),
        );
        assert!(
            text.contains(
                "new_current_thread () . build_local (:: rt :: runtime :: LocalOptions :: default ())"
            ),
            "{text}"
        );
    }

    #[test]
    fn name_reaches_the_builder() {
        let text = expand_text(
            EntryKind::Test,
            quote!(name = "ingest"),
            quote!(
                async fn t() {}
            ),
        );
        assert!(text.contains(". name (\"ingest\") . build ()"), "{text}");
    }

    #[test]
    fn unhandled_panic_reaches_the_builder() {
        let text = expand_text(
            EntryKind::Main,
            quote!(unhandled_panic = "shutdown_runtime"),
            quote!(
                async fn main() {}
            ),
        );
        assert!(
            text.contains(
                ". unhandled_panic (:: rt :: runtime :: UnhandledPanic :: ShutdownRuntime) . build ()"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_tokio_face_turns_io_and_timers_on() {
        for kind in [EntryKind::TokioMain, EntryKind::TokioTest] {
            let text = expand_text(
                kind,
                quote!(),
                quote!(
                    async fn f() {}
                ),
            );
            assert!(text.contains("() . enable_all () . build ()"), "{text}");
        }
        let text = expand_text(
            EntryKind::Test,
            quote!(),
            quote!(
                async fn f() {}
            ),
        );
        assert!(!text.contains("enable_all"), "{text}");
    }

    #[test]
    fn the_tokio_face_expands_to_tokio_paths() {
        let text = expand_text(
            EntryKind::TokioMain,
            quote!(),
            quote!(
                async fn main() {}
            ),
        );
        assert!(
            text.contains(":: tokio :: runtime :: Builder :: new_multi_thread ()"),
            "{text}"
        );
        let text = expand_text(
            EntryKind::TokioTest,
            quote!(crate = "my_tokio"),
            quote!(
                async fn check() {}
            ),
        );
        assert!(
            text.contains("my_tokio :: runtime :: Builder :: new_current_thread ()"),
            "{text}"
        );
        assert!(
            text.contains("# [:: core :: prelude :: v1 :: test]"),
            "{text}"
        );
    }

    #[test]
    fn options_reach_the_builder() {
        let text = expand_text(
            EntryKind::Main,
            quote!(flavor = "current_thread"),
            quote! { async fn main() {} },
        );
        assert!(
            text.contains(":: rt :: runtime :: Builder :: new_current_thread ()"),
            "{text}"
        );
        assert!(!text.contains("worker_threads"), "{text}");

        let text = expand_text(
            EntryKind::Main,
            quote!(worker_threads = 4),
            quote! { async fn main() {} },
        );
        assert!(
            text.contains(
                ":: rt :: runtime :: Builder :: new_multi_thread () . worker_threads (4) . build ()"
            ),
            "{text}"
        );

        let text = expand_text(
            EntryKind::Main,
            quote!(crate = "my_rt"),
            quote! { async fn main() {} },
        );
        assert!(
            text.contains("= my_rt :: runtime :: Builder :: new_multi_thread ()"),
            "{text}"
        );
    }

    #[test]
    fn test_adds_the_test_attribute_and_defaults_to_current_thread() {
        let text = expand_text(
            EntryKind::Test,
            quote!(),
            quote! { #[should_panic] async fn it_works() { assert!(false); } },
        );
        assert!(
            text.starts_with(
                "# [:: core :: prelude :: v1 :: test] # [should_panic] fn it_works ()"
            ),
            "{text}"
        );
        assert!(text.contains("new_current_thread ()"), "{text}");

        let text = expand_text(
            EntryKind::Test,
            quote!(flavor = "multi_thread", worker_threads = 2),
            quote! { async fn it_works() {} },
        );
        assert!(
            text.contains("new_multi_thread () . worker_threads (2)"),
            "{text}"
        );
    }

    #[test]
    fn signature_is_kept_without_async() {
        let function = function_of(
            EntryKind::Main,
            quote!(),
            quote! {
                /// Docs.
                #[allow(unused)]
                pub(crate) async fn main() -> Result<(), Box<dyn std::error::Error>> { Ok(()) }
            },
        );
        assert!(function.sig.asyncness.is_none());
        assert_eq!(function.attrs.len(), 2);
        assert_eq!(function.vis.to_token_stream().to_string(), "pub (crate)");
        assert_eq!(
            function.sig.output.to_token_stream().to_string(),
            "-> Result < () , Box < dyn std :: error :: Error > >"
        );
    }

    #[test]
    fn main_of_another_name_may_take_arguments() {
        let function = function_of(
            EntryKind::Main,
            quote!(),
            quote! { async fn run(n: u32) -> u32 { n } },
        );
        assert_eq!(function.sig.inputs.len(), 1);
        assert!(errors_of(
            EntryKind::Main,
            quote!(),
            quote! { async fn run(n: u32) -> u32 { n } }
        )
        .is_empty());
    }

    #[test]
    fn missing_async_is_reported() {
        assert_eq!(
            errors_of(EntryKind::Main, quote!(), quote! { fn main() {} }),
            ["the `async` keyword is missing from the function declaration"]
        );
        assert_eq!(
            errors_of(EntryKind::Test, quote!(), quote! { fn t() {} }),
            ["the `async` keyword is missing from the function declaration"]
        );
    }

    #[test]
    fn arguments_are_reported() {
        assert_eq!(
            errors_of(
                EntryKind::Main,
                quote!(),
                quote! { async fn main(n: u32) {} }
            ),
            ["the main function cannot accept arguments"]
        );
        assert_eq!(
            errors_of(EntryKind::Test, quote!(), quote! { async fn t(n: u32) {} }),
            ["the test function cannot accept arguments"]
        );
    }

    #[test]
    fn second_test_attribute_is_reported() {
        let msg = "second test attribute is supplied, consider removing or changing the order of your test \
                   attributes";
        for attr in [
            quote!(#[test]),
            quote!(#[::core::prelude::v1::test]),
            quote!(#[std::prelude::rust_2021::test]),
        ] {
            assert_eq!(
                errors_of(EntryKind::Test, quote!(), quote! { #attr async fn t() {} }),
                [msg]
            );
        }
        // Not a test attribute: someone else's `test`.
        assert!(errors_of(
            EntryKind::Test,
            quote!(),
            quote! { #[other::test] async fn t() {} }
        )
        .is_empty());
        assert!(errors_of(
            EntryKind::Test,
            quote!(),
            quote! { #[::test] async fn t() {} }
        )
        .is_empty());
    }

    #[test]
    fn function_and_option_errors_are_reported_together() {
        assert_eq!(
            errors_of(
                EntryKind::Main,
                quote!(foo = 1),
                quote! { fn main(n: u32) {} }
            ),
            [
                "the `async` keyword is missing from the function declaration",
                "the main function cannot accept arguments",
                "unknown option `foo`: expected `flavor`, `worker_threads`, `unhandled_panic`, `start_paused`, `name` or `crate`",
            ]
        );
    }

    #[test]
    fn fallback_keeps_the_function_without_the_runtime() {
        let function = function_of(
            EntryKind::Main,
            quote!(crate = "a b"),
            quote! { async fn main(n: u32) -> u8 { 1 } },
        );
        assert!(function.sig.asyncness.is_none());
        assert!(
            function.sig.inputs.is_empty(),
            "main may not take arguments, so the fallback drops them"
        );
        let text = function.into_token_stream().to_string();
        assert!(!text.contains("Builder"), "{text}");
        assert!(text.contains("output_of (body) }"), "{text}");

        // A test keeps exactly one test attribute.
        let function = function_of(EntryKind::Test, quote!(foo), quote! { async fn t() {} });
        assert_eq!(function.attrs.len(), 1);
        let function = function_of(
            EntryKind::Test,
            quote!(),
            quote! { #[test] async fn t() {} },
        );
        assert_eq!(function.attrs.len(), 1);
    }

    #[test]
    fn non_function_is_left_alone_with_an_error() {
        let tokens = expand(EntryKind::Main, quote!(), quote! { struct Main; });
        let text = tokens.to_string();
        assert!(text.starts_with("struct Main ;"), "{text}");
        assert_eq!(
            errors_of(EntryKind::Main, quote!(), quote! { struct Main; }),
            ["`#[rt::main]` can only be applied to an `async fn`"]
        );
    }

    #[test]
    fn attribute_is_written_for_messages() {
        assert_eq!(EntryKind::Main.attribute(""), "#[rt::main]");
        assert_eq!(
            EntryKind::Test.attribute("flavor = \"multi_thread\""),
            "#[rt::test(flavor = \"multi_thread\")]"
        );
    }
}
