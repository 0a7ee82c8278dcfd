//! The sockets are `UnwindSafe` and `RefUnwindSafe`, as tokio's.
//!
//! Their shared state (the registration's readiness word, the reactor's handle with its timer
//! hooks) is atomics and locks that a panic cannot leave half-updated in a way a later call
//! would misread: an operation interrupted by a panic leaves the socket as a cancelled
//! operation does. The compiler cannot see that through the `dyn Fn` hooks and cells inside,
//! so it is stated here once, for every socket type (checked in `rt/tests/unwind_safe.rs`).

use std::panic::{RefUnwindSafe, UnwindSafe};

use super::{TcpListener, TcpSocket, TcpStream, UdpSocket, UnixDatagram, UnixListener, UnixStream};

macro_rules! unwind_safe {
    ($($t:ty),*) => {
        $(
            impl UnwindSafe for $t {}
            impl RefUnwindSafe for $t {}
        )*
    };
}

unwind_safe!(
    TcpListener,
    TcpSocket,
    TcpStream,
    UdpSocket,
    UnixDatagram,
    UnixListener,
    UnixStream
);
