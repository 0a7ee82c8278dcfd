//! `rt::select!` picks a random start branch on each call, so two always-ready branches each
//! win about half the time; with `biased;` the first ready branch always wins.

mod support;

#[test]
fn two_ready_branches_each_win_40_to_60_percent() {
    let (a, b) = support::current_thread().block_on(async {
        let (mut a, mut b) = (0u32, 0u32);
        for _ in 0..10_000 {
            rt::select! {
                _ = std::future::ready(()) => a += 1,
                _ = std::future::ready(()) => b += 1,
            }
        }
        (a, b)
    });
    assert_eq!(a + b, 10_000);
    assert!(
        (4_000..=6_000).contains(&a),
        "first branch won {a} of 10,000"
    );
    assert!(
        (4_000..=6_000).contains(&b),
        "second branch won {b} of 10,000"
    );
}

#[test]
fn biased_polls_in_declaration_order() {
    let firsts = support::current_thread().block_on(async {
        let mut firsts = 0u32;
        for _ in 0..10_000 {
            rt::select! {
                biased;
                _ = std::future::ready(()) => firsts += 1,
                _ = std::future::ready(()) => {}
                _ = std::future::ready(()) => {}
            }
        }
        firsts
    });
    assert_eq!(firsts, 10_000);
}

#[test]
fn sixteen_branches() {
    let won = support::current_thread().block_on(async {
        rt::select! {
            biased;
            _ = std::future::pending::<()>() => 0,
            _ = std::future::pending::<()>() => 1,
            _ = std::future::pending::<()>() => 2,
            _ = std::future::pending::<()>() => 3,
            _ = std::future::pending::<()>() => 4,
            _ = std::future::pending::<()>() => 5,
            _ = std::future::pending::<()>() => 6,
            _ = std::future::pending::<()>() => 7,
            _ = std::future::pending::<()>() => 8,
            _ = std::future::pending::<()>() => 9,
            _ = std::future::pending::<()>() => 10,
            _ = std::future::pending::<()>() => 11,
            _ = std::future::pending::<()>() => 12,
            _ = std::future::pending::<()>() => 13,
            _ = std::future::pending::<()>() => 14,
            v = std::future::ready(15) => v,
        }
    });
    assert_eq!(won, 15);
}
