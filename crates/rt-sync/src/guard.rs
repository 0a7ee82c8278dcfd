//! The lock guards' shared code (`mutex.rs`, `rwlock.rs`), written once as macros: the
//! `map`/`try_map` pairs, moving the `Arc` out of an owned guard, and the `Deref`, `DerefMut`,
//! `Drop` and `Debug` impls. Each guard keeps its own fields, constructor and `Send`/`Sync`
//! reasoning; these macros only fill in what is the same for all of them.

/// A `$map`/`$try_map` pair for a guard's inherent impl. `$try_map` narrows the data with its
/// closure and builds the narrowed guard with `|this, data| build` from the guard (not dropped:
/// the build keeps the lock held) and the narrowed data pointer; `$map` is `$try_map` with a
/// closure that cannot fail. `mut` gives the closures `&mut` (a write or mutex guard), `ref`
/// gives them `&` (a read guard, or a write guard being downgraded).
macro_rules! map_fns {
    (mut $($rest:tt)*) => { map_fns!(@ [mut] [*mut] $($rest)*); };
    (ref $($rest:tt)*) => { map_fns!(@ [] [*const] $($rest)*); };
    (@ [$($m:tt)?] [$($ptr:tt)+]
        $(#[$map_attr:meta])* fn $map:ident,
        $(#[$try_attr:meta])* fn $try_map:ident,
        <$v:ident> $from:ty => $to:ty,
        |$this:ident, $data:ident| $build:expr
    ) => {
        $(#[$map_attr])*
        pub fn $map<$v: ?Sized>(this: Self, f: impl FnOnce(&$($m)? $from) -> &$($m)? $v) -> $to {
            match Self::$try_map(this, |t| Some(f(t))) {
                Ok(guard) => guard,
                Err(_) => unreachable!("the closure gave `Some`"),
            }
        }

        $(#[$try_attr])*
        pub fn $try_map<$v: ?Sized>(
            $($m)? $this: Self,
            f: impl FnOnce(&$($m)? $from) -> Option<&$($m)? $v>,
        ) -> Result<$to, Self> {
            let Some($data) = f(&$($m)? *$this).map(|v| v as $($ptr)+ $v) else {
                return Err($this);
            };
            Ok($build)
        }
    };
}

/// `into_lock` for an owned guard (a struct with a `lock: Arc<_>` field): moves the `Arc` out
/// without releasing the lock, for the guard it turns into.
macro_rules! into_lock {
    ($lock:ty) => {
        /// Moves the `Arc` out without releasing the lock.
        fn into_lock(this: Self) -> $lock {
            let this = std::mem::ManuallyDrop::new(this);
            // SAFETY: `this` is never used or dropped again, so the `Arc` is moved out exactly
            // once; the guard's other fields need no drop.
            unsafe { std::ptr::read(&this.lock) }
        }
    };
}

/// `Deref`, `Drop` and `Debug` for a guard: `|g| data` gives the data pointer of the guard `g`,
/// valid while the guard holds the lock, and `release` gives the lock back (`g` in scope).
macro_rules! guard_impls {
    ([$($gen:tt)*] $name:ty => $target:ty, |$g:ident| $data:expr, release $release:expr) => {
        impl<$($gen)*> std::ops::Deref for $name {
            type Target = $target;
            fn deref(&self) -> &$target {
                let $g = self;
                // SAFETY: the guard holds the lock (to read or to write), so the data is valid
                // and no `&mut` to it exists elsewhere.
                unsafe { &*$data }
            }
        }

        impl<$($gen)*> Drop for $name {
            fn drop(&mut self) {
                let $g = &*self;
                $release;
            }
        }

        impl<$($gen)*> std::fmt::Debug for $name
        where
            $target: std::fmt::Debug,
        {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&**self, f)
            }
        }
    };
}

/// `DerefMut` for a guard that holds its lock exclusively (`|g| data` as for `guard_impls!`).
macro_rules! guard_mut {
    ([$($gen:tt)*] $name:ty => $target:ty, |$g:ident| $data:expr) => {
        impl<$($gen)*> std::ops::DerefMut for $name {
            fn deref_mut(&mut self) -> &mut $target {
                let $g = &*self;
                // SAFETY: the guard holds the lock exclusively and `&mut self` makes this the
                // only access.
                unsafe { &mut *$data }
            }
        }
    };
}
