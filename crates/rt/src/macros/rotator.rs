//! [`JoinRotator`]: which future a `join!` or `try_join!` polls first on each poll.

/// Where each poll of a `join!` starts: one future later on every poll, wrapping around, so a
/// future that spends the whole cooperative budget cannot keep the ones after it from ever
/// being polled. With `biased;` every poll starts at the first future. Not part of the public
/// API.
#[doc(hidden)]
#[derive(Debug)]
pub struct JoinRotator {
    next: u32,
    count: u32,
    biased: bool,
}

impl JoinRotator {
    /// A rotator over `count` futures.
    pub fn new(biased: bool, count: u32) -> JoinRotator {
        JoinRotator {
            next: 0,
            count,
            biased,
        }
    }

    /// The position of the future this poll starts with.
    pub fn start(&mut self) -> u32 {
        if self.biased {
            return 0;
        }
        let start = self.next;
        self.next = if start + 1 >= self.count {
            0
        } else {
            start + 1
        };
        start
    }
}

#[cfg(test)]
mod tests {
    use super::JoinRotator;

    #[test]
    fn rotates_and_wraps() {
        let mut r = JoinRotator::new(false, 3);
        let starts: Vec<u32> = (0..7).map(|_| r.start()).collect();
        assert_eq!(starts, [0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn biased_always_starts_at_the_first() {
        let mut r = JoinRotator::new(true, 3);
        let starts: Vec<u32> = (0..4).map(|_| r.start()).collect();
        assert_eq!(starts, [0, 0, 0, 0]);
    }
}
