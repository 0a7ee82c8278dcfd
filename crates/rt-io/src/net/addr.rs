//! Address resolution for the sockets' `ToSocketAddrs` arguments (see the `net` module docs).

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};

/// Every address `addr` names: parsed directly when literal, through std's (blocking) resolver when
/// it is a host name.
pub(crate) fn resolve(addr: impl ToSocketAddrs) -> io::Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = addr.to_socket_addrs()?.collect();
    if addrs.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "could not resolve to any address",
        ));
    }
    Ok(addrs)
}

/// Runs `f` on each address in turn and returns the first success, or the last error.
pub(crate) async fn first_ok<T, F, Fut>(addrs: Vec<SocketAddr>, mut f: F) -> io::Result<T>
where
    F: FnMut(SocketAddr) -> Fut,
    Fut: std::future::Future<Output = io::Result<T>>,
{
    let mut last = None;
    for a in addrs {
        match f(a).await {
            Ok(v) => return Ok(v),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address")))
}
