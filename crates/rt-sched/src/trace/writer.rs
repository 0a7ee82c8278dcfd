//! The `rt-trace` thread: drains the rings every few milliseconds and writes Chrome JSON
//! (the "JSON Object Format" that ui.perfetto.dev and chrome://tracing open).
//!
//! Each pass drains every ring and the shared buffer, sorts what it got by timestamp and writes
//! the events older than the pass's start (later ones wait for the next pass, so a wake recorded
//! on one thread is seen before the poll it causes on another). Per track (a worker, or another
//! thread) the events come out in timestamp order: a thread's events are recorded in order, and
//! a poll's `X` event is written when its end is seen, before anything later on that track.
//! Polls nest on a track when a `LocalSet` is driven inside a poll (`PollStart` marked nested):
//! each track has a stack of open polls, and the slices of nested polls are held back and
//! written right after the slice that encloses them, so a track's timestamps still never go
//! back in the file.
//!
//! What it writes:
//! - `M` `thread_name` per track (workers are tracks `0..n`, other threads from 1000);
//! - one `X` per poll: task id, name, spawn location, poll number, priority, `Ready`/`Pending`;
//! - a flow (`s` on the spawning or waking track, `f` with `"bp":"e"` inside the poll) from each
//!   spawn to the task's first poll and from each wake to the poll it causes; a spawn or wake
//!   made outside any poll gets a 1 ns `X` marker for its flow to start from;
//! - `i` instants for park, unpark, steal (on the worker's track) and stall (global);
//! - `C` counters: injector depth, live tasks;
//! - at the end, `metadata` with the dropped events in total and per track.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufWriter, Write};
use std::panic::Location;
use std::sync::atomic::Ordering;

use super::event_ring::{Consumer, Event};
use super::{lock, Clock, Inner, Kind, DRAIN_EVERY};

/// The (pseudo) track the counter samples are sorted with.
const COUNTER_TRACK: u32 = u32::MAX;

/// A multiplicative hash for the writer's maps, keyed by task ids and addresses (std's SipHash
/// costs more than the rest of an event's bookkeeping).
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// A poll under way on a track.
struct Open {
    task: u64,
    start: u64,
    loc: u64,
    poll: u32,
    /// The task is background (`PollStart`'s flags).
    background: bool,
    /// The task completed during this poll.
    ready: bool,
    /// Where the flow into this poll starts: (raw ts, track, spawn?).
    flow: Option<(u64, u32, bool)>,
    /// The finished slices (and their flows) of polls nested in this one, written after it.
    nested: Vec<u8>,
}

pub(super) struct Writer {
    out: BufWriter<File>,
    clock: Clock,
    consumers: Vec<Consumer>,
    pid: u32,
    first: bool,
    failed: bool,
    line: String,
    /// The line being written by the fast path (`X`, `s`, `f`).
    bytes: Vec<u8>,
    /// Named tasks: (name length, bytes so far).
    names: Map<u64, (usize, Vec<u8>)>,
    /// The task whose name chunks come next (per track).
    naming: Map<u32, u64>,
    polls: Map<u64, u32>,
    /// Spawns and wakes waiting for the poll they cause.
    flows: Map<u64, (u64, u32, bool)>,
    /// Per track, its open polls, innermost last.
    open: Map<u32, Vec<Open>>,
    /// Spawn locations, escaped, by address.
    locs: Map<u64, Box<[u8]>>,
    next_flow: u64,
    named_tracks: BTreeSet<u32>,
}

impl Writer {
    pub(super) fn new(file: File, clock: Clock, consumers: Vec<Consumer>) -> Writer {
        Writer {
            out: BufWriter::with_capacity(1 << 20, file),
            clock,
            consumers,
            pid: std::process::id(),
            first: true,
            failed: false,
            line: String::with_capacity(512),
            bytes: Vec::with_capacity(512),
            names: Map::default(),
            naming: Map::default(),
            polls: Map::default(),
            flows: Map::default(),
            open: Map::default(),
            locs: Map::default(),
            next_flow: 1,
            named_tracks: BTreeSet::new(),
        }
    }

    pub(super) fn run(mut self, inner: &Inner) {
        self.raw("{\"traceEvents\":[\n");
        let pid = self.pid;
        self.emit(format_args!(
            "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"tid\":0,\"args\":{{\"name\":\"rt\"}}}}"
        ));
        let mut pending: Vec<(u32, Event)> = Vec::new();
        let mut buf = Vec::new();
        loop {
            let stop = inner.stop.load(Ordering::Acquire);
            let now = self.clock.now();
            for (i, c) in self.consumers.iter().enumerate() {
                buf.clear();
                c.drain(&mut buf);
                pending.extend(buf.iter().map(|e| (i as u32, *e)));
            }
            pending.append(&mut lock(&inner.remote).events);
            if let Some(sample) = lock(&inner.sampler).as_ref() {
                let (injector, live) = sample();
                pending.push((
                    COUNTER_TRACK,
                    Event {
                        ts: now,
                        task: live,
                        a: injector,
                        b: 0,
                        kind: Kind::Counters as u32,
                    },
                ));
            }
            let names: Vec<(u32, String)> = lock(&inner.track_names)
                .iter()
                .filter(|(t, _)| !self.named_tracks.contains(t))
                .map(|(t, n)| (*t, n.clone()))
                .collect();
            for (t, n) in names {
                self.named_tracks.insert(t);
                self.emit(format_args!(
                    "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{t},\"args\":{{\"name\":\"{}\"}}}}",
                    Esc(&n)
                ));
                self.emit(format_args!(
                    "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{pid},\"tid\":{t},\"args\":{{\"sort_index\":{t}}}}}"
                ));
            }
            // Stable: one track's events keep their order.
            pending.sort_by_key(|(_, e)| e.ts);
            let cut = if stop {
                pending.len()
            } else {
                pending.partition_point(|(_, e)| e.ts < now)
            };
            for &(track, e) in &pending[..cut] {
                self.process(track, e);
            }
            pending.drain(..cut);
            if stop {
                break;
            }
            let _ = self.out.flush();
            std::thread::park_timeout(DRAIN_EVERY);
        }
        // The end: the drops, then close the JSON.
        let mut by_track: BTreeMap<u32, u64> = lock(&inner.remote).dropped.clone();
        for (i, c) in self.consumers.iter().enumerate() {
            let d = c.dropped();
            if d > 0 {
                by_track.insert(i as u32, d);
            }
        }
        let total: u64 = by_track.values().sum();
        let mut tracks = String::new();
        for (i, (t, d)) in by_track.iter().enumerate() {
            let comma = if i == 0 { "" } else { "," };
            let _ = write!(tracks, "{comma}\"{t}\":{d}");
        }
        let clock = if self.clock.is_tsc() {
            "tsc"
        } else {
            "instant"
        };
        self.raw(&format!(
            "\n],\"displayTimeUnit\":\"ns\",\"metadata\":{{\"rt.clock\":\"{clock}\",\"rt.dropped_events\":{total},\"rt.dropped_by_track\":{{{tracks}}}}}}}\n"
        ));
        let _ = self.out.flush();
    }

    fn raw(&mut self, s: &str) {
        if !self.failed && self.out.write_all(s.as_bytes()).is_err() {
            self.failed = true;
        }
    }

    fn emit(&mut self, args: std::fmt::Arguments<'_>) {
        self.line.clear();
        if !self.first {
            self.line.push_str(",\n");
        }
        self.first = false;
        let _ = self.line.write_fmt(args);
        let line = std::mem::take(&mut self.line);
        self.raw(&line);
        self.line = line;
    }

    /// Writes a finished poll's slice (ending at raw time `end`) and the flow into it, then
    /// the slices nested in it; or, if `track` still has an open poll (this one was nested in
    /// it), holds them all back for that poll.
    fn close_poll(&mut self, track: u32, mut o: Open, end: u64) {
        let (ts, end) = (self.clock.ns(o.start), self.clock.ns(end.max(o.start)));
        let mut b = std::mem::take(&mut self.bytes);
        b.clear();
        self.poll_slice(&mut b, track, &o, ts, end);
        if let Some((from, from_track, spawn)) = o.flow {
            let id = self.next_flow;
            self.next_flow += 1;
            let from = self.clock.ns(from);
            // Inside the poll's slice (its start, plus 1 ns when it is that long).
            let into = ts + u64::from(end - ts >= 2);
            self.flow(&mut b, spawn, id, from_track, from, track, into);
        }
        b.append(&mut o.nested);
        match self.open.get_mut(&track).and_then(|s| s.last_mut()) {
            Some(parent) => parent.nested.extend_from_slice(&b),
            None => self.raw_bytes(&b),
        }
        self.bytes = b;
        if o.ready {
            self.forget(o.task);
        }
    }

    /// One poll's `X` slice, appended to `b` (the fast path: no formatting machinery).
    fn poll_slice(&mut self, b: &mut Vec<u8>, track: u32, o: &Open, ts: u64, end: u64) {
        if !self.first {
            b.extend_from_slice(b",\n");
        }
        self.first = false;
        b.extend_from_slice(b"{\"ph\":\"X\",\"cat\":\"poll\",\"name\":\"");
        let named = self.names.get(&o.task).map(|(_, n)| n.as_slice());
        match named {
            Some(n) => esc_bytes(b, &String::from_utf8_lossy(n)),
            None => {
                b.extend_from_slice(b"task ");
                num(b, o.task);
            }
        }
        b.extend_from_slice(b"\",\"pid\":");
        num(b, u64::from(self.pid));
        b.extend_from_slice(b",\"tid\":");
        num(b, u64::from(track));
        b.extend_from_slice(b",\"ts\":");
        micros(b, ts);
        b.extend_from_slice(b",\"dur\":");
        micros(b, end - ts);
        b.extend_from_slice(b",\"args\":{\"task.id\":");
        num(b, o.task);
        if let Some(n) = named {
            b.extend_from_slice(b",\"task.name\":\"");
            esc_bytes(b, &String::from_utf8_lossy(n));
            b.push(b'"');
        }
        b.extend_from_slice(b",\"loc\":\"");
        let loc = self.locs.entry(o.loc).or_insert_with(|| {
            let mut v = Vec::new();
            esc_bytes(&mut v, &loc(o.loc));
            v.into_boxed_slice()
        });
        b.extend_from_slice(loc);
        b.extend_from_slice(b"\",\"poll\":");
        num(b, u64::from(o.poll));
        b.extend_from_slice(if o.background {
            b",\"task.priority\":\"background\""
        } else {
            b",\"task.priority\":\"normal\""
        });
        b.extend_from_slice(if o.ready {
            b",\"result\":\"Ready\"}}"
        } else {
            b",\"result\":\"Pending\"}}"
        });
    }

    /// A flow's two ends (`s` at `from`, `f` bound to the slice enclosing `into`), appended to
    /// `b`.
    #[allow(clippy::too_many_arguments)]
    fn flow(
        &mut self,
        b: &mut Vec<u8>,
        spawn: bool,
        id: u64,
        from_track: u32,
        from: u64,
        track: u32,
        into: u64,
    ) {
        let name: &[u8] = if spawn { b"spawn" } else { b"wake" };
        for (ph, tid, ts) in [
            (&b"s"[..], from_track, from),
            (&b"f\",\"bp\":\"e"[..], track, into),
        ] {
            if !self.first {
                b.extend_from_slice(b",\n");
            }
            self.first = false;
            b.extend_from_slice(b"{\"ph\":\"");
            b.extend_from_slice(ph);
            b.extend_from_slice(b"\",\"cat\":\"flow\",\"name\":\"");
            b.extend_from_slice(name);
            b.extend_from_slice(b"\",\"id\":");
            num(b, id);
            b.extend_from_slice(b",\"pid\":");
            num(b, u64::from(self.pid));
            b.extend_from_slice(b",\"tid\":");
            num(b, u64::from(tid));
            b.extend_from_slice(b",\"ts\":");
            micros(b, ts);
            b.push(b'}');
        }
    }

    fn raw_bytes(&mut self, b: &[u8]) {
        if !self.failed && self.out.write_all(b).is_err() {
            self.failed = true;
        }
    }

    fn us(&self, raw: u64) -> Us {
        Us(self.clock.ns(raw))
    }

    fn name(&self, task: u64) -> Option<String> {
        self.names
            .get(&task)
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
    }

    fn forget(&mut self, task: u64) {
        self.names.remove(&task);
        self.polls.remove(&task);
        self.flows.remove(&task);
    }

    fn process(&mut self, track: u32, e: Event) {
        let Some(kind) = Kind::from_u32(e.kind) else {
            return;
        };
        let pid = self.pid;
        if kind != Kind::NameChunk {
            self.naming.remove(&track);
        }
        match kind {
            Kind::PollStart => {
                let poll = {
                    let n = self.polls.entry(e.task).or_insert(0);
                    *n += 1;
                    *n
                };
                let flow = self.flows.remove(&e.task);
                // The task's previous poll, if still open on another track, ended by now: a
                // worker records a poll's end after the bookkeeping that follows it (a yield's
                // reschedule, an unpark), and the task may be stolen and polled meanwhile. It
                // ends here, so one task's slices never overlap.
                let prev = self.open.iter().find_map(|(t, stack)| {
                    let at = stack.iter().position(|o| o.task == e.task);
                    at.filter(|_| *t != track).map(|i| (*t, i))
                });
                if let Some((t, i)) = prev {
                    if let Some(o) = self.open.get_mut(&t).map(|stack| stack.remove(i)) {
                        self.close_poll(t, o, e.ts);
                    }
                }
                let stack = self.open.entry(track).or_default();
                if e.b & 1 == 0 {
                    // Not nested: what is still open here had its end dropped, and is forgotten.
                    stack.clear();
                }
                stack.push(Open {
                    task: e.task,
                    start: e.ts,
                    loc: e.a,
                    poll,
                    background: e.b & 2 != 0,
                    ready: false,
                    flow,
                    nested: Vec::new(),
                });
            }
            Kind::PollEnd => {
                let Some(stack) = self.open.get_mut(&track) else {
                    return;
                };
                let Some(at) = stack.iter().rposition(|o| o.task == e.task) else {
                    return;
                };
                // Polls nested in this one whose ends were dropped are forgotten.
                stack.truncate(at + 1);
                let Some(o) = stack.pop() else {
                    return;
                };
                self.close_poll(track, o, e.ts);
            }
            Kind::Spawn | Kind::Wake => {
                let spawn = kind == Kind::Spawn;
                if spawn && e.b > 0 {
                    self.names
                        .insert(e.task, (e.b as usize, Vec::with_capacity(e.b as usize)));
                    self.naming.insert(track, e.task);
                }
                self.flows.insert(e.task, (e.ts, track, spawn));
                if self.open.get(&track).is_none_or(Vec::is_empty) {
                    // No poll on this track for the flow to start from: a 1 ns marker.
                    let what = if spawn { "spawn" } else { "wake" };
                    let ts = self.us(e.ts);
                    self.emit(format_args!(
                        "{{\"ph\":\"X\",\"cat\":\"{what}\",\"name\":\"{what}\",\"pid\":{pid},\"tid\":{track},\"ts\":{ts},\"dur\":0.001,\"args\":{{\"task.id\":{}}}}}",
                        e.task
                    ));
                }
            }
            Kind::NameChunk => {
                let Some(&task) = self.naming.get(&track) else {
                    return;
                };
                if let Some((len, bytes)) = self.names.get_mut(&task) {
                    let mut chunk = [0u8; 12];
                    chunk[..8].copy_from_slice(&e.a.to_le_bytes());
                    chunk[8..].copy_from_slice(&e.b.to_le_bytes());
                    let take = (*len - bytes.len()).min(12);
                    bytes.extend_from_slice(&chunk[..take]);
                }
            }
            // Only the thread polling a task completes it then (else the task was idle), so an
            // open poll of this task is that thread's, whichever track it records this on.
            Kind::Complete => match self
                .open
                .values_mut()
                .flat_map(|stack| stack.iter_mut())
                .find(|o| o.task == e.task)
            {
                Some(o) => o.ready = true,
                None => self.forget(e.task),
            },
            Kind::Park | Kind::Unpark | Kind::Steal => {
                let name = match kind {
                    Kind::Park => "park",
                    Kind::Unpark => "unpark",
                    _ => "steal",
                };
                let args = if kind == Kind::Steal {
                    format!(",\"args\":{{\"victim\":{}}}", e.a)
                } else {
                    String::new()
                };
                let ts = self.us(e.ts);
                self.emit(format_args!(
                    "{{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"worker\",\"name\":\"{name}\",\"pid\":{pid},\"tid\":{track},\"ts\":{ts}{args}}}"
                ));
            }
            Kind::Stall => {
                let ended = e.b & 1 == 1;
                let name = if ended { "stall ended" } else { "stall" };
                let task_name = match self.name(e.task) {
                    Some(n) => format!(",\"task.name\":\"{}\"", Esc(&n)),
                    None => String::new(),
                };
                let ts = self.us(e.ts);
                self.emit(format_args!(
                    "{{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"stall\",\"name\":\"{name}\",\"pid\":{pid},\"tid\":{track},\"ts\":{ts},\"args\":{{\"worker\":{},\"task.id\":{}{task_name},\"elapsed_ms\":{}}}}}",
                    e.a,
                    e.task,
                    e.b >> 1
                ));
            }
            Kind::Counters => {
                let ts = self.us(e.ts);
                self.emit(format_args!(
                    "{{\"ph\":\"C\",\"name\":\"injector depth\",\"pid\":{pid},\"ts\":{ts},\"args\":{{\"value\":{}}}}}",
                    e.a
                ));
                self.emit(format_args!(
                    "{{\"ph\":\"C\",\"name\":\"live tasks\",\"pid\":{pid},\"ts\":{ts},\"args\":{{\"value\":{}}}}}",
                    e.task
                ));
            }
        }
    }
}

/// `file:line:column` of a location recorded as an address.
fn loc(a: u64) -> String {
    if a == 0 {
        return String::from("?");
    }
    // SAFETY: the recording side stores only `&'static Location<'static>` addresses here (or
    // 0), and a `'static` location lives for the whole program.
    let l = unsafe { &*(a as usize as *const Location<'static>) };
    format!("{}:{}:{}", l.file(), l.line(), l.column())
}

/// Appends `n` in decimal.
fn num(b: &mut Vec<u8>, mut n: u64) {
    let mut d = [0u8; 20];
    let mut i = d.len();
    loop {
        i -= 1;
        d[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    b.extend_from_slice(&d[i..]);
}

/// Appends nanoseconds as microseconds with three decimals.
fn micros(b: &mut Vec<u8>, ns: u64) {
    num(b, ns / 1000);
    let f = ns % 1000;
    b.extend_from_slice(&[
        b'.',
        b'0' + (f / 100) as u8,
        b'0' + (f / 10 % 10) as u8,
        b'0' + (f % 10) as u8,
    ]);
}

/// Appends `s` escaped for a JSON string.
fn esc_bytes(b: &mut Vec<u8>, s: &str) {
    use std::io::Write as _;
    let _ = write!(b, "{}", Esc(s));
}

/// Nanoseconds written as microseconds with three decimals (Chrome's unit).
struct Us(u64);

impl std::fmt::Display for Us {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// A string escaped for a JSON string literal.
struct Esc<'a>(&'a str);

impl std::fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write as _;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}
