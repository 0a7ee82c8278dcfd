//! `select_clean_pattern!`: the pattern of a `select!` branch with its binding modes removed,
//! so `select!` can test whether a branch's output matches it through a shared reference
//! without moving the output (`Some(mut x)` becomes `Some(x)`, `ref x` becomes `x`).

use proc_macro2::{Group, TokenStream, TokenTree};

/// Drops every `ref` and every `mut` that is not part of a `&mut` reference pattern, in all
/// nested groups.
pub(crate) fn clean(input: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut after_amp = false;
    for tt in input {
        let next_after_amp = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '&');
        match tt {
            TokenTree::Ident(ref id) if id == "ref" => {}
            TokenTree::Ident(ref id) if id == "mut" && !after_amp => {}
            TokenTree::Group(g) => {
                let mut cleaned = Group::new(g.delimiter(), clean(g.stream()));
                cleaned.set_span(g.span());
                out.push(TokenTree::Group(cleaned));
            }
            other => out.push(other),
        }
        after_amp = next_after_amp;
    }
    out.into_iter().collect()
}
