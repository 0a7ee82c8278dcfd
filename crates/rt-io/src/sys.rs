//! The one place where a libc return value becomes an `io::Result` (what mio's `syscall!` does):
//! every direct libc call in rt-io is wrapped as `cvt(unsafe { libc::call(..) })`, so errno is
//! read in one place, right after the call that set it, and each call keeps its own
//! `// SAFETY:` comment.

use std::io;

/// A libc return type whose `-1` means "failed, see errno".
pub(crate) trait IsMinusOne: Copy {
    fn is_minus_one(self) -> bool;
}

impl IsMinusOne for libc::c_int {
    fn is_minus_one(self) -> bool {
        self == -1
    }
}

impl IsMinusOne for libc::ssize_t {
    fn is_minus_one(self) -> bool {
        self == -1
    }
}

/// `Err(errno)` when `r` is `-1`, else `Ok(r)`.
pub(crate) fn cvt<T: IsMinusOne>(r: T) -> io::Result<T> {
    if r.is_minus_one() {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}
