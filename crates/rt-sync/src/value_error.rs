//! `value_error!`: the error types of the channels that give a value that was not sent back to
//! its owner (`channel::error`, `mpsc::error`). Each has `Debug` without the value (so `T` needs
//! no `Debug`), its `Display` message, `Error`, and (an enum) `into_inner`.

/// Defines a public error type holding a value that was not sent: a tuple struct, or an enum
/// whose variants each hold it; `=> "message"` gives each one's `Display`.
macro_rules! value_error {
    ($(#[$meta:meta])* struct $name:ident => $msg:literal) => {
        $(#[$meta])*
        #[derive(PartialEq, Eq, Clone, Copy)]
        pub struct $name<T>(pub T);

        impl<T> std::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }

        impl<T> std::fmt::Display for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($msg)
            }
        }

        impl<T> std::error::Error for $name<T> {}
    };
    ($(#[$meta:meta])* enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident => $msg:literal,)+
    }) => {
        $(#[$meta])*
        #[derive(PartialEq, Eq, Clone, Copy)]
        pub enum $name<T> {
            $($(#[$vmeta])* $variant(T),)+
        }

        impl<T> $name<T> {
            /// The value that was not sent.
            pub fn into_inner(self) -> T {
                match self {
                    $($name::$variant(v))|+ => v,
                }
            }
        }

        impl<T> std::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $($name::$variant(_) => f.write_str(concat!(stringify!($variant), "(..)")),)+
                }
            }
        }

        impl<T> std::fmt::Display for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $($name::$variant(_) => f.write_str($msg),)+
                }
            }
        }

        impl<T> std::error::Error for $name<T> {}
    };
}
