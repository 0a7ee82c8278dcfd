//! Chrome trace / Perfetto export (`rt::Builder::trace_file`, `RT_TRACE=path`).
//!
//! Workers record compact binary [`event_ring::Event`]s — poll start and end, spawn, wake, complete,
//! park, unpark, steal — into a fixed-size ring each ([`event_ring`], single producer, single
//! consumer, no allocation per event and no lock). Other threads (the `block_on` thread, the
//! blocking pool, a thread driving a `LocalSet`, a foreign thread that wakes a task, the stall
//! monitor) record into one bounded buffer behind a lock; a poll recorded there inside another
//! one (a `LocalSet` driven in a poll) is marked nested, and drawn inside the enclosing slice. A writer thread (`rt-trace`) drains them every few
//! milliseconds and writes Chrome JSON (`writer.rs`). A full ring drops the event and counts the
//! drop; the drops per track are written in the file's `metadata`.
//!
//! Timestamps are raw clock readings ([`Clock`]): the TSC on x86-64 when the kernel's clock
//! source is the TSC (calibrated once against `Instant` when the recorder starts), otherwise
//! `Instant`. The writer converts them to microseconds.
//!
//! When tracing is off the scheduler's hooks cost one branch on an `Option` (the worker's
//! `Option<WorkerTrace>`, the scheduler's `Option<Arc<Recorder>>`).
//!
//! Outside every modelled protocol except the ring's: the writer thread, the remote buffer's
//! `Mutex` and the thread-local track ids are std's (the shim's exception 8).

pub mod event_ring;
mod writer;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::panic::Location;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use event_ring::{Event, Producer};

/// Events per worker ring (32 B each: 1 MiB per worker).
const RING_EVENTS: usize = 1 << 15;
/// Events the shared buffer of non-worker threads holds between two drains.
const REMOTE_EVENTS: usize = 1 << 15;
/// How often the writer drains the rings.
const DRAIN_EVERY: Duration = Duration::from_millis(5);
/// Bytes of a task's name kept in the trace (longer names are cut).
const NAME_MAX: usize = 60;
/// Name bytes carried by one `Kind::NameChunk` event (`a`: 8, `b`: 4).
const CHUNK: usize = 12;
/// Tracks of non-worker threads start here (worker `i`'s track is `i`).
const FIRST_THREAD_TRACK: u32 = 1000;

/// What an [`Event`] records, and what its fields hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Kind {
    /// `task` is about to be polled; `a`: its `&'static Location`; `b` = 1: inside another
    /// poll on this track (a `LocalSet` driven in a poll: `Recorder::run_here`).
    PollStart = 1,
    /// `task`'s poll returned.
    PollEnd,
    /// `task` was spawned; `a`: its `&'static Location`; `b`: its name's length (chunks follow).
    Spawn,
    /// The next 12 bytes of `task`'s name (after its `Spawn`): `a`'s 8, then `b`'s 4, little
    /// endian.
    NameChunk,
    /// `task` was scheduled by a wake (`b` = 1: it woke itself, a yield).
    Wake,
    /// `task` completed (or was cancelled) on this thread.
    Complete,
    /// The worker parks.
    Park,
    /// The worker is back from parking.
    Unpark,
    /// The worker stole from worker `a`.
    Steal,
    /// A poll of `task` on worker `a` has stalled: `b >> 1` milliseconds so far, `b & 1`: it
    /// has ended (`Recorder::record_stall`).
    Stall,
    /// Counter sample: `a` injector depth, `task` live tasks.
    Counters,
}

impl Kind {
    fn from_u32(k: u32) -> Option<Kind> {
        use Kind::*;
        [
            PollStart, PollEnd, Spawn, NameChunk, Wake, Complete, Park, Unpark, Steal, Stall,
            Counters,
        ]
        .into_iter()
        .find(|x| *x as u32 == k)
    }
}

/// The trace clock: raw readings on the hot path, converted to nanoseconds by the writer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin: Instant,
    /// TSC at `origin`, and nanoseconds per tick in 32.32 fixed point; `None`: `Instant`.
    tsc: Option<(u64, u64)>,
}

impl Clock {
    fn new() -> Clock {
        let origin = Instant::now();
        Clock {
            origin,
            tsc: tsc_calibration(origin),
        }
    }

    #[inline]
    pub(crate) fn now(&self) -> u64 {
        match self.tsc {
            Some(_) => rdtsc(),
            None => self.origin.elapsed().as_nanos() as u64,
        }
    }

    /// Nanoseconds since the recorder started.
    pub(crate) fn ns(&self, raw: u64) -> u64 {
        match self.tsc {
            Some((t0, mult)) => {
                ((u128::from(raw.saturating_sub(t0)) * u128::from(mult)) >> 32) as u64
            }
            None => raw,
        }
    }

    fn is_tsc(&self) -> bool {
        self.tsc.is_some()
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn rdtsc() -> u64 {
    // SAFETY: `rdtsc` has no preconditions on x86-64.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_rdtsc()
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn rdtsc() -> u64 {
    0
}

/// The TSC's origin and rate, measured over 2 ms against `Instant`, when the kernel itself
/// trusts the TSC (its clock source is `tsc`: invariant and synchronised across cores).
fn tsc_calibration(origin: Instant) -> Option<(u64, u64)> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    let src =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .ok()?;
    if src.trim() != "tsc" {
        return None;
    }
    let t0 = rdtsc();
    let i0 = origin.elapsed();
    let (t1, i1) = loop {
        let i = origin.elapsed();
        if i - i0 >= Duration::from_millis(2) {
            break (rdtsc(), i);
        }
        std::hint::spin_loop();
    };
    let ticks = t1.checked_sub(t0).filter(|&t| t > 0)?;
    let ns = (i1 - i0).as_nanos() as u64;
    let mult = ((u128::from(ns) << 32) / u128::from(ticks)) as u64;
    // Origin: the TSC at `origin`, extrapolated back by the `i0` that passed before `t0`.
    let back = ((u128::from(i0.as_nanos() as u64) << 32) / u128::from(mult.max(1))) as u64;
    Some((t0.saturating_sub(back), mult))
}

/// A worker's recording end: its ring's producer and the clock. Lives in the worker's context.
pub(crate) struct WorkerTrace {
    producer: Producer,
    clock: Clock,
}

impl WorkerTrace {
    #[inline]
    fn push(&self, kind: Kind, task: u64, a: u64, b: u32) {
        let ts = self.clock.now();
        self.producer.push(Event {
            ts,
            task,
            a,
            b,
            kind: kind as u32,
        });
    }

    /// Runs `task`, recording the poll around it.
    #[inline]
    pub(crate) fn run<S: rt_core::task::Schedule>(&self, task: rt_core::task::Notified<S>) {
        let id = task.id().as_u64();
        let loc = task.header().spawn_location();
        self.push(
            Kind::PollStart,
            id,
            loc as *const Location<'static> as u64,
            poll_flags(false, task.priority()),
        );
        task.run();
        self.push(Kind::PollEnd, id, 0, 0);
    }

    /// Records a park; the guard records the unpark when it drops.
    pub(crate) fn parked(&self) -> Parked<'_> {
        self.push(Kind::Park, 0, 0, 0);
        Parked(self)
    }

    pub(crate) fn steal(&self, victim: usize) {
        self.push(Kind::Steal, 0, victim as u64, 0);
    }
}

/// Records the end of a park when dropped ([`WorkerTrace::parked`]).
pub(crate) struct Parked<'a>(&'a WorkerTrace);

impl Drop for Parked<'_> {
    fn drop(&mut self) {
        self.0.push(Kind::Unpark, 0, 0, 0);
    }
}

/// `PollStart`'s `b`: bit 0, the poll is nested in another on its track; bit 1, the task is
/// background (the writer prints its priority).
fn poll_flags(nested: bool, priority: rt_core::task::Priority) -> u32 {
    u32::from(nested) | (u32::from(priority.is_background()) << 1)
}

/// The events of a spawn: the spawn, then the name's chunks.
fn spawn_events(
    ts: u64,
    id: u64,
    meta: &rt_core::task::SpawnMeta<'_>,
) -> ([Event; 1 + NAME_MAX / CHUNK + 1], usize) {
    let mut ev = [Event::default(); 1 + NAME_MAX / CHUNK + 1];
    let name = meta.name().unwrap_or("").as_bytes();
    let name = &name[..floor_char_boundary(meta.name().unwrap_or(""), NAME_MAX)];
    ev[0] = Event {
        ts,
        task: id,
        a: meta.location() as *const Location<'static> as u64,
        b: name.len() as u32,
        kind: Kind::Spawn as u32,
    };
    let mut n = 1;
    for chunk in name.chunks(CHUNK) {
        let mut buf = [0u8; CHUNK];
        buf[..chunk.len()].copy_from_slice(chunk);
        let mut a = [0u8; 8];
        a.copy_from_slice(&buf[..8]);
        let mut b = [0u8; 4];
        b.copy_from_slice(&buf[8..]);
        ev[n] = Event {
            ts,
            task: id,
            a: u64::from_le_bytes(a),
            b: u32::from_le_bytes(b),
            kind: Kind::NameChunk as u32,
        };
        n += 1;
    }
    (ev, n)
}

fn floor_char_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    (0..=max)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

/// Events from threads that are not workers of this scheduler, and the names of their tracks.
struct Remote {
    events: Vec<(u32, Event)>,
    dropped: BTreeMap<u32, u64>,
}

/// A runtime's trace recorder: the rings, the shared buffer, the writer thread. Dropping it
/// finishes the file.
pub struct Recorder {
    inner: Arc<Inner>,
    /// Worker `i`'s producer, until worker `i` takes it.
    producers: Mutex<Vec<Option<Producer>>>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// What the recorder shares with its writer thread.
pub(crate) struct Inner {
    clock: Clock,
    remote: Mutex<Remote>,
    /// Track names (worker and other threads), for the writer's `thread_name` metadata.
    track_names: Mutex<BTreeMap<u32, String>>,
    /// Samples (injector depth, live tasks) for the counters, set by the scheduler.
    sampler: Mutex<Option<Sampler>>,
    stop: AtomicBool,
}

/// What the writer samples for the counter tracks: (injector depth, live tasks).
pub(crate) type Sampler = Box<dyn Fn() -> (u64, u64) + Send + Sync>;

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("tsc", &self.inner.clock.is_tsc())
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// Creates `path` and starts the writer thread, with one ring for each of `workers`
    /// workers. The file is complete once [`Recorder::finish`] returns (or the recorder drops).
    pub fn create(path: impl AsRef<Path>, workers: usize) -> io::Result<Arc<Recorder>> {
        Recorder::with_capacity(path.as_ref(), workers, RING_EVENTS)
    }

    pub(crate) fn with_capacity(
        path: &Path,
        workers: usize,
        ring_events: usize,
    ) -> io::Result<Arc<Recorder>> {
        let file = File::create(path)?;
        let (producers, consumers): (Vec<_>, Vec<_>) =
            (0..workers).map(|_| event_ring::ring(ring_events)).unzip();
        let inner = Arc::new(Inner {
            clock: Clock::new(),
            remote: Mutex::new(Remote {
                events: Vec::new(),
                dropped: BTreeMap::new(),
            }),
            track_names: Mutex::new(BTreeMap::new()),
            sampler: Mutex::new(None),
            stop: AtomicBool::new(false),
        });
        let w = writer::Writer::new(file, inner.clock, consumers);
        let shared = inner.clone();
        let handle = std::thread::Builder::new()
            .name("rt-trace".into())
            .spawn(move || w.run(&shared))?;
        Ok(Arc::new(Recorder {
            inner,
            producers: Mutex::new(producers.into_iter().map(Some).collect()),
            writer: Mutex::new(Some(handle)),
        }))
    }

    /// Stops recording: drains every ring a last time, writes the end of the file and waits for
    /// the writer. Idempotent.
    pub fn finish(&self) {
        let handle = lock(&self.writer).take();
        if let Some(h) = handle {
            self.inner.stop.store(true, Ordering::Release);
            h.thread().unpark();
            // (Never on the writer itself, which cannot wait for its own end.)
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }

    pub(crate) fn set_sampler(&self, s: Sampler) {
        *lock(&self.inner.sampler) = Some(s);
    }

    /// Worker `index`'s recording end (once per index; `None` after).
    pub(crate) fn worker(&self, index: usize, thread_name: &str) -> Option<WorkerTrace> {
        let p = lock(&self.producers).get_mut(index)?.take()?;
        lock(&self.inner.track_names).insert(index as u32, format!("{thread_name} {index}"));
        Some(WorkerTrace {
            producer: p,
            clock: self.inner.clock,
        })
    }

    /// Records a spawn, through `worker` if the spawning thread is one of ours.
    pub(crate) fn spawn(
        &self,
        worker: Option<&WorkerTrace>,
        id: u64,
        meta: &rt_core::task::SpawnMeta<'_>,
    ) {
        let (ev, n) = spawn_events(self.inner.clock.now(), id, meta);
        match worker {
            Some(w) => {
                w.producer.push_all(&ev[..n]);
            }
            None => self.push_remote("thread", &ev[..n]),
        }
    }

    /// Records a spawn from any thread (through its ring if it is one of this recorder's
    /// workers).
    pub(crate) fn spawn_here(&self, id: u64, meta: &rt_core::task::SpawnMeta<'_>) {
        crate::multi_thread::with_worker_trace(self, |w| self.spawn(w, id, meta));
    }

    /// Records a completion from any thread ([`Recorder::spawn_here`]'s way).
    pub(crate) fn complete_here(&self, id: u64) {
        crate::multi_thread::with_worker_trace(self, |w| self.complete(w, id));
    }

    /// Records a wake that scheduled `id`, from any thread ([`Recorder::spawn_here`]'s way).
    pub(crate) fn wake_here(&self, id: u64) {
        crate::multi_thread::with_worker_trace(self, |w| self.wake(w, id, false));
    }

    /// Records a wake that scheduled `id` (`is_yield`: the task woke itself).
    pub(crate) fn wake(&self, worker: Option<&WorkerTrace>, id: u64, is_yield: bool) {
        match worker {
            Some(w) => w.push(Kind::Wake, id, 0, u32::from(is_yield)),
            None => self.remote(Kind::Wake, id, 0, u32::from(is_yield)),
        }
    }

    /// Records that `id` completed (or was cancelled) on this thread.
    pub(crate) fn complete(&self, worker: Option<&WorkerTrace>, id: u64) {
        match worker {
            Some(w) => w.push(Kind::Complete, id, 0, 0),
            None => self.remote(Kind::Complete, id, 0, 0),
        }
    }

    /// Runs `task` on this thread, which is no worker (a blocking-pool thread, the
    /// current-thread scheduler's, or one driving a `LocalSet`), recording the poll around it
    /// on this thread's track, named for `role`. A poll made inside another one recorded here
    /// (a `LocalSet` driven inside a blocking closure or a local task) is marked nested, and
    /// the writer draws it inside the enclosing slice.
    pub(crate) fn run_here<S: rt_core::task::Schedule>(
        &self,
        task: rt_core::task::Notified<S>,
        role: &str,
    ) {
        let id = task.id().as_u64();
        let loc = task.header().spawn_location() as *const Location<'static> as u64;
        let depth = POLL_DEPTH.try_with(|d| d.replace(d.get() + 1)).unwrap_or(0);
        self.push_remote(
            role,
            &[self.event(
                Kind::PollStart,
                id,
                loc,
                poll_flags(depth > 0, task.priority()),
            )],
        );
        // Restores the depth even if the poll unwinds (a panic the harness did not catch).
        struct Depth(u32);
        impl Drop for Depth {
            fn drop(&mut self) {
                let _ = POLL_DEPTH.try_with(|d| d.set(self.0));
            }
        }
        let _depth = Depth(depth);
        task.run();
        self.push_remote(role, &[self.event(Kind::PollEnd, id, 0, 0)]);
    }

    /// Records a stall of worker `worker`'s poll of `task_id`, running for `elapsed` so far
    /// (`ended`: the follow-up when it has returned). Called by the stall monitor; shown as an
    /// instant on the calling thread's track, with the worker, task and time in its args.
    #[allow(dead_code)] // The stall monitor calls it.
    pub(crate) fn record_stall(&self, worker: usize, task_id: u64, elapsed: Duration, ended: bool) {
        let ms = u32::try_from(elapsed.as_millis()).unwrap_or(u32::MAX >> 1);
        self.remote(
            Kind::Stall,
            task_id,
            worker as u64,
            (ms << 1) | u32::from(ended),
        );
    }

    fn event(&self, kind: Kind, task: u64, a: u64, b: u32) -> Event {
        Event {
            ts: self.inner.clock.now(),
            task,
            a,
            b,
            kind: kind as u32,
        }
    }

    fn remote(&self, kind: Kind, task: u64, a: u64, b: u32) {
        self.push_remote("thread", &[self.event(kind, task, a, b)]);
    }

    fn push_remote(&self, role: &str, events: &[Event]) {
        let track = thread_track();
        let mut r = lock(&self.inner.remote);
        if r.events.len() + events.len() > REMOTE_EVENTS {
            *r.dropped.entry(track).or_insert(0) += events.len() as u64;
            return;
        }
        // Timestamps taken under the lock, so one track's events stay in order.
        let ts = self.inner.clock.now();
        r.events
            .extend(events.iter().map(|e| (track, Event { ts, ..*e })));
        drop(r);
        let mut names = lock(&self.inner.track_names);
        names.entry(track).or_insert_with(|| {
            let t = std::thread::current();
            format!("{} ({role})", t.name().unwrap_or("thread"))
        });
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.finish();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

thread_local! {
    /// Polls recorded by `Recorder::run_here` under way on this thread (nesting depth).
    static POLL_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// This thread's track (for threads that are not workers), assigned on first use.
fn thread_track() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(FIRST_THREAD_TRACK);
    thread_local! {
        static TRACK: Cell<u32> = const { Cell::new(0) };
    }
    TRACK
        .try_with(|t| {
            if t.get() == 0 {
                t.set(NEXT.fetch_add(1, Ordering::Relaxed));
            }
            t.get()
        })
        .unwrap_or(u32::MAX - 1)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn number_after(text: &str, key: &str) -> u64 {
        let at = text
            .find(key)
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            + key.len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    }

    #[test]
    fn a_full_ring_drops_and_the_file_counts_the_drops() {
        let path = std::env::temp_dir().join(format!("rt-trace-drops-{}.json", std::process::id()));
        let rec = Recorder::with_capacity(&path, 1, 4).unwrap();
        let w = rec.worker(0, "w").unwrap();
        assert!(rec.worker(0, "w").is_none(), "a ring has one producer");
        // Far faster than the writer drains: most of these cannot fit in 4 slots.
        for _ in 0..500 {
            drop(w.parked());
        }
        drop(w);
        rec.finish();
        let text = std::fs::read_to_string(&path).unwrap();
        let written =
            text.matches("\"name\":\"park\"").count() + text.matches("\"name\":\"unpark\"").count();
        let dropped = number_after(&text, "\"rt.dropped_events\":");
        assert!(dropped > 0, "{text}");
        assert_eq!(written as u64 + dropped, 1000);
        assert_eq!(
            number_after(&text, "\"rt.dropped_by_track\":{\"0\":"),
            dropped
        );
        assert!(text.trim_end().ends_with('}'));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn stalls_are_global_instants_with_worker_task_and_time() {
        let path = std::env::temp_dir().join(format!("rt-trace-stall-{}.json", std::process::id()));
        let rec = Recorder::create(&path, 2).unwrap();
        rec.record_stall(1, 42, Duration::from_millis(150), false);
        rec.record_stall(1, 42, Duration::from_millis(2300), true);
        rec.finish();
        let text = std::fs::read_to_string(&path).unwrap();
        let stall = text
            .lines()
            .find(|l| l.contains("\"name\":\"stall\""))
            .expect(&text);
        assert!(stall.contains("\"s\":\"g\""), "{stall}");
        assert!(
            stall.contains("\"worker\":1,\"task.id\":42,\"elapsed_ms\":150"),
            "{stall}"
        );
        let ended = text
            .lines()
            .find(|l| l.contains("\"name\":\"stall ended\""))
            .expect(&text);
        assert!(ended.contains("\"elapsed_ms\":2300"), "{ended}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn names_longer_than_the_limit_are_cut_on_a_char_boundary() {
        let name = "é".repeat(40); // 80 bytes
        let loc = Location::caller();
        let meta = rt_core::task::SpawnMeta::new(Some(&name), loc);
        let (ev, n) = spawn_events(1, 9, &meta);
        let len = ev[0].b as usize;
        assert!(len <= NAME_MAX && len.is_multiple_of(2), "{len}");
        assert_eq!(n, 1 + len.div_ceil(CHUNK));
    }
}
