//! [`ReadBuf`]: a caller's buffer, part filled, part initialised, the rest uninitialised.

use std::fmt;
use std::mem::MaybeUninit;

/// A wrapper around a byte buffer that is filled incrementally and may be partly uninitialised
/// (tokio's `ReadBuf`).
///
/// The buffer has three regions, in order: *filled* (bytes a read put there), *initialised but
/// unfilled*, and *uninitialised*. `filled <= initialized <= capacity` always holds. A reader
/// writes into the unfilled part and then advances the filled cursor; the initialised cursor
/// lets a buffer reused across reads skip zeroing the bytes that already are initialised.
pub struct ReadBuf<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
    initialized: usize,
}

impl<'a> ReadBuf<'a> {
    /// A `ReadBuf` over a fully initialised buffer, nothing filled yet.
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and this `ReadBuf` never
        // writes uninitialised bytes into the part it records as initialised (all of it).
        let buf = unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) };
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// A `ReadBuf` over an uninitialised buffer, nothing filled or initialised yet.
    #[inline]
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// The total size of the buffer.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The filled part of the buffer.
    #[inline]
    pub fn filled(&self) -> &[u8] {
        let slice = &self.buf[..self.filled];
        // SAFETY: the filled part is initialised (`filled <= initialized`).
        unsafe { slice_assume_init(slice) }
    }

    /// The filled part of the buffer, mutably.
    #[inline]
    pub fn filled_mut(&mut self) -> &mut [u8] {
        let slice = &mut self.buf[..self.filled];
        // SAFETY: the filled part is initialised (`filled <= initialized`).
        unsafe { slice_assume_init_mut(slice) }
    }

    /// A new `ReadBuf` over at most `n` bytes of this one's unfilled part. What it fills is not
    /// reflected here: call [`advance`](Self::advance) with its filled length afterwards.
    #[inline]
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let max = std::cmp::min(self.remaining(), n);
        // SAFETY: the slice is only handed to a `ReadBuf`, which never de-initialises bytes.
        let unfilled = unsafe { &mut self.unfilled_mut()[..max] };
        ReadBuf::uninit(unfilled)
    }

    /// The initialised part of the buffer (the filled part and the initialised unfilled bytes).
    #[inline]
    pub fn initialized(&self) -> &[u8] {
        let slice = &self.buf[..self.initialized];
        // SAFETY: the first `initialized` bytes are initialised.
        unsafe { slice_assume_init(slice) }
    }

    /// The initialised part of the buffer, mutably.
    #[inline]
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        let slice = &mut self.buf[..self.initialized];
        // SAFETY: the first `initialized` bytes are initialised.
        unsafe { slice_assume_init_mut(slice) }
    }

    /// The whole buffer, uninitialised bytes included.
    ///
    /// # Safety
    /// The caller must not de-initialise any byte that was initialised.
    #[inline]
    pub unsafe fn inner_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        self.buf
    }

    /// The unfilled part of the buffer, which may be uninitialised.
    ///
    /// # Safety
    /// The caller must not de-initialise any byte that was initialised.
    #[inline]
    pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[self.filled..]
    }

    /// The unfilled part, initialised first (zeroing what was not yet initialised).
    #[inline]
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// The first `n` bytes of the unfilled part, initialised first.
    ///
    /// # Panics
    /// If `remaining()` is less than `n`.
    #[inline]
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(self.remaining() >= n, "n overflows remaining");
        let end = self.filled + n;
        if self.initialized < end {
            for b in &mut self.buf[self.initialized..end] {
                b.write(0);
            }
            self.initialized = end;
        }
        let slice = &mut self.buf[self.filled..end];
        // SAFETY: the bytes up to `end` were initialised just above (or before).
        unsafe { slice_assume_init_mut(slice) }
    }

    /// How many bytes are unfilled: `capacity() - filled().len()`.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.capacity() - self.filled
    }

    /// Empties the filled part; the initialised bytes stay initialised.
    #[inline]
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Advances the filled part by `n` bytes, which must be initialised.
    ///
    /// # Panics
    /// If the filled part would then exceed the initialised part.
    #[inline]
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let new = self.filled.checked_add(n).expect("filled overflow");
        self.set_filled(new);
    }

    /// Sets the filled length to `n`.
    ///
    /// # Panics
    /// If `n` exceeds the initialised part.
    #[inline]
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized"
        );
        self.filled = n;
    }

    /// Records the first `n` unfilled bytes as initialised (never shrinks the initialised part).
    ///
    /// # Safety
    /// The caller must have initialised those `n` bytes.
    #[inline]
    pub unsafe fn assume_init(&mut self, n: usize) {
        let new = self.filled + n;
        if new > self.initialized {
            self.initialized = new;
        }
    }

    /// Appends `buf` to the filled part, initialising as needed.
    ///
    /// # Panics
    /// If `buf` is longer than `remaining()`.
    #[inline]
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            self.remaining() >= buf.len(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}",
            buf.len(),
            self.remaining()
        );
        let end = self.filled + buf.len();
        // SAFETY: `&[u8]` and `&[MaybeUninit<u8>]` have the same layout; the bytes are copied
        // in, initialising them.
        let src = unsafe { &*(buf as *const [u8] as *const [MaybeUninit<u8>]) };
        self.buf[self.filled..end].copy_from_slice(src);
        if self.initialized < end {
            self.initialized = end;
        }
        self.filled = end;
    }
}

// SAFETY: `chunk_mut` hands out the unfilled part, `advance_mut` records as filled (and
// initialised) only bytes the caller promises it wrote, within `remaining_mut`.
unsafe impl bytes::BufMut for ReadBuf<'_> {
    fn remaining_mut(&self) -> usize {
        self.remaining()
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: the caller of `advance_mut` initialised the next `cnt` bytes.
        unsafe { self.assume_init(cnt) };
        self.advance(cnt);
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        // SAFETY: `UninitSlice` never de-initialises bytes.
        let unfilled = unsafe { self.unfilled_mut() };
        bytes::buf::UninitSlice::uninit(unfilled)
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}

/// # Safety
/// Every byte of `slice` is initialised.
#[inline]
unsafe fn slice_assume_init(slice: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: same layout; the caller promises the bytes are initialised.
    unsafe { &*(slice as *const [MaybeUninit<u8>] as *const [u8]) }
}

/// # Safety
/// Every byte of `slice` is initialised.
#[inline]
unsafe fn slice_assume_init_mut(slice: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: same layout; the caller promises the bytes are initialised.
    unsafe { &mut *(slice as *mut [MaybeUninit<u8>] as *mut [u8]) }
}
