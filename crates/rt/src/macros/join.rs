//! `join!` and `try_join!`.
//!
//! Each macro first turns its list of futures into a list of `(name, future)` pairs, one step
//! of recursion per future: every step writes the same identifier `fut`, but macro hygiene gives
//! each step's `fut` its own syntax context, so the final step binds that many distinct
//! variables. The futures are polled in declaration order, in the calling task.

/// Waits on several futures at once, in the calling task, and returns a tuple of their outputs.
///
/// As tokio's `join!`: all the futures run concurrently in the task that awaits the macro (no
/// task is spawned, so they do not run in parallel), and the macro returns when the last one
/// finishes. Usable only inside an `async` context.
///
/// ```
/// let rt = rt::Builder::new_current_thread().build()?;
/// let (a, b) = rt.block_on(async { rt::join!(async { 1 }, async { "two" }) });
/// assert_eq!((a, b), (1, "two"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[macro_export]
macro_rules! join {
    (@ [$($acc:tt)*]) => {
        $crate::__join_poll!(join [$($acc)*])
    };
    (@ [$($acc:tt)*] $e:expr $(, $rest:expr)*) => {
        $crate::join!(@ [$($acc)* (fut $e)] $($rest),*)
    };
    ($($e:expr),+ $(,)?) => {
        $crate::join!(@ [] $($e),+)
    };
}

/// Waits on several futures of `Result`s at once and returns `Ok` of a tuple of their values,
/// or the first `Err`, in which case the other futures are dropped without being polled again.
///
/// As tokio's `try_join!`; the futures run concurrently in the calling task.
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
    (@ [$($acc:tt)*]) => {
        $crate::__join_poll!(try_join [$($acc)*])
    };
    (@ [$($acc:tt)*] $e:expr $(, $rest:expr)*) => {
        $crate::try_join!(@ [$($acc)* (fut $e)] $($rest),*)
    };
    ($($e:expr),+ $(,)?) => {
        $crate::try_join!(@ [] $($e),+)
    };
}

/// The shared last step of `join!` and `try_join!`: bind, pin, poll all, collect.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_poll {
    (join [$(($f:ident $e:expr))*]) => {{
        $(
            let mut $f = ::core::pin::pin!($crate::__private::MaybeDone::new($e));
        )*
        ::core::future::poll_fn(|cx| {
            let mut all_done = true;
            $(
                all_done &= $f.as_mut().poll_done(cx).is_ready();
            )*
            if all_done {
                ::core::task::Poll::Ready(($($f.as_mut().take_output(),)*))
            } else {
                ::core::task::Poll::Pending
            }
        })
        .await
    }};
    (try_join [$(($f:ident $e:expr))*]) => {{
        $(
            let mut $f = ::core::pin::pin!($crate::__private::MaybeDone::new($e));
        )*
        ::core::future::poll_fn(|cx| {
            let mut all_done = true;
            $(
                if $f.as_mut().poll_done(cx).is_ready() {
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
                } else {
                    all_done = false;
                }
            )*
            if all_done {
                ::core::task::Poll::Ready(::core::result::Result::Ok((
                    $(match $f.as_mut().take_output() {
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
