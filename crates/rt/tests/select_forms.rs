//! `select!` with only an `else`, and with 64 branches (tokio's limit), as tokio's.

mod support;

#[test]
fn only_else() {
    support::current_thread().block_on(async {
        let v = rt::select! {
            else => 1,
        };
        assert_eq!(v, 1);
        let v = rt::select! {
            biased;
            else => 2,
        };
        assert_eq!(v, 2);
    });
}

#[test]
fn sixty_four_branches() {
    support::current_thread().block_on(async {
        let v = rt::select! {
            biased;
            x = async { 0 } => x,
            x = async { 1 } => x,
            x = async { 2 } => x,
            x = async { 3 } => x,
            x = async { 4 } => x,
            x = async { 5 } => x,
            x = async { 6 } => x,
            x = async { 7 } => x,
            x = async { 8 } => x,
            x = async { 9 } => x,
            x = async { 10 } => x,
            x = async { 11 } => x,
            x = async { 12 } => x,
            x = async { 13 } => x,
            x = async { 14 } => x,
            x = async { 15 } => x,
            x = async { 16 } => x,
            x = async { 17 } => x,
            x = async { 18 } => x,
            x = async { 19 } => x,
            x = async { 20 } => x,
            x = async { 21 } => x,
            x = async { 22 } => x,
            x = async { 23 } => x,
            x = async { 24 } => x,
            x = async { 25 } => x,
            x = async { 26 } => x,
            x = async { 27 } => x,
            x = async { 28 } => x,
            x = async { 29 } => x,
            x = async { 30 } => x,
            x = async { 31 } => x,
            x = async { 32 } => x,
            x = async { 33 } => x,
            x = async { 34 } => x,
            x = async { 35 } => x,
            x = async { 36 } => x,
            x = async { 37 } => x,
            x = async { 38 } => x,
            x = async { 39 } => x,
            x = async { 40 } => x,
            x = async { 41 } => x,
            x = async { 42 } => x,
            x = async { 43 } => x,
            x = async { 44 } => x,
            x = async { 45 } => x,
            x = async { 46 } => x,
            x = async { 47 } => x,
            x = async { 48 } => x,
            x = async { 49 } => x,
            x = async { 50 } => x,
            x = async { 51 } => x,
            x = async { 52 } => x,
            x = async { 53 } => x,
            x = async { 54 } => x,
            x = async { 55 } => x,
            x = async { 56 } => x,
            x = async { 57 } => x,
            x = async { 58 } => x,
            x = async { 59 } => x,
            x = async { 60 } => x,
            x = async { 61 } => x,
            x = async { 62 } => x,
            x = async { 63 } => x,
        };
        assert_eq!(v, 0, "biased: the first ready branch wins");
    });
}

/// A disabled branch whose future's output nothing else decides (`poll_fn(|_| panic!())`):
/// its type falls back to `()`, as with tokio.
#[test]
fn disabled_branch_with_an_undecided_output() {
    support::current_thread().block_on(async {
        let f = std::future::poll_fn(|_| panic!());
        let v = rt::select! {
            _ = f, if false => unreachable!(),
            v = async { 3 } => v,
        };
        assert_eq!(v, 3);
    });
}

/// `ref mut` in a branch pattern binds the output mutably.
#[test]
fn ref_mut_pattern() {
    support::current_thread().block_on(async {
        let got = rt::select! {
            Some(ref mut s) = async { Some("1".to_string()) } => {
                s.push('2');
                s.clone()
            },
        };
        assert_eq!(got, "12");
    });
}

/// A temporary borrowed in a branch's expression lives until the select is done.
#[test]
fn temporary_borrowed_in_a_branch() {
    support::current_thread().block_on(async {
        let v = rt::select! {
            v = &mut std::future::ready(5) => v,
        };
        assert_eq!(v, 5);
    });
}

/// A task whose budget is spent yields at a `select!` before polling any branch, even one
/// that is ready, as tokio's does.
#[test]
fn select_yields_when_the_budget_is_spent() {
    use std::future::Future;
    use std::task::{Context, Poll};
    support::current_thread().block_on(async {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut spent = 0;
        loop {
            let mut sel = std::pin::pin!(async {
                rt::select! {
                    biased;
                    () = rt::task::coop::consume_budget() => true,
                    () = std::future::ready(()) => false,
                }
            });
            match sel.as_mut().poll(&mut cx) {
                Poll::Ready(consumed) => {
                    assert!(consumed, "the budget branch finishes while budget is left");
                    spent += 1;
                    assert!(spent <= 1024, "the budget never ran out");
                }
                Poll::Pending => break,
            }
        }
        assert!(spent > 0);
    });
}

/// The size of `fut`'s future.
fn size_of_future<F: std::future::Future>(_: &F) -> usize {
    std::mem::size_of::<F>()
}

#[test]
fn a_select_future_holds_each_future_once_and_little_else() {
    use std::future::{ready, Ready};
    // What a `select!` over `n` `Ready<i32>`s must keep across its await: the futures, one
    // reference to them, a one-byte mask of disabled branches (up to 8 branches), and the
    // block's state.
    let one = std::mem::size_of::<Ready<i32>>();
    // The reference, the mask (a word with padding) and the block's state (a word). No pinned
    // reference per future.
    let overhead = 3 * std::mem::size_of::<usize>();
    let s1 = async {
        rt::select! {
            _ = ready(0i32) => {},
        }
    };
    assert!(
        size_of_future(&s1) <= one + overhead,
        "{}",
        size_of_future(&s1)
    );
    let s3 = async {
        rt::select! {
            _ = ready(0i32) => {},
            _ = ready(0i32) => {},
            _ = ready(0i32) => {},
        }
    };
    assert!(
        size_of_future(&s3) <= 3 * one + overhead,
        "{}",
        size_of_future(&s3)
    );
}

#[test]
fn the_mask_has_a_bit_for_each_of_64_branches() {
    use std::future::ready;
    let rt = rt::Builder::new_current_thread().build().unwrap();
    // Every branch but the last is disabled, by its precondition or by a non-matching output:
    // the last one's bit (63) must be its own.
    let got = rt.block_on(async {
        let no = false;
        rt::select! {
            biased;
            Some(_) = ready(None::<u8>) => 0, _ = ready(()), if no => 1, _ = ready(()), if no => 2,
            _ = ready(()), if no => 3, _ = ready(()), if no => 4, _ = ready(()), if no => 5,
            _ = ready(()), if no => 6, _ = ready(()), if no => 7, _ = ready(()), if no => 8,
            _ = ready(()), if no => 9, _ = ready(()), if no => 10, _ = ready(()), if no => 11,
            _ = ready(()), if no => 12, _ = ready(()), if no => 13, _ = ready(()), if no => 14,
            _ = ready(()), if no => 15, _ = ready(()), if no => 16, _ = ready(()), if no => 17,
            _ = ready(()), if no => 18, _ = ready(()), if no => 19, _ = ready(()), if no => 20,
            _ = ready(()), if no => 21, _ = ready(()), if no => 22, _ = ready(()), if no => 23,
            _ = ready(()), if no => 24, _ = ready(()), if no => 25, _ = ready(()), if no => 26,
            _ = ready(()), if no => 27, _ = ready(()), if no => 28, _ = ready(()), if no => 29,
            _ = ready(()), if no => 30, _ = ready(()), if no => 31, _ = ready(()), if no => 32,
            _ = ready(()), if no => 33, _ = ready(()), if no => 34, _ = ready(()), if no => 35,
            _ = ready(()), if no => 36, _ = ready(()), if no => 37, _ = ready(()), if no => 38,
            _ = ready(()), if no => 39, _ = ready(()), if no => 40, _ = ready(()), if no => 41,
            _ = ready(()), if no => 42, _ = ready(()), if no => 43, _ = ready(()), if no => 44,
            _ = ready(()), if no => 45, _ = ready(()), if no => 46, _ = ready(()), if no => 47,
            _ = ready(()), if no => 48, _ = ready(()), if no => 49, _ = ready(()), if no => 50,
            _ = ready(()), if no => 51, _ = ready(()), if no => 52, _ = ready(()), if no => 53,
            _ = ready(()), if no => 54, _ = ready(()), if no => 55, _ = ready(()), if no => 56,
            _ = ready(()), if no => 57, _ = ready(()), if no => 58, _ = ready(()), if no => 59,
            _ = ready(()), if no => 60, _ = ready(()), if no => 61, _ = ready(()), if no => 62,
            _ = ready(()) => 63,
        }
    });
    assert_eq!(got, 63);
}
