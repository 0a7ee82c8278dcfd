//! With a subscriber interested, each task gets one `rt.task` span (fields `task.id`,
//! `task.name`, `loc.file`, `loc.line`) entered around each of its polls, and wake, abort and
//! complete events carry the task's id. The subscriber is written here (a few lines of
//! `tracing::Subscriber`), not taken from tracing-subscriber.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::Mutex;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

#[derive(Default, Debug)]
struct SpanRec {
    name: &'static str,
    fields: HashMap<String, String>,
    enters: usize,
    exits: usize,
}

#[derive(Default)]
struct Log {
    next: u64,
    spans: BTreeMap<u64, SpanRec>,
    /// (message, task.id)
    events: Vec<(String, Option<String>)>,
}

static LOG: Mutex<Log> = Mutex::new(Log {
    next: 0,
    spans: BTreeMap::new(),
    events: Vec::new(),
});

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

struct Recorder;

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut rec = SpanRec {
            name: attrs.metadata().name(),
            ..SpanRec::default()
        };
        attrs.record(&mut Fields(&mut rec.fields));
        let mut log = LOG.lock().unwrap();
        log.next += 1;
        let id = log.next;
        log.spans.insert(id, rec);
        Id::from_u64(id)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = HashMap::new();
        event.record(&mut Fields(&mut fields));
        let msg = fields.remove("message").unwrap_or_default();
        LOG.lock()
            .unwrap()
            .events
            .push((msg, fields.remove("task.id")));
    }
    fn enter(&self, span: &Id) {
        if let Some(s) = LOG.lock().unwrap().spans.get_mut(&span.into_u64()) {
            s.enters += 1;
        }
    }
    fn exit(&self, span: &Id) {
        if let Some(s) = LOG.lock().unwrap().spans.get_mut(&span.into_u64()) {
            s.exits += 1;
        }
    }
}

fn task_span(id: rt::task::Id) -> (HashMap<String, String>, usize, usize) {
    let log = LOG.lock().unwrap();
    let mut found = log.spans.values().filter(|s| {
        s.name == "rt.task" && s.fields.get("task.id") == Some(&id.as_u64().to_string())
    });
    let s = found.next().expect("the task has an rt.task span");
    assert!(found.next().is_none(), "one span per task");
    (s.fields.clone(), s.enters, s.exits)
}

fn has_event(msg: &str, id: rt::task::Id) -> bool {
    let id = id.as_u64().to_string();
    LOG.lock()
        .unwrap()
        .events
        .iter()
        .any(|(m, t)| m == msg && t.as_deref() == Some(&*id))
}

#[test]
fn tasks_get_a_span_per_task_and_wake_abort_complete_events() {
    tracing::subscriber::set_global_default(Recorder).unwrap();
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, rx) = rt::sync::oneshot::channel::<u32>();
        let line = line!() + 3;
        let named = rt::task::Builder::new()
            .name("traced")
            .spawn(async move { rx.await.unwrap() })
            .unwrap();
        let named_id = named.id();
        rt::task::yield_now().await; // the task polls once and waits on `rx`
        tx.send(5).unwrap(); // a wake
        assert_eq!(named.await.unwrap(), 5);

        let (fields, enters, exits) = task_span(named_id);
        assert_eq!(fields.get("task.name").map(String::as_str), Some("traced"));
        assert_eq!(fields.get("loc.file").map(String::as_str), Some(file!()));
        assert_eq!(fields.get("loc.line"), Some(&line.to_string()));
        assert_eq!(enters, 2, "entered around each of its two polls");
        assert_eq!(exits, 2);
        assert!(has_event("wake", named_id));
        assert!(has_event("complete", named_id));

        // An unnamed task gets a span too (no task.name field), and an abort is an event.
        let stuck = rt::spawn(std::future::pending::<()>());
        let stuck_id = stuck.id();
        rt::task::yield_now().await;
        stuck.abort();
        assert!(stuck.await.unwrap_err().is_cancelled());
        let (fields, enters, _) = task_span(stuck_id);
        assert_eq!(fields.get("task.name"), None);
        assert_eq!(enters, 1);
        assert!(has_event("abort", stuck_id));
        assert!(has_event("complete", stuck_id));
    });
}
