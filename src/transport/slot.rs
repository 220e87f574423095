//! The mailbox's slot header (`mailbox.rs`, and the protocol in
//! `src/transport/README.md`): the flag word `seq` with its code, the word
//! that carries a message of at most 8 bytes, and how the inline path packs
//! and unpacks them.

use crate::primitive::{AtomicU64, Ordering};

/// Largest message carried in the header's inline word.
pub const INLINE_BYTES: usize = 8;

/// One slot's header: 16 bytes, eight to a 128-byte block.
#[derive(Debug, Default)]
#[repr(C, align(16))]
pub(super) struct Header {
    /// The chunk number last published in this slot, shifted left by
    /// [`CODE_BITS`], and in the low bits the chunk's code: the length of a
    /// message of at most 8 bytes (whose payload is `word`), or [`LONG`] for a
    /// chunk of a longer one (whose first chunk has the length in `word`). 0:
    /// never used. One word, so that a message of at most 8 bytes is two stores,
    /// `word` then `seq`, not three.
    pub(super) seq: AtomicU64,
    /// The payload of a message of at most 8 bytes, little-endian; the length of
    /// a longer message, in its first chunk.
    pub(super) word: AtomicU64,
}

/// Bits of `seq` below the chunk number.
pub(super) const CODE_BITS: u32 = 4;

/// The code of a chunk of a message longer than [`INLINE_BYTES`].
pub(super) const LONG: u64 = (1 << CODE_BITS) - 1;

/// The `seq` word that publishes chunk `c` with `code`.
#[inline(always)]
pub(super) fn seq_word(c: u64, code: u64) -> u64 {
    (c << CODE_BITS) | code
}

/// Eight slot headers on one 128-byte block (x86 fetches lines in adjacent
/// pairs): a ring of 64 slots spans 1 KiB, where a header per block spanned 8.
/// On a 2-vCPU EPYC VM whose two CPUs passed a line in 32 to 47 ns one way, a
/// ping-pong over 64 lines 128 bytes apart took 9 to 24 % longer than over one
/// line, and over 8 such lines 1 to 3 % (`examples/floor.rs`).
#[derive(Debug, Default)]
#[repr(C, align(128))]
pub(super) struct HeaderBlock(pub(super) [Header; HEADERS_PER_BLOCK]);

/// Headers in a [`HeaderBlock`].
pub(super) const HEADERS_PER_BLOCK: usize = 8;

/// Publishes a message of at most 8 bytes in `header` as the chunk whose `seq`
/// word, code left out, is `seq`: the word, then the flag with the length in
/// its code, two stores to the line the receiver polls. The caller checked
/// the credit.
#[inline(always)]
pub(super) fn put_inline(header: &Header, seq: u64, data: &[u8]) {
    // Relaxed: published by the Release store of `seq` below.
    header.word.store(pack_word(data), Ordering::Relaxed);
    // Release: makes `word` visible to the receiver's Acquire load of `seq`
    // (remote write, local read).
    header.seq.store(seq | data.len() as u64, Ordering::Release);
}

/// The length of the message whose first chunk's `seq` word is `seq`, in `header`.
#[inline(always)]
pub(super) fn first_len(header: &Header, seq: u64) -> usize {
    match seq & LONG {
        // Relaxed: ordered after the Acquire load that returned `seq`.
        LONG => header.word.load(Ordering::Relaxed) as usize,
        inline => inline as usize,
    }
}

/// The inline word of a message of at most 8 bytes, little-endian.
#[inline(always)]
pub(super) fn pack_word(data: &[u8]) -> u64 {
    match <[u8; 8]>::try_from(data) {
        Ok(word) => u64::from_le_bytes(word),
        Err(_) => {
            let mut word = [0u8; 8];
            word[..data.len()].copy_from_slice(data);
            u64::from_le_bytes(word)
        }
    }
}

/// Whether a slot's `seq` word `seq` shows chunk `c` published. The slot
/// holds chunk `c - slots` until the sender publishes `c` (it cannot get
/// further ahead without the receiver's credit for `c`), and chunk numbers
/// only grow, so one compare against `c`'s least word decides.
#[inline(always)]
pub(super) fn published(seq: u64, c: u64) -> bool {
    seq >= seq_word(c, 0)
}

/// Writes an inline message of `len` bytes, the word `word`, into `buf` and
/// returns `len`; `None` if `len` is `LONG` (the first chunk of a longer
/// message) or `buf` is too short. The receive path's 8-byte case does
/// without it.
#[inline(always)]
pub(super) fn unpack_short(word: u64, len: usize, buf: &mut [u8]) -> Option<usize> {
    if len > INLINE_BYTES || len > buf.len() {
        return None;
    }
    unpack_word(word, len, buf);
    Some(len)
}

/// Writes the first `len` bytes of the inline word `word` into `buf`.
#[inline(always)]
pub(super) fn unpack_word(word: u64, len: usize, buf: &mut [u8]) {
    let bytes = word.to_le_bytes();
    match buf.first_chunk_mut::<8>() {
        Some(head) if len == 8 => *head = bytes,
        _ => buf[..len].copy_from_slice(&bytes[..len]),
    }
}
