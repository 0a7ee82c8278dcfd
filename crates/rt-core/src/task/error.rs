//! `JoinError`: why a task has no output.

use std::any::Any;
use std::fmt;

use super::id::Id;

/// A task ended without producing its output: it panicked or was cancelled.
///
/// `Send + Sync` like tokio's, so `?` turns it into `Box<dyn Error + Send + Sync>` or
/// `anyhow::Error`: the panic payload (only `Send`) sits in a `SyncWrapper` that hands out
/// shared references only to `Sync` types.
pub struct JoinError {
    repr: Repr,
    id: Id,
}

enum Repr {
    Cancelled,
    Panic(SyncWrapper<Box<dyn Any + Send + 'static>>),
}

/// Makes a `Send` value `Sync` by never handing out a shared reference to it: it is reached by
/// value, or by shared reference only as a `Sync` type it downcasts to.
struct SyncWrapper<T>(T);

// SAFETY: `&SyncWrapper<T>` gives no access to `T` itself; `downcast_ref_sync` hands out `&U`
// only for `U: Sync`, which may be shared between threads. Everything else takes `self` by
// value, which needs `T: Send` only (required below).
unsafe impl<T: Send> Sync for SyncWrapper<T> {}

impl SyncWrapper<Box<dyn Any + Send + 'static>> {
    fn downcast_ref_sync<U: Any + Sync>(&self) -> Option<&U> {
        self.0.downcast_ref::<U>()
    }
}

impl JoinError {
    /// The error of a task that was cancelled (for task sets that record outcomes themselves).
    #[doc(hidden)]
    pub fn cancelled(id: Id) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            id,
        }
    }

    /// The error of a task that panicked with `payload`.
    #[doc(hidden)]
    pub fn panic(id: Id, payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: Repr::Panic(SyncWrapper(payload)),
            id,
        }
    }

    /// The task was aborted, or dropped at runtime shutdown.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// The task panicked (while being polled, or while its future was dropped).
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload, to resume with `std::panic::resume_unwind`.
    ///
    /// # Panics
    /// When the error is not a panic; the panic names the caller's location.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic()
            .expect("`JoinError::into_panic` called on a cancellation, not a panic")
    }

    /// The panic payload, or the error itself when it is a cancellation.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(p) => Ok(p.0),
            Repr::Cancelled => Err(self),
        }
    }

    /// The id of the task that failed.
    pub fn id(&self) -> Id {
        self.id
    }
}

fn panic_message<'a>(p: &'a SyncWrapper<Box<dyn Any + Send + 'static>>) -> Option<&'a str> {
    p.downcast_ref_sync::<&'static str>()
        .copied()
        .or_else(|| p.downcast_ref_sync::<String>().map(|s| s.as_str()))
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(f, "task {} was cancelled", self.id),
            Repr::Panic(p) => match panic_message(p) {
                Some(m) => write!(f, "task {} panicked with message {m:?}", self.id),
                None => write!(f, "task {} panicked", self.id),
            },
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(f, "JoinError::Cancelled({:?})", self.id),
            Repr::Panic(p) => match panic_message(p) {
                Some(m) => write!(f, "JoinError::Panic({:?}, {m:?}, ...)", self.id),
                None => write!(f, "JoinError::Panic({:?}, ...)", self.id),
            },
        }
    }
}

impl std::error::Error for JoinError {}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<JoinError>()
};

impl From<JoinError> for std::io::Error {
    fn from(e: JoinError) -> std::io::Error {
        std::io::Error::other(e.to_string())
    }
}
