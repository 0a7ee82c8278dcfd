//! `pin!`.

/// Pins values on the stack, as tokio's `pin!`: each named variable is moved into a hidden
/// slot and the name rebound to a `Pin<&mut T>` of it, so a `!Unpin` future can be polled by
/// reference (in `select!` inside a loop, say) without boxing.
///
/// Two forms: `pin!(a, b)` pins existing variables; `pin! { let a = expr; let b = expr; }`
/// declares and pins in one step.
///
/// ```
/// let rt = rt::Builder::new_current_thread().build()?;
/// rt.block_on(async {
///     let fut = async { 7 };
///     rt::pin!(fut);
///     // `fut` is `Pin<&mut impl Future>` now: it can be awaited by reference.
///     assert_eq!((&mut fut).await, 7);
///
///     rt::pin! {
///         let later = async { 8 };
///     }
///     assert_eq!(later.await, 8);
/// });
/// # Ok::<(), std::io::Error>(())
/// ```
#[macro_export]
macro_rules! pin {
    ($($x:ident),* $(,)?) => { $(
        #[allow(unused_mut)]
        let mut $x = ::core::pin::pin!($x);
    )* };
    ($(
        let $x:ident = $init:expr;
    )*) => { $(
        let $x = $init;
        $crate::pin!($x);
    )* };
}
