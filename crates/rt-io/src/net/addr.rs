//! Address resolution for the sockets' [`ToSocketAddrs`] arguments and [`lookup_host`].
//!
//! Literal addresses resolve inline. A host name goes to the runtime's blocking pool through the
//! hook the facade installs at build ([`crate::Driver::set_blocking_spawner`]): `getaddrinfo`
//! may block for seconds, and it must never do that on a worker. rt-io has no pool of its own
//! (it does not depend on rt-sched); a reactor without a hook (rt-io used on its own) resolves on
//! a short-lived thread instead.
//!
//! The hand-off back to the task is a mutex-protected slot (result + waker), not a lock-free
//! protocol.

use std::fmt;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rt_core::sync::{Arc, Mutex};

use crate::handle::Handle;

/// Test seam (cargo feature `test-hooks`): stands in for `getaddrinfo` on the blocking pool.
#[cfg(feature = "test-hooks")]
pub type TestResolver = std::sync::Arc<dyn Fn(&str) -> io::Result<Vec<SocketAddr>> + Send + Sync>;

/// Anything the sockets' `bind`/`connect`/`send_to` and [`lookup_host`] take as an address:
/// tokio's sealed `ToSocketAddrs`. `SocketAddr`, `SocketAddrV4`/`V6`, `(IpAddr, u16)` (and the
/// v4/v6 forms), `&[SocketAddr]`, and strings holding a literal `ip:port` resolve inline; host
/// names in `&str`, `String`, `(&str, u16)` and `(String, u16)` resolve on the blocking pool.
///
/// Sealed: implemented by rt only.
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use super::*;

    /// What an address argument becomes: addresses, or a query for the resolver.
    #[derive(Debug)]
    pub enum Resolve {
        Ready(Vec<SocketAddr>),
        Query(Query),
    }

    /// A host-name lookup, run on the blocking pool.
    #[derive(Debug, Clone)]
    pub enum Query {
        /// `"host:port"`.
        Str(String),
        /// `(host, port)`.
        HostPort(String, u16),
    }

    pub trait ToSocketAddrsPriv {
        fn to_resolve(&self) -> Resolve;
    }
}

use sealed::{Query, Resolve, ToSocketAddrsPriv};

macro_rules! inline_addr {
    ($($t:ty => |$s:ident| $e:expr;)*) => {$(
        impl ToSocketAddrs for $t {}
        impl ToSocketAddrsPriv for $t {
            fn to_resolve(&self) -> Resolve {
                let $s = self;
                Resolve::Ready(vec![$e])
            }
        }
    )*};
}

inline_addr! {
    SocketAddr => |a| *a;
    SocketAddrV4 => |a| SocketAddr::V4(*a);
    SocketAddrV6 => |a| SocketAddr::V6(*a);
    (IpAddr, u16) => |a| SocketAddr::new(a.0, a.1);
    (Ipv4Addr, u16) => |a| SocketAddr::new(IpAddr::V4(a.0), a.1);
    (Ipv6Addr, u16) => |a| SocketAddr::new(IpAddr::V6(a.0), a.1);
    ([u8; 4], u16) => |a| SocketAddr::new(IpAddr::from(a.0), a.1);
}

impl ToSocketAddrs for [SocketAddr] {}
impl ToSocketAddrsPriv for [SocketAddr] {
    fn to_resolve(&self) -> Resolve {
        Resolve::Ready(self.to_vec())
    }
}

impl<const N: usize> ToSocketAddrs for [SocketAddr; N] {}
impl<const N: usize> ToSocketAddrsPriv for [SocketAddr; N] {
    fn to_resolve(&self) -> Resolve {
        Resolve::Ready(self.to_vec())
    }
}

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn to_resolve(&self) -> Resolve {
        match self.parse::<SocketAddr>() {
            Ok(a) => Resolve::Ready(vec![a]),
            Err(_) => Resolve::Query(Query::Str(self.to_owned())),
        }
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn to_resolve(&self) -> Resolve {
        self.as_str().to_resolve()
    }
}

impl ToSocketAddrs for (&str, u16) {}
impl ToSocketAddrsPriv for (&str, u16) {
    fn to_resolve(&self) -> Resolve {
        match self.0.parse::<IpAddr>() {
            Ok(ip) => Resolve::Ready(vec![SocketAddr::new(ip, self.1)]),
            Err(_) => Resolve::Query(Query::HostPort(self.0.to_owned(), self.1)),
        }
    }
}

impl ToSocketAddrs for (String, u16) {}
impl ToSocketAddrsPriv for (String, u16) {
    fn to_resolve(&self) -> Resolve {
        (self.0.as_str(), self.1).to_resolve()
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrsPriv + ?Sized> ToSocketAddrsPriv for &T {
    fn to_resolve(&self) -> Resolve {
        (**self).to_resolve()
    }
}

/// Resolves `host` (`"name:port"`, `("name", port)`, or any other [`ToSocketAddrs`]) to its
/// addresses, on the blocking pool when it is a name: tokio's `lookup_host`.
///
/// ```
/// # rt::Runtime::new()?.block_on(async {
/// let addrs: Vec<_> = rt::net::lookup_host("localhost:80").await?.collect();
/// assert!(addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 80));
/// # Ok::<(), std::io::Error>(()) })?;
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Panics
/// Outside an rt runtime (a name needs its blocking pool).
pub async fn lookup_host<T: ToSocketAddrs>(
    host: T,
) -> io::Result<impl Iterator<Item = SocketAddr> + Send + 'static> {
    Ok(resolve(host).await?.into_iter())
}

/// Every address `addr` names, at least one: inline when literal, on the blocking pool when
/// a host name.
pub(crate) async fn resolve(addr: impl ToSocketAddrs) -> io::Result<Vec<SocketAddr>> {
    let addrs = match addr.to_resolve() {
        Resolve::Ready(a) => a,
        Resolve::Query(q) => Lookup::start(q).await?,
    };
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
    Fut: Future<Output = io::Result<T>>,
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

/// `getaddrinfo` through std, or the test seam.
fn run_query(q: &Query, #[allow(unused)] handle: &Handle) -> io::Result<Vec<SocketAddr>> {
    #[cfg(feature = "test-hooks")]
    if let Some(r) = handle.test_resolver() {
        return match q {
            Query::Str(s) => r(s),
            Query::HostPort(h, p) => r(&format!("{h}:{p}")),
        };
    }
    let it = match q {
        Query::Str(s) => std::net::ToSocketAddrs::to_socket_addrs(s.as_str())?,
        Query::HostPort(h, p) => std::net::ToSocketAddrs::to_socket_addrs(&(h.as_str(), *p))?,
    };
    Ok(it.collect())
}

/// Where the blocking job leaves its answer for the waiting task.
#[derive(Default)]
struct Slot {
    result: Option<io::Result<Vec<SocketAddr>>>,
    waker: Option<Waker>,
}

/// A host-name lookup in flight on the blocking pool.
struct Lookup {
    slot: Arc<Mutex<Slot>>,
}

impl fmt::Debug for Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lookup").finish_non_exhaustive()
    }
}

/// Fills the slot when the job ends, and also when the pool drops it unrun (shut down).
struct Fill {
    slot: Arc<Mutex<Slot>>,
    result: Option<io::Result<Vec<SocketAddr>>>,
}

impl Drop for Fill {
    fn drop(&mut self) {
        let result = self.result.take().unwrap_or_else(|| {
            Err(io::Error::other(
                "host name lookup cancelled: the runtime's blocking pool has shut down",
            ))
        });
        let waker = {
            let mut s = self.slot.lock().unwrap_or_else(|e| e.into_inner());
            s.result = Some(result);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl Lookup {
    fn start(q: Query) -> Lookup {
        let handle = Handle::current();
        let slot = Arc::new(Mutex::new(Slot::default()));
        let mut fill = Fill {
            slot: slot.clone(),
            result: None,
        };
        let h = handle.clone();
        let job: Box<dyn FnOnce() + Send> = Box::new(move || {
            fill.result = Some(run_query(&q, &h));
            drop(fill);
        });
        match handle.blocking_spawner() {
            Some(spawn) => spawn(job),
            // rt-io on its own, without a runtime's pool: a thread just for this lookup.
            None => {
                if let Err(e) = std::thread::Builder::new()
                    .name("rt-io-resolve".into())
                    .spawn(job)
                {
                    // The job (and its `Fill`) was dropped: the slot holds "cancelled"; say why.
                    let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
                    s.result = Some(Err(e));
                }
            }
        }
        Lookup { slot }
    }
}

impl Future for Lookup {
    type Output = io::Result<Vec<SocketAddr>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        match s.result.take() {
            Some(r) => Poll::Ready(r),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
