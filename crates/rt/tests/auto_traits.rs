//! Compile-time checks of the auto traits (`Send`, `Sync`, `Unpin`) of the rt types and futures
//! whose traits follow tokio's: each line stops this file compiling if the type gains or loses
//! the trait. A type that implements a trait it is asserted to lack makes the `lacks!` call
//! ambiguous (two impls of the probe trait apply), which is an error.

#![allow(unreachable_code, unused_variables, clippy::diverging_sub_expression)]

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

type BoxFut = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

/// Compiles only if the value's type implements every trait listed.
macro_rules! has {
    ($v:expr => $($tr:path),+) => {{
        $({
            fn check<T: ?Sized + $tr>(_: &T) {}
            check(&$v);
        })+
    }};
}

/// Compiles only if the value's type implements none of the traits listed.
macro_rules! lacks {
    ($v:expr => $($tr:path),+) => {{
        $({
            trait AmbiguousIfImpl<A> {
                fn probe(&self) {}
            }
            impl<T: ?Sized> AmbiguousIfImpl<()> for T {}
            struct Implemented;
            impl<T: ?Sized + $tr> AmbiguousIfImpl<Implemented> for T {}
            AmbiguousIfImpl::probe(&$v);
        })+
    }};
}

/// A value of any type, for the checks (never run).
fn any<T>() -> T {
    unreachable!("the checks are compiled, never run")
}

const _: fn() = || {
    // Timers: `Sleep` (and so `Timeout`) is `!Unpin`; `Interval` stays `Unpin`.
    let sleep: rt::time::Sleep = any();
    has!(sleep => Send, Sync);
    lacks!(sleep => Unpin);
    let timeout: rt::time::Timeout<BoxFut> = any();
    has!(timeout => Send, Sync);
    lacks!(timeout => Unpin);
    has!(any::<rt::time::Interval>() => Send, Sync, Unpin);
    lacks!(rt::time::advance(Duration::ZERO) => Unpin);
    lacks!(rt::time::sleep(Duration::ZERO) => Unpin);

    // The runtime's guard: `!Send` (it restores this thread's state), `Sync`.
    let guard: rt::runtime::EnterGuard<'_> = any();
    has!(guard => Sync, Unpin);
    lacks!(guard => Send);

    // The budget unit belongs to this thread's poll.
    let restore: rt::task::coop::RestoreOnPending = any();
    lacks!(restore => Send, Sync);

    // A watch borrow stays where it was taken.
    let r: rt::sync::watch::Ref<'_, u8> = any();
    has!(r => Sync, Unpin);
    lacks!(r => Send);
    let r: rt::sync::watch::Ref<'_, Cell<u8>> = any();
    lacks!(r => Send, Sync);

    // A `JoinSet` is `Sync` without `T: Sync`.
    let set: rt::task::JoinSet<Cell<u8>> = any();
    has!(set => Send, Sync, Unpin);
    let mut set: rt::task::JoinSet<Cell<u8>> = any();
    let next = set.join_next();
    has!(next => Send, Sync);
    lacks!(next => Unpin);

    // The named futures of the sync primitives are `!Unpin`, as tokio's.
    let mut brx: rt::sync::broadcast::Receiver<u8> = any();
    let recv = brx.recv();
    has!(recv => Send, Sync);
    lacks!(recv => Unpin);
    let mut wrx: rt::sync::watch::Receiver<u8> = any();
    let changed = wrx.changed();
    has!(changed => Send, Sync);
    lacks!(changed => Unpin);
    let wtx: rt::sync::watch::Sender<u8> = any();
    lacks!(wtx.closed() => Unpin);
    let tx: rt::sync::mpsc::Sender<u8> = any();
    let send = tx.send_timeout(1, Duration::ZERO);
    has!(send => Send, Sync);
    let local: rt::task::LocalSet = any();
    lacks!(local.run_until(any::<BoxFut>()) => Send, Sync, Unpin);

    // The futures of the IO extension traits are `!Unpin`, as tokio's.
    use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    let mut io: rt::io::DuplexStream = any();
    let mut buf = [0u8; 4];
    let read = io.read(&mut buf);
    has!(read => Send, Sync);
    lacks!(read => Unpin);
    lacks!(io.read_u32() => Unpin);
    lacks!(io.write_all(b"x") => Unpin);
    lacks!(io.flush() => Unpin);
    let mut reader: rt::io::BufReader<rt::io::DuplexStream> = any();
    lacks!(reader.fill_buf() => Unpin);
    let mut file: rt::fs::File = any();
    lacks!(file.seek(std::io::SeekFrom::Start(0)) => Unpin);

    // `Command::status` and `output` spawn at the call: their futures borrow nothing.
    fn owned<T: Send + 'static>(_: T) {}
    owned(rt::process::Command::new("true").status());
    owned(rt::process::Command::new("true").output());

    // tokio's hidden path to `poll_fn`; its future is `Unpin` exactly when the closure is.
    let pinned = std::marker::PhantomPinned;
    let f = rt::macros::support::poll_fn(move |_| {
        let _ = &pinned;
        std::task::Poll::<()>::Pending
    });
    has!(f => Send, Sync);
    lacks!(f => Unpin);
};
