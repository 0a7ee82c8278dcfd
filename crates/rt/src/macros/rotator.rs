//! [`JoinRotator`] and [`BiasedRotator`]: which future a `join!` or `try_join!` polls first on
//! each poll.

/// Where each poll of a `join!` over `COUNT` futures starts: one future later on every poll,
/// wrapping around, so a future that spends the whole cooperative budget cannot keep the ones
/// after it from ever being polled. One `u32` in the macro's future. Not part of the public
/// API.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct JoinRotator<const COUNT: u32> {
    next: u32,
}

impl<const COUNT: u32> JoinRotator<COUNT> {
    /// A rotator that starts at the first future.
    pub fn new() -> Self {
        JoinRotator { next: 0 }
    }

    /// The position of the future this poll starts with.
    pub fn start(&mut self) -> u32 {
        let start = self.next;
        self.next = if start + 1 >= COUNT { 0 } else { start + 1 };
        start
    }
}

/// `biased;`: every poll starts at the first future. Zero-sized. Not part of the public API.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct BiasedRotator;

impl BiasedRotator {
    /// Always 0: the first future.
    pub fn start(&mut self) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::{BiasedRotator, JoinRotator};

    #[test]
    fn rotates_and_wraps() {
        let mut r = JoinRotator::<3>::new();
        let starts: Vec<u32> = (0..7).map(|_| r.start()).collect();
        assert_eq!(starts, [0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn biased_always_starts_at_the_first() {
        let mut r = BiasedRotator;
        let starts: Vec<u32> = (0..4).map(|_| r.start()).collect();
        assert_eq!(starts, [0, 0, 0, 0]);
        assert_eq!(std::mem::size_of::<BiasedRotator>(), 0);
    }
}
