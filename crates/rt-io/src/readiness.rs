//! The readiness word: the one packed atomic of a registration, and the only file that knows its
//! bit layout.
//!
//! ```text
//!  63            48 47                  24 23              8  7   6   5   4   3   2   1   0
//! +----------------+----------------------+-----------------+---+---+---+---+---+---+---+---+
//! |     unused     |      generation      |      tick       |SHT| - |PRI|ERR|WCL|RCL| W | R |
//! +----------------+----------------------+-----------------+---+---+---+---+---+---+---+---+
//! ```
//!
//! - **readiness** (bits 0–5): what the OS last reported and nobody has cleared since: readable,
//!   writable, read side closed, write side closed, error, priority (`EPOLLPRI`: out-of-band
//!   data). The reactor only ever adds bits; a task removes the bits it waited for after its
//!   syscall returned `WouldBlock` (edge-triggered), and never removes the closed bits (a closed
//!   side stays closed). The owner of a new source may add READABLE/WRITABLE it knows (or
//!   guesses) hold before any event (`Word::assume`): an accepted stream, a fresh pair. A guess
//!   that is wrong costs one syscall that returns `WouldBlock` and clears it.
//! - **SHT** (bit 7): the reactor stopped (shut down or died). Once set, every wait on this word
//!   completes at once and the caller turns it into an `io::Error`.
//! - **tick** (bits 8–23): counts the events the reactor delivered to this word (wrapping). A task
//!   clears readiness only if the tick is still the one it observed, so an event that arrived
//!   between its observation and its `WouldBlock` is never cleared away.
//! - **generation** (bits 24–47): bumped each time the registration slot is released. The mio token
//!   carries the generation it was issued with (see `slab.rs`), and an event whose generation is not
//!   the word's is stale: it belongs to a previous owner of the slot and is dropped, so a reused slot
//!   never wakes the wrong task. 24 bits: a slot must be reused 16 million times between an event's
//!   arrival and its dispatch before a stale event could alias.

use std::fmt;
use std::ops;

/// Readiness reported by the OS for one registration.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Ready(u8);

impl Ready {
    /// No readiness.
    pub const EMPTY: Ready = Ready(0);
    /// A read would not block.
    pub const READABLE: Ready = Ready(1 << 0);
    /// A write would not block.
    pub const WRITABLE: Ready = Ready(1 << 1);
    /// The peer closed its write side (a read returns 0 or an error).
    pub const READ_CLOSED: Ready = Ready(1 << 2);
    /// The write side is closed (a write fails).
    pub const WRITE_CLOSED: Ready = Ready(1 << 3);
    /// The socket has a pending error (or, with `SO_TIMESTAMPING`, a message in its error
    /// queue).
    pub const ERROR: Ready = Ready(1 << 4);
    /// Priority data (TCP out-of-band data, `EPOLLPRI`) can be read.
    pub const PRIORITY: Ready = Ready(1 << 5);
    /// Every bit.
    pub const ALL: Ready = Ready(
        Self::READABLE.0
            | Self::WRITABLE.0
            | Self::READ_CLOSED.0
            | Self::WRITE_CLOSED.0
            | Self::ERROR.0
            | Self::PRIORITY.0,
    );
    /// Every closed bit: these are never cleared by a task.
    const ALL_CLOSED: Ready = Ready(Self::READ_CLOSED.0 | Self::WRITE_CLOSED.0);

    /// Whether no bit is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the readable bit is set.
    pub fn is_readable(self) -> bool {
        self.0 & Self::READABLE.0 != 0
    }

    /// Whether the writable bit is set.
    pub fn is_writable(self) -> bool {
        self.0 & Self::WRITABLE.0 != 0
    }

    /// Whether the read side is closed.
    pub fn is_read_closed(self) -> bool {
        self.0 & Self::READ_CLOSED.0 != 0
    }

    /// Whether the write side is closed.
    pub fn is_write_closed(self) -> bool {
        self.0 & Self::WRITE_CLOSED.0 != 0
    }

    /// Whether an error is pending.
    pub fn is_error(self) -> bool {
        self.0 & Self::ERROR.0 != 0
    }

    /// Whether priority data can be read.
    pub fn is_priority(self) -> bool {
        self.0 & Self::PRIORITY.0 != 0
    }

    /// The bits of `self` that `interest` waits for.
    pub fn intersection(self, interest: Interest) -> Ready {
        Ready(self.0 & interest.mask().0)
    }

    /// `self` without the closed bits: what a task may clear.
    fn clearable(self) -> Ready {
        Ready(self.0 & !Self::ALL_CLOSED.0)
    }
}

impl ops::BitOr for Ready {
    type Output = Ready;
    fn bitor(self, rhs: Ready) -> Ready {
        Ready(self.0 | rhs.0)
    }
}

impl ops::BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, rhs: Ready) -> Ready {
        Ready(self.0 & rhs.0)
    }
}

impl ops::Sub for Ready {
    type Output = Ready;
    /// The bits of `self` that are not in `rhs`.
    fn sub(self, rhs: Ready) -> Ready {
        Ready(self.0 & !rhs.0)
    }
}

impl ops::BitOrAssign for Ready {
    fn bitor_assign(&mut self, rhs: Ready) {
        self.0 |= rhs.0;
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ready")
            .field("readable", &self.is_readable())
            .field("writable", &self.is_writable())
            .field("read_closed", &self.is_read_closed())
            .field("write_closed", &self.is_write_closed())
            .field("error", &self.is_error())
            .field("priority", &self.is_priority())
            .finish()
    }
}

/// What a registration waits for: reading, writing, priority data, errors, or a union of them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Interest(u8);

impl Interest {
    /// Wait until reading would not block.
    pub const READABLE: Interest = Interest(1 << 0);
    /// Wait until writing would not block.
    pub const WRITABLE: Interest = Interest(1 << 1);
    /// Wait until priority data (TCP out-of-band data, `EPOLLPRI`) can be read.
    pub const PRIORITY: Interest = Interest(1 << 2);
    /// Wait for an error (a pending socket error, or a message in the error queue). The OS
    /// always reports errors; this interest only says a wait completes on one alone.
    pub const ERROR: Interest = Interest(1 << 3);

    /// Both interests.
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// `self` without the interests in `other`; `None` when nothing would be left (tokio's
    /// `Interest::remove`).
    pub fn remove(self, other: Interest) -> Option<Interest> {
        let left = self.0 & !other.0;
        (left != 0).then_some(Interest(left))
    }

    /// Whether reading is of interest.
    pub const fn is_readable(self) -> bool {
        self.0 & Self::READABLE.0 != 0
    }

    /// Whether writing is of interest.
    pub const fn is_writable(self) -> bool {
        self.0 & Self::WRITABLE.0 != 0
    }

    /// Whether priority data is of interest.
    pub const fn is_priority(self) -> bool {
        self.0 & Self::PRIORITY.0 != 0
    }

    /// Whether errors are of interest.
    pub const fn is_error(self) -> bool {
        self.0 & Self::ERROR.0 != 0
    }

    /// The readiness bits that complete a wait with this interest. An error completes every
    /// wait, and a closed side the waits of its direction: the task's syscall then reports what
    /// happened.
    pub(crate) fn mask(self) -> Ready {
        let mut r = Ready::ERROR;
        if self.is_readable() {
            r |= Ready::READABLE | Ready::READ_CLOSED;
        }
        if self.is_writable() {
            r |= Ready::WRITABLE | Ready::WRITE_CLOSED;
        }
        if self.is_priority() {
            r |= Ready::PRIORITY | Ready::READ_CLOSED;
        }
        r
    }

    /// The interest registered with mio. mio has no error interest (errors are always
    /// reported) and refuses an empty one, so an error-only interest registers as readable;
    /// the wait's mask keeps the readable bit from completing it.
    pub(crate) fn to_mio(self) -> mio::Interest {
        let mut m: Option<mio::Interest> = None;
        let mut add = |i: mio::Interest| m = Some(m.map_or(i, |m| m | i));
        if self.is_readable() {
            add(mio::Interest::READABLE);
        }
        if self.is_writable() {
            add(mio::Interest::WRITABLE);
        }
        if self.is_priority() {
            add(mio::Interest::PRIORITY);
        }
        m.unwrap_or(mio::Interest::READABLE)
    }
}

impl ops::BitOr for Interest {
    type Output = Interest;
    fn bitor(self, rhs: Interest) -> Interest {
        self.add(rhs)
    }
}

impl ops::BitOrAssign for Interest {
    fn bitor_assign(&mut self, rhs: Interest) {
        *self = self.add(rhs);
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (self.is_readable(), "READABLE"),
            (self.is_writable(), "WRITABLE"),
            (self.is_priority(), "PRIORITY"),
            (self.is_error(), "ERROR"),
        ];
        let mut sep = "";
        for (_, name) in names.iter().filter(|(set, _)| *set) {
            write!(f, "{sep}{name}")?;
            sep = " | ";
        }
        if sep.is_empty() {
            f.write_str("(none)")?;
        }
        Ok(())
    }
}

const READY_MASK: u64 = 0x3f;
const SHUTDOWN: u64 = 1 << 7;
const TICK_SHIFT: u32 = 8;
const TICK_MASK: u64 = 0xffff << TICK_SHIFT;
const GENERATION_SHIFT: u32 = 24;

/// Width of the generation, shared with the token layout in `slab.rs`.
pub(crate) const GENERATION_BITS: u32 = 24;
const GENERATION_MAX: u64 = (1 << GENERATION_BITS) - 1;
const GENERATION_MASK: u64 = GENERATION_MAX << GENERATION_SHIFT;

/// A decoded value of the readiness word.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word(u64);

impl Word {
    /// A fresh word of generation `generation`: no readiness, tick 0, running.
    pub(crate) fn new(generation: u32) -> Word {
        Word((u64::from(generation) & GENERATION_MAX) << GENERATION_SHIFT)
    }

    pub(crate) fn from_raw(raw: u64) -> Word {
        Word(raw)
    }

    pub(crate) fn into_raw(self) -> u64 {
        self.0
    }

    pub(crate) fn ready(self) -> Ready {
        Ready((self.0 & READY_MASK) as u8)
    }

    pub(crate) fn tick(self) -> u16 {
        ((self.0 & TICK_MASK) >> TICK_SHIFT) as u16
    }

    pub(crate) fn generation(self) -> u32 {
        ((self.0 & GENERATION_MASK) >> GENERATION_SHIFT) as u32
    }

    pub(crate) fn is_shutdown(self) -> bool {
        self.0 & SHUTDOWN != 0
    }

    /// The word after the reactor delivered `ready`: bits added, tick advanced.
    pub(crate) fn deliver(self, ready: Ready) -> Word {
        let tick = u64::from(self.tick().wrapping_add(1)) << TICK_SHIFT;
        Word((self.0 & !TICK_MASK) | tick | u64::from(ready.0) & READY_MASK)
    }

    /// The word with `ready`'s clearable bits removed.
    pub(crate) fn clear(self, ready: Ready) -> Word {
        Word(self.0 & !u64::from(ready.clearable().0))
    }

    /// The word with `ready` added and the tick unchanged (readiness assumed without an
    /// event); unchanged once shut down.
    pub(crate) fn assume(self, ready: Ready) -> Word {
        if self.is_shutdown() {
            return self;
        }
        Word(self.0 | u64::from(ready.0) & READY_MASK)
    }

    /// The word with the shutdown bit set.
    pub(crate) fn shut_down(self) -> Word {
        Word(self.0 | SHUTDOWN)
    }

    /// A fresh word of the next generation (wrapping).
    pub(crate) fn next_generation(self) -> Word {
        Word::new(((u64::from(self.generation()) + 1) & GENERATION_MAX) as u32)
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Word")
            .field("ready", &self.ready())
            .field("shutdown", &self.is_shutdown())
            .field("tick", &self.tick())
            .field("generation", &self.generation())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_do_not_overlap() {
        let w = Word::new(GENERATION_MAX as u32)
            .deliver(Ready::READABLE | Ready::ERROR | Ready::PRIORITY)
            .shut_down();
        assert_eq!(w.generation(), GENERATION_MAX as u32);
        assert_eq!(w.tick(), 1);
        assert!(w.is_shutdown());
        assert_eq!(w.ready(), Ready::READABLE | Ready::ERROR | Ready::PRIORITY);
        assert_eq!(w.next_generation().generation(), 0);
        assert_eq!(w.next_generation().ready(), Ready::EMPTY);
    }

    #[test]
    fn clear_keeps_closed_bits() {
        let w = Word::new(3).deliver(Ready::READABLE | Ready::READ_CLOSED);
        let c = w.clear(Ready::READABLE | Ready::READ_CLOSED);
        assert_eq!(c.ready(), Ready::READ_CLOSED);
        assert_eq!(c.generation(), 3);
    }

    #[test]
    fn assume_adds_bits_but_not_after_shutdown() {
        let w = Word::new(2).deliver(Ready::WRITABLE);
        let a = w.assume(Ready::READABLE);
        assert_eq!(a.ready(), Ready::READABLE | Ready::WRITABLE);
        assert_eq!(a.tick(), w.tick());
        assert_eq!(a.generation(), 2);
        let s = Word::new(2).shut_down();
        assert_eq!(s.assume(Ready::READABLE), s);
    }

    #[test]
    fn tick_wraps_without_touching_generation() {
        let mut w = Word::new(5);
        for _ in 0..=u16::MAX as u32 {
            w = w.deliver(Ready::EMPTY);
        }
        assert_eq!(w.tick(), 0);
        assert_eq!(w.generation(), 5);
    }
}
