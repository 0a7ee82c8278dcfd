//! `rt-io`: a mio reactor on its own thread, sockets and timers.
//!
//! Architecture invariant: this is the only crate of the workspace that names mio.

pub mod io;
pub mod net;
pub mod time;
