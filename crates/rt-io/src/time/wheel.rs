//! The hierarchical timing wheel: [`LEVELS`] levels of [`SLOTS`] slots over a slab of nodes.
//!
//! Time is counted in ticks (see `driver.rs` for the tick length). Level `l` has 64 slots of
//! `64^l` ticks each, so level 0 resolves single ticks and covers 64 of them, level 1 covers 4096
//! ticks in slots of 64, and so on up to level 5, which covers `64^6 = 2^36` ticks.
//!
//! ```text
//!  level 5  |          64 slots x 2^30 ticks                                     |
//!  level 4  |  64 x 2^24  |
//!   ...
//!  level 0  |64 x 1|
//!           ^ elapsed: every deadline <= elapsed has been handed out
//! ```
//!
//! A timer due at tick `when` goes to the lowest level whose slot width separates it from
//! `elapsed`: the level of the highest bit in which `when` and `elapsed` differ, six bits a level
//! (the scheme of Varghese & Lauck's hierarchical wheels, as tokio lays it out). When time reaches
//! the start of an occupied slot of level `l > 0`, its timers are re-inserted relative to the new
//! `elapsed` and so cascade to lower levels; those of level 0 are due. A timer further than `2^36`
//! ticks out is parked in the top level at the far edge of its range and re-inserted when time gets
//! there, so any `u64` deadline is accepted.
//!
//! Each slot is a doubly linked list threaded through the slab by index, and a 64-bit mask per
//! level marks the occupied slots: insert and remove are O(1), finding the next deadline is a
//! few bit scans. Due timers are moved to the `pending` list, from which [`Wheel::poll`] hands them
//! out one at a time, so a caller can hand them out in small batches and release its lock between
//! them; a pending timer can still be removed.
//!
//! Timers due in the same tick are handed out in no particular order; across ticks, in tick order.
//!
//! The wheel is plain single-threaded data; `driver.rs` keeps it under its lock.

use rt_core::sync::Arc;

use super::entry::Entry;

/// Number of levels.
pub(crate) const LEVELS: usize = 6;
/// Slots per level.
pub(crate) const SLOTS: usize = 64;
/// Bits of tick per level.
const LEVEL_BITS: u32 = 6;
/// Ticks the wheel covers ahead of `elapsed`: `64^6`.
const RANGE: u64 = 1 << (LEVEL_BITS * LEVELS as u32);

/// No node: the end of a list, or an empty slot.
const NIL: u32 = u32::MAX;
/// List number of the pending list; slot lists are `level * SLOTS + slot`.
const PENDING: u16 = (LEVELS * SLOTS) as u16;
/// List number of a free slab node.
const FREE: u16 = PENDING + 1;

/// The slab index of a timer in the wheel. Stable while the timer is in the wheel, cascades
/// included; reused once it leaves, so a holder also compares the entry (see [`Wheel::remove`]).
pub(crate) type Key = u32;

#[derive(Debug)]
struct Node {
    /// `Some` while the node is in use.
    entry: Option<Arc<Entry>>,
    /// Deadline in ticks.
    when: u64,
    /// The list this node is on: a slot, `PENDING` or `FREE`.
    list: u16,
    prev: u32,
    /// Next node of the list (or of the free list).
    next: u32,
}

/// The timing wheel. See the module docs.
#[derive(Debug)]
pub(crate) struct Wheel {
    /// Every deadline `<= elapsed` has been moved to `pending` or handed out.
    elapsed: u64,
    nodes: Vec<Node>,
    free: u32,
    /// Head of each slot's list; index `level * SLOTS + slot`.
    heads: Vec<u32>,
    /// Bit `s` of `occupied[l]`: slot `s` of level `l` is non-empty.
    occupied: [u64; LEVELS],
    pending: u32,
    len: usize,
}

impl Wheel {
    /// An empty wheel at tick 0.
    pub(crate) fn new() -> Wheel {
        Wheel {
            elapsed: 0,
            nodes: Vec::new(),
            free: NIL,
            heads: vec![NIL; LEVELS * SLOTS],
            occupied: [0; LEVELS],
            pending: NIL,
            len: 0,
        }
    }

    /// The tick up to which the wheel has advanced.
    pub(crate) fn elapsed(&self) -> u64 {
        self.elapsed
    }

    /// Number of timers in the wheel, pending ones included.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds a timer due at tick `when`. Returns `Err(entry)` when `when <= elapsed`: the deadline
    /// has already been reached and the timer is not stored.
    pub(crate) fn insert(&mut self, when: u64, entry: Arc<Entry>) -> Result<Key, Arc<Entry>> {
        if when <= self.elapsed {
            return Err(entry);
        }
        let key = match self.free {
            NIL => {
                let key = u32::try_from(self.nodes.len()).expect("over 2^32 timers");
                assert_ne!(key, NIL, "over 2^32 timers");
                self.nodes.push(Node {
                    entry: None,
                    when: 0,
                    list: FREE,
                    prev: NIL,
                    next: NIL,
                });
                key
            }
            key => {
                self.free = self.nodes[key as usize].next;
                key
            }
        };
        let node = &mut self.nodes[key as usize];
        node.entry = Some(entry);
        node.when = when;
        self.len += 1;
        self.link(key, self.slot_list(when));
        Ok(key)
    }

    /// Removes the timer at `key` if it is still `entry`'s (the key may have been reused since the
    /// timer was handed out). Returns whether it was removed.
    pub(crate) fn remove(&mut self, key: Key, entry: &Arc<Entry>) -> bool {
        let ours = self
            .nodes
            .get(key as usize)
            .is_some_and(|n| n.entry.as_ref().is_some_and(|e| Arc::ptr_eq(e, entry)));
        if !ours {
            return false;
        }
        self.unlink(key);
        drop(self.release(key));
        true
    }

    /// The tick at which the wheel next has work: the start of the earliest occupied slot (a due
    /// timer or a cascade). `Some(elapsed)` if timers are pending; `None` if the wheel is empty.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        if self.pending != NIL {
            return Some(self.elapsed);
        }
        (0..LEVELS)
            .filter_map(|level| self.next_in_level(level))
            .min()
    }

    /// Advances to tick `now` and hands out one due timer, removing it from the wheel; `None` once
    /// no timer is due at `now`. Call until `None` to advance fully.
    pub(crate) fn poll(&mut self, now: u64) -> Option<Arc<Entry>> {
        loop {
            if self.pending != NIL {
                let key = self.pending;
                self.unlink(key);
                return Some(self.release(key));
            }
            match self.next_deadline() {
                Some(deadline) if deadline <= now => self.expire_slot(deadline),
                _ => {
                    self.elapsed = self.elapsed.max(now);
                    return None;
                }
            }
        }
    }

    /// Removes every timer, due or not, and hands each to `f`.
    pub(crate) fn drain(&mut self, mut f: impl FnMut(Arc<Entry>)) {
        for key in 0..self.nodes.len() as u32 {
            if self.nodes[key as usize].entry.is_some() {
                self.unlink(key);
                f(self.release(key));
            }
        }
    }

    /// Takes the slot that starts at `deadline` (the earliest occupied one): due timers go to the
    /// pending list, the others are re-inserted below.
    fn expire_slot(&mut self, deadline: u64) {
        let (level, slot) = (0..LEVELS)
            .find_map(|l| match self.next_in_level(l) {
                Some(d) if d == deadline => Some((l, slot_of(d, l))),
                _ => None,
            })
            .expect("deadline of an occupied slot");
        self.elapsed = deadline;
        let list = level * SLOTS + slot;
        let mut key = self.heads[list];
        self.heads[list] = NIL;
        self.occupied[level] &= !(1 << slot);
        while key != NIL {
            let next = self.nodes[key as usize].next;
            let when = self.nodes[key as usize].when;
            let target = if when <= self.elapsed {
                PENDING as usize
            } else {
                self.slot_list(when)
            };
            self.link(key, target);
            key = next;
        }
    }

    /// Start tick of the next occupied slot of `level`, at or after `elapsed`.
    fn next_in_level(&self, level: usize) -> Option<u64> {
        let occupied = self.occupied[level];
        if occupied == 0 {
            return None;
        }
        let shift = LEVEL_BITS * level as u32;
        let now_slot = (self.elapsed >> shift) as u32 % SLOTS as u32;
        let slot = (now_slot + occupied.rotate_right(now_slot).trailing_zeros()) % SLOTS as u32;
        let level_range = 1u64 << (shift + LEVEL_BITS);
        let level_start = self.elapsed & !(level_range - 1);
        let mut deadline = level_start + ((slot as u64) << shift);
        if deadline <= self.elapsed {
            // Only the top level wraps: it holds timers of the wheel's next turn.
            debug_assert_eq!(level, LEVELS - 1);
            deadline += level_range;
        }
        Some(deadline)
    }

    /// The slot list for a timer due at `when > elapsed`.
    fn slot_list(&self, when: u64) -> usize {
        // A timer past the wheel's range waits at its far edge, and is re-inserted from there.
        let when = when.min(self.elapsed.saturating_add(RANGE - 1));
        let mut masked = (self.elapsed ^ when) | (SLOTS as u64 - 1);
        if masked >= RANGE {
            masked = RANGE - 1;
        }
        let level = ((63 - masked.leading_zeros()) / LEVEL_BITS) as usize;
        level * SLOTS + slot_of(when, level)
    }

    fn link(&mut self, key: Key, list: usize) {
        let head = if list == PENDING as usize {
            &mut self.pending
        } else {
            self.occupied[list / SLOTS] |= 1 << (list % SLOTS);
            &mut self.heads[list]
        };
        let old = *head;
        *head = key;
        if old != NIL {
            self.nodes[old as usize].prev = key;
        }
        let node = &mut self.nodes[key as usize];
        node.list = list as u16;
        node.prev = NIL;
        node.next = old;
    }

    fn unlink(&mut self, key: Key) {
        let Node {
            list, prev, next, ..
        } = self.nodes[key as usize];
        debug_assert!(list < FREE);
        if prev != NIL {
            self.nodes[prev as usize].next = next;
        } else if list == PENDING {
            self.pending = next;
        } else {
            let list = list as usize;
            self.heads[list] = next;
            if next == NIL {
                self.occupied[list / SLOTS] &= !(1 << (list % SLOTS));
            }
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
    }

    /// Frees an unlinked node, returning its entry.
    fn release(&mut self, key: Key) -> Arc<Entry> {
        let node = &mut self.nodes[key as usize];
        node.list = FREE;
        node.next = self.free;
        self.free = key;
        self.len -= 1;
        node.entry.take().expect("a used node")
    }
}

fn slot_of(when: u64, level: usize) -> usize {
    ((when >> (LEVEL_BITS * level as u32)) % SLOTS as u64) as usize
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn entry() -> Arc<Entry> {
        Arc::new(Entry::new(None))
    }

    /// Polls tick by tick from `elapsed` to `until`, recording (tick, entry) of each hand-out.
    fn run(wheel: &mut Wheel, until: u64, step: u64) -> Vec<(u64, Arc<Entry>)> {
        let mut out = Vec::new();
        let mut now = wheel.elapsed();
        while now < until {
            now = (now + step).min(until);
            while let Some(e) = wheel.poll(now) {
                out.push((now, e));
            }
        }
        out
    }

    #[test]
    fn fires_each_timer_at_its_tick_across_levels() {
        let mut wheel = Wheel::new();
        let whens = [1u64, 2, 63, 64, 65, 4095, 4096, 4097, 300_000, 17_000_000];
        let entries: Vec<_> = whens.iter().map(|_| entry()).collect();
        for (w, e) in whens.iter().zip(&entries) {
            wheel.insert(*w, e.clone()).unwrap();
        }
        assert_eq!(wheel.len(), whens.len());
        // Jump straight to each deadline: the wheel must hand out exactly that timer there.
        for (w, e) in whens.iter().zip(&entries) {
            assert_eq!(
                wheel.poll(w - 1).map(|_| ()),
                None,
                "nothing due before {w}"
            );
            let got = wheel.poll(*w).expect("due");
            assert!(Arc::ptr_eq(&got, e), "timer of tick {w}");
            assert!(wheel.poll(*w).is_none());
        }
        assert_eq!(wheel.len(), 0);
        assert_eq!(wheel.next_deadline(), None);
    }

    #[test]
    fn fine_steps_never_fire_early_or_late() {
        let mut wheel = Wheel::new();
        let mut whens = Vec::new();
        let mut x = 7u64;
        for _ in 0..500 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            whens.push(1 + (x >> 33) % 20_000);
        }
        let entries: Vec<_> = whens.iter().map(|_| entry()).collect();
        for (w, e) in whens.iter().zip(&entries) {
            wheel.insert(*w, e.clone()).unwrap();
        }
        for (now, e) in run(&mut wheel, 20_001, 1) {
            let i = entries.iter().position(|x| Arc::ptr_eq(x, &e)).unwrap();
            assert_eq!(now, whens[i], "timer {i} handed out at its tick");
        }
        assert_eq!(wheel.len(), 0);
    }

    #[test]
    fn coarse_steps_fire_everything_due() {
        let mut wheel = Wheel::new();
        for w in (1..10_000).step_by(37) {
            wheel.insert(w, entry()).unwrap();
        }
        let n = wheel.len();
        let out = run(&mut wheel, 10_000, 1000);
        assert_eq!(out.len(), n);
        let mut last = 0;
        for (now, _) in &out {
            assert!(*now >= last);
            last = *now;
        }
    }

    #[test]
    fn remove_unlinks_and_key_reuse_is_detected() {
        let mut wheel = Wheel::new();
        let a = entry();
        let b = entry();
        let ka = wheel.insert(100, a.clone()).unwrap();
        let kb = wheel.insert(100, b.clone()).unwrap();
        assert!(wheel.remove(ka, &a));
        assert!(!wheel.remove(ka, &a), "removed once");
        let c = entry();
        let kc = wheel.insert(5000, c.clone()).unwrap();
        assert_eq!(kc, ka, "the freed node is reused");
        assert!(
            !wheel.remove(kc, &a),
            "a stale key does not remove another timer"
        );
        let got: Vec<_> = run(&mut wheel, 6000, 50);
        assert_eq!(got.len(), 2);
        assert!(Arc::ptr_eq(&got[0].1, &b));
        assert!(Arc::ptr_eq(&got[1].1, &c));
        assert!(!wheel.remove(kb, &b), "a handed-out timer is gone");
    }

    #[test]
    fn past_and_far_deadlines() {
        let mut wheel = Wheel::new();
        assert!(wheel.poll(10).is_none());
        assert!(wheel.insert(10, entry()).is_err(), "due at elapsed");
        assert!(wheel.insert(3, entry()).is_err(), "in the past");
        let far = entry();
        wheel.insert(u64::MAX, far.clone()).unwrap();
        let beyond = entry();
        let when = 10 + RANGE + 12_345;
        wheel.insert(when, beyond.clone()).unwrap();
        // Nothing fires up to just before `when`, across the wheel's whole range.
        assert!(run(&mut wheel, when - 1, RANGE / 7).is_empty());
        let got = wheel.poll(when).expect("due");
        assert!(Arc::ptr_eq(&got, &beyond));
        assert!(wheel.drain_finds(&far));
    }

    #[test]
    fn pending_timers_can_be_removed() {
        let mut wheel = Wheel::new();
        let a = entry();
        let b = entry();
        let ka = wheel.insert(5, a.clone()).unwrap();
        let kb = wheel.insert(5, b.clone()).unwrap();
        let first = wheel.poll(5).unwrap();
        // The other one is pending now; remove it.
        let (other, key) = if Arc::ptr_eq(&first, &a) {
            (&b, kb)
        } else {
            (&a, ka)
        };
        assert!(wheel.remove(key, other));
        assert!(wheel.poll(5).is_none());
        assert_eq!(wheel.len(), 0);
    }

    impl Wheel {
        fn drain_finds(&mut self, e: &Arc<Entry>) -> bool {
            let mut found = false;
            self.drain(|x| found |= Arc::ptr_eq(&x, e));
            found && self.len == 0
        }
    }
}
