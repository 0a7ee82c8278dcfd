//! The one place where a libc call's return value becomes an `io::Result`.
//!
//! Every direct libc call of rt-io (the socket options and calls mio does not offer in
//! `net/raw_socket.rs` and `net/unix/ucred.rs`, the timerfd in `time/timerfd.rs`) and of the
//! facade (`rt::process`'s pidfd and pipe flags, `rt::signal`'s eventfd) is written
//! `cvt(unsafe { libc::call(..) })`, with its `// SAFETY:` comment above: `-1` becomes the
//! thread's `errno`, anything else is the call's result. Public (hidden) for the facade only.

use std::io;

/// Return types of libc calls that signal failure with `-1` and set `errno`.
pub trait MinusOne: Copy + PartialEq {
    /// The failure value.
    const MINUS_ONE: Self;
}

impl MinusOne for libc::c_int {
    const MINUS_ONE: Self = -1;
}

impl MinusOne for libc::ssize_t {
    const MINUS_ONE: Self = -1;
}

/// `libc::syscall`'s return type.
impl MinusOne for libc::c_long {
    const MINUS_ONE: Self = -1;
}

/// `Err(errno)` when a libc call returned `-1`, else `Ok` of what it returned.
pub fn cvt<T: MinusOne>(r: T) -> io::Result<T> {
    if r == T::MINUS_ONE {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}
