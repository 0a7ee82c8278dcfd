//! `select!`.
//!
//! The macro parses its branches one by one (`@parse`), giving each its own hygienic `fut`
//! variable (see `join.rs`) and a counter of the branches before it, written as a list of `_`
//! tokens. The counter gives a branch its index (`__select_count!`) and the depth at which its
//! value sits in the nested `Out` enum (`__select_nest!`), so no enum has to be generated.
//! The last step (`@finish`) evaluates the preconditions, creates the futures in one tuple,
//! polls them from a start branch (random, or 0 with `biased;`), each pinned where it lies in
//! the tuple, drops them all, and then matches
//! the output against the branch patterns to run the handler outside the polling closure (so
//! `break`, `continue`, `return` and `?` in a handler act on the caller's code).

/// Waits on several futures and runs the handler of the first one to finish, dropping the
/// others.
///
/// tokio's syntax and semantics:
///
/// ```text
/// rt::select! {
///     biased;                                    // optional: poll in declaration order
///     <pattern> = <future> (, if <condition>)? => <handler>,
///     ...
///     else => <expression>                       // optional: every branch disabled
/// }
/// ```
///
/// 1. Every `if` condition is evaluated; a branch whose condition is false is disabled.
/// 2. Every future expression is evaluated (`IntoFuture` too), disabled branches' included.
/// 3. The enabled futures are polled, starting from a random branch on each call (so no branch
///    starves) or from the first with `biased;`; a task whose cooperative budget is spent
///    yields first, before polling any. When one finishes and its output matches its
///    pattern, all futures are dropped and that branch's handler runs with the pattern's
///    bindings; if the output does not match, that branch is disabled and the others go on.
/// 4. If every branch is disabled, the `else` expression runs; without an `else` the macro
///    panics.
///
/// Usable only inside an `async` context, with up to 64 branches.
///
/// # Cancel safety
/// The futures of the branches that lose are dropped: a loser must be cancel safe if dropping
/// it halfway could lose data (each rt future's rustdoc says whether it is). To keep a
/// future across loop iterations, create it once outside the loop and select on `&mut fut`.
///
/// ```
/// let rt = rt::Builder::new_current_thread().build()?;
/// rt.block_on(async {
///     let (tx, mut rx) = rt::sync::oneshot::channel::<u32>();
///     tx.send(7).unwrap();
///     let got = rt::select! {
///         v = &mut rx => v.unwrap(),
///         _ = std::future::pending::<()>() => unreachable!(),
///     };
///     assert_eq!(got, 7);
/// });
/// # Ok::<(), std::io::Error>(())
/// ```
#[macro_export]
macro_rules! select {
    (biased; $($t:tt)*) => {
        $crate::select!(@parse [true] [] [] [] $($t)*)
    };

    // Done parsing.
    (@parse [$biased:expr] [$($cnt:tt)*] [$($br:tt)*] [$($else_:tt)*]) => {
        $crate::select!(@finish [$biased] [$($cnt)*] [$($br)*] [$($else_)*])
    };

    // `else`.
    (@parse $b:tt $c:tt $br:tt [] else => $e:block , $($rest:tt)*) => {
        $crate::select!(@parse $b $c $br [$e] $($rest)*)
    };
    (@parse $b:tt $c:tt $br:tt [] else => $e:block $($rest:tt)*) => {
        $crate::select!(@parse $b $c $br [$e] $($rest)*)
    };
    (@parse $b:tt $c:tt $br:tt [] else => $e:expr , $($rest:tt)*) => {
        $crate::select!(@parse $b $c $br [$e] $($rest)*)
    };
    (@parse $b:tt $c:tt $br:tt [] else => $e:expr) => {
        $crate::select!(@parse $b $c $br [$e])
    };

    // A branch with a precondition.
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr, if $cond:expr => $h:block , $($rest:tt)*) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [$cond] [$h])] $el $($rest)*)
    };
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr, if $cond:expr => $h:block $($rest:tt)*) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [$cond] [$h])] $el $($rest)*)
    };
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr, if $cond:expr => $h:expr , $($rest:tt)*) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [$cond] [$h])] $el $($rest)*)
    };
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr, if $cond:expr => $h:expr) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [$cond] [$h])] $el)
    };

    // A branch without one.
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr => $h:block , $($rest:tt)*) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [true] [$h])] $el $($rest)*)
    };
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr => $h:block $($rest:tt)*) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [true] [$h])] $el $($rest)*)
    };
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr => $h:expr , $($rest:tt)*) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [true] [$h])] $el $($rest)*)
    };
    (@parse $b:tt [$($c:tt)*] [$($br:tt)*] $el:tt
        $p:pat = $f:expr => $h:expr) => {
        $crate::select!(@parse $b [$($c)* _]
            [$($br)* (fut [$($c)*] [$p] [$f] [true] [$h])] $el)
    };

    // Only an `else` (or nothing): no future to poll.
    (@finish [$biased:expr] [] [] [$($else_:tt)*]) => {
        $crate::__select_else!([$($else_)*])
    };

    (@finish [$biased:expr] [$($all:tt)*]
        [$(($fut:ident [$($idx:tt)*] [$p:pat] [$f:expr] [$cond:expr] [$h:expr]))+]
        [$($else_:tt)*]) => {{
        const __N: u32 = $crate::__select_count!($($all)*);
        // The disabled branches, one bit each, in the smallest unsigned type that has a bit
        // per branch.
        type __Mask = <$crate::__private::Branches<__N> as $crate::__private::BranchMask>::Mask;
        // `mut`: a `ref mut` pattern borrows the output mutably.
        #[allow(unused_mut)]
        let mut __out = {
            let mut __disabled: __Mask = 0;
            $(
                if !$cond {
                    __disabled |= 1 << $crate::__select_count!($($idx)*);
                }
            )+
            // One tuple expression first, so a temporary borrowed in a branch's expression
            // (`&mut ready(())`) lives as long as the tuple (temporary lifetime extension),
            // then all the futures in one tuple that stays where it is: the closure reaches it
            // through one `&mut` (the macro's future holds each future once, that reference and
            // the mask, as tokio's does) and pins each future where it lies.
            let ($($fut,)+) = ($($f,)+);
            let mut __futures = ($(::core::future::IntoFuture::into_future($fut),)+);
            let __futures = &mut __futures;
            ::core::future::poll_fn(move |__cx| {
                ::core::task::ready!($crate::__private::poll_budget_available(__cx));
                let __start = if $biased { 0 } else { $crate::__private::thread_rng_n(__N) };
                let mut __pending = false;
                for __i in 0..__N {
                    #[allow(clippy::modulo_one)]
                    let __k = (__start + __i) % __N;
                    $(
                        if __k == $crate::__select_count!($($idx)*) {
                            let __bit: __Mask = 1 << $crate::__select_count!($($idx)*);
                            if __disabled & __bit != 0 {
                                continue;
                            }
                            let ($($idx,)* $fut, ..) = &mut *__futures;
                            // SAFETY: the tuple `__futures` points to is a local of the
                            // enclosing block that nothing names any more (shadowed by the
                            // `&mut`): it is not moved until it is dropped in place at the
                            // block's end, and the block's future is pinned while polled.
                            let $fut = unsafe { ::core::pin::Pin::new_unchecked($fut) };
                            // `continue` in the `Pending` arm makes the output's type a
                            // diverging one, which falls back to `()` when nothing else
                            // decides it (a `poll_fn(|_| panic!())` in a disabled branch).
                            let __v = match ::core::future::Future::poll($fut, __cx) {
                                ::core::task::Poll::Ready(__v) => __v,
                                ::core::task::Poll::Pending => {
                                    __pending = true;
                                    continue;
                                }
                            };
                            #[allow(unused_variables, unreachable_patterns)]
                            let __matches = match &__v {
                                $crate::__private::select_clean_pattern!($p) => true,
                                _ => false,
                            };
                            if __matches {
                                return ::core::task::Poll::Ready(
                                    $crate::__select_nest!([$($idx)*]
                                        $crate::__private::Out::Here(__v)),
                                );
                            }
                            __disabled |= __bit;
                            continue;
                        }
                    )+
                }
                if __pending {
                    ::core::task::Poll::Pending
                } else {
                    ::core::task::Poll::Ready($crate::__select_nest!([$($all)*]
                        $crate::__private::Disabled))
                }
            })
            .await
        };
        #[allow(unreachable_patterns, unreachable_code)]
        match __out {
            $(
                $crate::__select_nest!([$($idx)*] $crate::__private::Out::Here($p)) => $h,
            )+
            $crate::__select_nest!([$($all)*] $crate::__private::Disabled) => {
                $crate::__select_else!([$($else_)*])
            }
            _ => ::core::unreachable!("select!: a branch's output matched its pattern once"),
        }
    }};

    ($($t:tt)*) => {
        $crate::select!(@parse [false] [] [] [] $($t)*)
    };
}

/// `0 + 1 + 1 ...`: one `1` per token.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_count {
    ($($c:tt)*) => { 0 $(+ $crate::__select_one!($c))* };
}

/// `1`, whatever the token.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_one {
    ($c:tt) => {
        1
    };
}

/// Wraps an expression or pattern in one `Out::There` per token of the counter. Eight tokens
/// are taken per step while there are as many, so 64 branches nest in 8 steps and the parse's
/// one step per branch stays within the default recursion limit of 128.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_nest {
    ([] $($e:tt)*) => { $($e)* };
    ([$c1:tt $c2:tt $c3:tt $c4:tt $c5:tt $c6:tt $c7:tt $c8:tt $($rest:tt)*] $($e:tt)*) => {
        $crate::__private::Out::There($crate::__private::Out::There(
            $crate::__private::Out::There($crate::__private::Out::There(
                $crate::__private::Out::There($crate::__private::Out::There(
                    $crate::__private::Out::There($crate::__private::Out::There(
                        $crate::__select_nest!([$($rest)*] $($e)*)
                    ))
                ))
            ))
        ))
    };
    ([$c:tt $($rest:tt)*] $($e:tt)*) => {
        $crate::__private::Out::There($crate::__select_nest!([$($rest)*] $($e)*))
    };
}

/// The `else` expression, or the panic when there is none.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_else {
    ([]) => {
        ::core::panic!("all branches are disabled and there is no else branch")
    };
    ([$e:expr]) => {
        $e
    };
}
