//! The panic messages of calls that need something the thread's runtime lacks: rt's words, or
//! under the `tokio-face` feature tokio's exact ones (programs and tests written for tokio
//! match on them).

/// A call that needs a runtime, made outside of any.
#[cfg(not(feature = "tokio-face"))]
pub const NO_RUNTIME: &str = "there is no rt reactor running: call this from inside an rt \
     runtime (rt::Runtime::block_on, rt::spawn, #[rt::main])";
/// A call that needs a runtime, made outside of any (tokio's `CONTEXT_MISSING_ERROR`).
#[cfg(feature = "tokio-face")]
pub const NO_RUNTIME: &str =
    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

/// A call that needs the runtime's context, made while the thread's context is being torn
/// down (from a thread-local's destructor).
#[cfg(not(feature = "tokio-face"))]
pub const CONTEXT_DESTROYED: &str = "the rt runtime context of this thread was already \
     destroyed (called from a thread-local destructor)";
/// A call that needs the runtime's context, made while the thread's context is being torn
/// down (tokio's `THREAD_LOCAL_DESTROYED_ERROR`).
#[cfg(feature = "tokio-face")]
pub const CONTEXT_DESTROYED: &str = "The Tokio context thread-local variable has been destroyed.";

/// A source registered on a runtime built without IO (rt-io's `ReactorConfig::enable_io`).
#[cfg(not(feature = "tokio-face"))]
pub const IO_DISABLED: &str = "this runtime's reactor was built without IO \
     (ReactorConfig::enable_io is false): build the runtime with IO enabled";
/// A source registered on a runtime built without IO (tokio's wording).
#[cfg(feature = "tokio-face")]
pub const IO_DISABLED: &str = "A Tokio 1.x context was found, but IO is disabled. Call \
     `enable_io` on the runtime builder to enable IO.";

/// A timer created on a runtime built without timers (rt-io's `ReactorConfig::enable_time`).
#[cfg(not(feature = "tokio-face"))]
pub const TIME_DISABLED: &str = "this runtime's reactor was built without timers \
     (ReactorConfig::enable_time is false): build the runtime with timers enabled";
/// A timer created on a runtime built without timers (tokio's wording).
#[cfg(feature = "tokio-face")]
pub const TIME_DISABLED: &str = "A Tokio 1.x context was found, but timers are disabled. Call \
     `enable_time` on the runtime builder to enable timers.";
