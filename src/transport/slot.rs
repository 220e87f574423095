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
///
/// A message shorter than 8 bytes is read as two loads of 4 (or 2) bytes
/// from its two ends, which overlap where it is shorter than 8 (4): the
/// overlapping bytes are the same in both, so OR-ing the two puts every
/// byte in its place, with no call to a copy of variable length. Streamed
/// one way between two CPUs of a 2-vCPU EPYC VM, 1 to 4 bytes took 14 to 19
/// ns a message through such a copy at each end, and 8 bytes 5 to 6.
#[inline(always)]
pub(super) fn pack_word(data: &[u8]) -> u64 {
    let n = data.len();
    if let Ok(word) = <[u8; 8]>::try_from(data) {
        return u64::from_le_bytes(word);
    }
    let ends = |w: usize| {
        let mut lo = [0u8; 4];
        let mut hi = [0u8; 4];
        lo[..w].copy_from_slice(&data[..w]);
        hi[..w].copy_from_slice(&data[n - w..]);
        (u32::from_le_bytes(lo) as u64) | ((u32::from_le_bytes(hi) as u64) << (8 * (n - w)))
    };
    match n {
        4..=7 => ends(4),
        2..=3 => ends(2),
        1 => data[0] as u64,
        _ => 0,
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

/// Writes the first `len` bytes of the inline word `word` into `buf`, a
/// message shorter than 8 bytes as two stores of 4 (or 2) bytes at its two
/// ends, as [`pack_word`] reads it.
#[inline(always)]
pub(super) fn unpack_word(word: u64, len: usize, buf: &mut [u8]) {
    let bytes = word.to_le_bytes();
    if let Some(head) = buf.first_chunk_mut::<8>()
        && len == 8
    {
        *head = bytes;
        return;
    }
    let buf = &mut buf[..len];
    let mut ends = |w: usize| {
        buf[..w].copy_from_slice(&bytes[..w]);
        buf[len - w..].copy_from_slice(&bytes[len - w..len]);
    };
    match len {
        4..=7 => ends(4),
        2..=3 => ends(2),
        1 => buf[0] = bytes[0],
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length from 0 to 8 packs into the word's first bytes, zeros
    /// above (so that the word is the message, little-endian), and unpacks
    /// into exactly `len` bytes of a longer buffer, the rest untouched.
    #[test]
    fn every_inline_length_packs_and_unpacks_in_place() {
        let message: Vec<u8> = (1..=8).map(|b| b * 17).collect();
        for len in 0..=INLINE_BYTES {
            let data = &message[..len];
            let word = pack_word(data);
            let mut expected = [0u8; 8];
            expected[..len].copy_from_slice(data);
            assert_eq!(word, u64::from_le_bytes(expected), "len {len}");
            let mut buf = [0xAAu8; 12];
            unpack_word(word, len, &mut buf);
            assert_eq!(&buf[..len], data, "len {len}");
            assert!(buf[len..].iter().all(|&b| b == 0xAA), "len {len}: {buf:?}");
            let mut exact = vec![0u8; len];
            assert_eq!(unpack_short(word, len, &mut exact), Some(len));
            assert_eq!(exact, data);
        }
        assert_eq!(unpack_short(0, 5, &mut [0u8; 4]), None);
        assert_eq!(unpack_short(0, LONG as usize, &mut [0u8; 16]), None);
    }
}
