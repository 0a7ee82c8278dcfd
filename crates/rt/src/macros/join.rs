//! `join!` and `try_join!`.
//!
//! Each macro first turns its list of futures into a list of `(name, [position], future)`
//! triples, one step of recursion per future: every step writes the same identifier `fut`, but
//! macro hygiene gives each step's `fut` its own syntax context, so the final step binds that
//! many distinct variables. A future's position is written as one `_` per future before it
//! (`__join_count!` turns that into a number). The futures run in the calling task; each poll
//! starts one future later than the last (`JoinRotator`), as tokio's do, unless the macro
//! begins with `biased;`, which polls them in declaration order every time.

/// Waits on several futures at once, in the calling task, and returns a tuple of their outputs.
///
/// As tokio's `join!`: all the futures run concurrently in the task that awaits the macro (no
/// task is spawned, so they do not run in parallel), and the macro returns when the last one
/// finishes. Usable only inside an `async` context. Operands may be anything that implements
/// `IntoFuture`. Each poll starts with a different future, so one that spends the whole
/// cooperative budget cannot starve the others; `join!(biased; a, b)` polls them in the order
/// written instead. `join!()` is `()`.
///
/// ```
/// let rt = rt::Builder::new_current_thread().build()?;
/// let (a, b) = rt.block_on(async { rt::join!(async { 1 }, async { "two" }) });
/// assert_eq!((a, b), (1, "two"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[macro_export]
macro_rules! join {
    (@ $b:tt [$($n:tt)*] [$($acc:tt)*]) => {
        $crate::__join_poll!(join $b [$($n)*] [$($acc)*])
    };
    (@ $b:tt [$($n:tt)*] [$($acc:tt)*] $e:expr $(, $rest:expr)*) => {
        $crate::join!(@ $b [$($n)* _] [$($acc)* (fut [$($n)*] $e)] $($rest),*)
    };
    (biased; $($e:expr),+ $(,)?) => {
        $crate::join!(@ true [] [] $($e),+)
    };
    (biased;) => {
        ::core::future::ready(()).await
    };
    ($($e:expr),+ $(,)?) => {
        $crate::join!(@ false [] [] $($e),+)
    };
    () => {
        ::core::future::ready(()).await
    };
}

/// Waits on several futures of `Result`s at once and returns `Ok` of a tuple of their values,
/// or the first `Err`, in which case the other futures are dropped without being polled again.
///
/// As tokio's `try_join!`; the futures run concurrently in the calling task, with the same
/// rotating start, `biased;` and `IntoFuture` operands as [`join!`]. `try_join!()` is `Ok(())`.
///
/// ```
/// let rt = rt::Builder::new_current_thread().build()?;
/// let r: Result<(u8, u8), &str> = rt.block_on(async {
///     rt::try_join!(async { Ok(1) }, async { Err("no") })
/// });
/// assert_eq!(r, Err("no"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[macro_export]
macro_rules! try_join {
    (@ $b:tt [$($n:tt)*] [$($acc:tt)*]) => {
        $crate::__join_poll!(try_join $b [$($n)*] [$($acc)*])
    };
    (@ $b:tt [$($n:tt)*] [$($acc:tt)*] $e:expr $(, $rest:expr)*) => {
        $crate::try_join!(@ $b [$($n)* _] [$($acc)* (fut [$($n)*] $e)] $($rest),*)
    };
    (biased; $($e:expr),+ $(,)?) => {
        $crate::try_join!(@ true [] [] $($e),+)
    };
    (biased;) => {
        ::core::future::ready(::core::result::Result::Ok(())).await
    };
    ($($e:expr),+ $(,)?) => {
        $crate::try_join!(@ false [] [] $($e),+)
    };
    () => {
        ::core::future::ready(::core::result::Result::Ok(())).await
    };
}

/// `0 + 1 + ... + 1`, one `1` per token: a future's position from the `_`s before it, and the
/// number of futures from all of them.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_count {
    ($($t:tt)*) => { 0u32 $(+ $crate::__join_one!($t))* };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __join_one {
    ($t:tt) => {
        1u32
    };
}

/// The rotator of a `join!` or `try_join!`: zero-sized with `biased;`, else one `u32` with the
/// number of futures in its type.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_rotator {
    (true [$($n:tt)*]) => {
        $crate::__private::BiasedRotator
    };
    (false [$($n:tt)*]) => {
        $crate::__private::JoinRotator::<{ $crate::__join_count!($($n)*) }>::new()
    };
}

/// Binds `$futures` to a `&mut` to the tuple of the futures (each in a `MaybeDone`) and
/// `$rotator` to the rotator: the state a `join!` or `try_join!` polls.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_setup {
    ($futures:ident $rotator:ident $b:tt [$($n:tt)*] [$($e:expr)*]) => {
        let mut $futures = ($(
            $crate::__private::MaybeDone::new(::core::future::IntoFuture::into_future($e)),
        )*);
        let $futures = &mut $futures;
        let mut $rotator = $crate::__join_rotator!($b [$($n)*]);
    };
}

/// The future at position `[$($i)*]` (one `_` per future before it) of the tuple `$futures`
/// points to, pinned: `$f` names it.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_pinned {
    ($futures:ident, $f:ident [$($i:tt)*]) => {{
        let ($($i,)* $f, ..) = &mut *$futures;
        // SAFETY: the tuple the `&mut` points to is a local of the macro's block that nothing
        // names any more (its binding is shadowed by the `&mut`): it is never moved until it
        // is dropped in place at the block's end, and the block's future is pinned while it
        // is polled. So each element stays where it is once polled: pinned.
        unsafe { ::core::pin::Pin::new_unchecked($f) }
    }};
}

/// The shared last step of `join!` and `try_join!`: bind, poll all (from the rotator's start,
/// wrapping around), collect. The futures sit in one tuple that the polling closure reaches
/// through a `&mut` and pins element by element, so the macro's future holds each of them
/// once, the reference and the rotator (as tokio's does), and no pinned reference per future.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_poll {
    (join $b:tt [$($n:tt)*] [$(($f:ident [$($i:tt)*] $e:expr))*]) => {{
        $crate::__join_setup!(futures rotator $b [$($n)*] [$($e)*]);
        ::core::future::poll_fn(move |cx| {
            let start = rotator.start();
            let mut all_done = true;
            $(
                if $crate::__join_count!($($i)*) >= start {
                    all_done &= $crate::__join_pinned!(futures, $f [$($i)*])
                        .poll_done(cx)
                        .is_ready();
                }
            )*
            $(
                if $crate::__join_count!($($i)*) < start {
                    all_done &= $crate::__join_pinned!(futures, $f [$($i)*])
                        .poll_done(cx)
                        .is_ready();
                }
            )*
            if all_done {
                ::core::task::Poll::Ready((
                    $($crate::__join_pinned!(futures, $f [$($i)*]).take_output(),)*
                ))
            } else {
                ::core::task::Poll::Pending
            }
        })
        .await
    }};
    (try_join $b:tt [$($n:tt)*] [$(($f:ident [$($i:tt)*] $e:expr))*]) => {{
        $crate::__join_setup!(futures rotator $b [$($n)*] [$($e)*]);
        ::core::future::poll_fn(move |cx| {
            let start = rotator.start();
            let mut all_done = true;
            $(
                if $crate::__join_count!($($i)*) >= start
                    && !$crate::__try_join_poll_one!(futures, $f [$($i)*], cx)
                {
                    all_done = false;
                }
            )*
            $(
                if $crate::__join_count!($($i)*) < start
                    && !$crate::__try_join_poll_one!(futures, $f [$($i)*], cx)
                {
                    all_done = false;
                }
            )*
            if all_done {
                ::core::task::Poll::Ready(::core::result::Result::Ok((
                    $(match $crate::__join_pinned!(futures, $f [$($i)*]).take_output() {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(_) => unreachable!(),
                    },)*
                )))
            } else {
                ::core::task::Poll::Pending
            }
        })
        .await
    }};
}

/// Polls one `try_join!` future: `true` once it finished with `Ok`; returns the enclosing
/// `poll_fn` closure with the error once it finished with `Err`.
#[doc(hidden)]
#[macro_export]
macro_rules! __try_join_poll_one {
    ($futures:ident, $f:ident [$($i:tt)*], $cx:ident) => {{
        let mut $f = $crate::__join_pinned!($futures, $f [$($i)*]);
        if $f.as_mut().poll_done($cx).is_ready() {
            if let ::core::option::Option::Some(::core::result::Result::Err(_)) =
                $f.as_mut().output_mut()
            {
                return ::core::task::Poll::Ready(::core::result::Result::Err(
                    match $f.as_mut().take_output() {
                        ::core::result::Result::Err(e) => e,
                        ::core::result::Result::Ok(_) => unreachable!(),
                    },
                ));
            }
            true
        } else {
            false
        }
    }};
}
