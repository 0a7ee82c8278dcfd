//! [`SetOnce`]: a value that is set once and that tasks can wait for, as tokio's
//! `sync::SetOnce`.
//!
//! Built from two primitives of this crate: a [`OnceCell`] holds the value (its `set` is the one
//! place a value is published, so two racing `set`s cannot both win), and a [`Notify`] wakes the
//! tasks in [`SetOnce::wait`]. A waiter creates its `Notified` before it looks at the cell, so a
//! `set` that publishes after the look still wakes it (`notify_waiters` reaches every `Notified`
//! created before the call).

use std::error::Error;
use std::fmt;

use crate::notify::Notify;
use crate::once_cell::OnceCell;

/// A cell that is set at most once, and that tasks can [`wait`](SetOnce::wait) on until it is.
///
/// Unlike [`OnceCell`], it has no `get_or_init`: the value comes from one [`set`](SetOnce::set),
/// and everyone else reads or waits for it.
///
/// ```
/// # rt_core::test_support::block_on(async {
/// use std::sync::Arc;
/// let ready = Arc::new(rt_sync::SetOnce::new());
/// assert!(ready.get().is_none());
/// ready.set(7).unwrap();
/// assert!(ready.set(8).is_err()); // set once
/// assert_eq!(*ready.wait().await, 7);
/// # });
/// ```
pub struct SetOnce<T> {
    cell: OnceCell<T>,
    set: Notify,
}

/// [`SetOnce::set`] found a value there already; the value it was given comes back.
#[derive(Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> SetOnce<T> {
    /// An empty cell.
    pub fn new() -> SetOnce<T> {
        SetOnce {
            cell: OnceCell::new(),
            set: Notify::new(),
        }
    }

    /// [`SetOnce::new`] in a `const` context, e.g. for a `static`. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new() -> SetOnce<T> {
        SetOnce {
            cell: OnceCell::const_new(),
            set: Notify::const_new(),
        }
    }

    /// A cell holding `value` if it is `Some`, else empty.
    pub fn new_with(value: Option<T>) -> SetOnce<T> {
        SetOnce {
            cell: OnceCell::new_with(value),
            set: Notify::new(),
        }
    }

    /// A cell that already holds `value`, in a `const` context. Not under loom.
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> SetOnce<T> {
        SetOnce {
            cell: OnceCell::const_new_with(value),
            set: Notify::const_new(),
        }
    }

    /// Whether the value is set.
    pub fn initialized(&self) -> bool {
        self.cell.initialized()
    }

    /// The value, if it is set.
    pub fn get(&self) -> Option<&T> {
        self.cell.get()
    }

    /// Sets the value and wakes every task in [`wait`](SetOnce::wait). Fails, giving `value`
    /// back, when the cell is set already (or another thread is setting it right now).
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        match self.cell.set(value) {
            Ok(()) => {
                self.set.notify_waiters();
                Ok(())
            }
            Err(e) => Err(SetOnceError(match e {
                crate::once_cell::SetError::AlreadyInitializedError(v)
                | crate::once_cell::SetError::InitializingError(v) => v,
            })),
        }
    }

    /// The value, if it is set, taking the cell apart.
    pub fn into_inner(self) -> Option<T> {
        self.cell.into_inner()
    }

    /// Waits until the value is set and returns it (at once if it is).
    ///
    /// # Cancel safety
    /// Cancel safe: it takes nothing.
    pub async fn wait(&self) -> &T {
        loop {
            // Created before the look at the cell (module docs).
            let notified = self.set.notified();
            if let Some(value) = self.cell.get() {
                return value;
            }
            notified.await;
        }
    }
}

impl<T> Default for SetOnce<T> {
    fn default() -> SetOnce<T> {
        SetOnce::new()
    }
}

impl<T> From<T> for SetOnce<T> {
    fn from(value: T) -> SetOnce<T> {
        SetOnce::new_with(Some(value))
    }
}

impl<T: Clone> Clone for SetOnce<T> {
    fn clone(&self) -> SetOnce<T> {
        SetOnce::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for SetOnce<T> {
    fn eq(&self, other: &SetOnce<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for SetOnce<T> {}

impl<T: fmt::Debug> fmt::Debug for SetOnce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetOnce")
            .field("value", &self.get())
            .finish()
    }
}

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SetOnce value already set")
    }
}

impl<T: fmt::Debug> Error for SetOnceError<T> {}
