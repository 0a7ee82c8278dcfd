//! [`AsyncSeekExt`]: `seek`, `rewind`, `stream_position` over an [`AsyncSeek`].

use std::future::Future;
use std::io::{self, SeekFrom};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::AsyncSeek;

/// Seeking methods for every [`AsyncSeek`] (tokio's `AsyncSeekExt`).
pub trait AsyncSeekExt: AsyncSeek {
    /// Seeks to `pos`; returns the new position from the start of the stream.
    ///
    /// # Cancel safety
    /// Not cancel safe: if dropped, the seek may or may not have happened.
    fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        Seek {
            seek: self,
            pos: Some(pos),
            _pin: PhantomPinned,
        }
    }

    /// Seeks to the start of the stream.
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Start(0))
    }

    /// The current position from the start of the stream (a seek by 0 from the current one).
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}

/// The future of [`AsyncSeekExt::seek`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Seek<'a, S: ?Sized> {
    seek: &'a mut S,
    pos: Option<SeekFrom>,
    _pin: PhantomPinned,
}

impl<S: AsyncSeek + ?Sized + Unpin> Future for Seek<'_, S> {
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        // SAFETY: no field is pinned ("Pinning" in `io/util/mod.rs`); nothing is moved out of `*me`.
        let me = unsafe { self.get_unchecked_mut() };
        match me.pos {
            Some(pos) => {
                // Finish a seek that was already in progress (started by someone else) first.
                ready!(Pin::new(&mut *me.seek).poll_complete(cx))?;
                Pin::new(&mut *me.seek).start_seek(pos)?;
                me.pos = None;
                Pin::new(&mut *me.seek).poll_complete(cx)
            }
            None => Pin::new(&mut *me.seek).poll_complete(cx),
        }
    }
}
