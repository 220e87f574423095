//! Buffers that start on a cache line.
//!
//! An allocator aligns a `Vec` to its element (bytes: to 16 on glibc), so where a
//! buffer starts within a 64-byte line is an accident of the allocation order.
//! Two such accidents decide how fast the CPU works on them:
//! - a 512-bit load of a 16-byte-aligned vector straddles two lines every time;
//! - a copy into a buffer that starts 16 bytes past a line runs about half as
//!   long again as into a line-aligned one (Criterion's `copy` group in
//!   `benches/transport.rs`, warm in L1, on a Xeon with AVX-512: 4 KiB in 34
//!   against 23 ns, 16 KiB in 104 against 75 ns), and each rank's buffers fall
//!   where its allocations happened to.
//!
//! So every buffer a kernel measures (vectors, messages, system buffers, transport
//! buffers) is line-aligned, and a cost is the operation's, not the allocator's.

/// The cache-line size every buffer is aligned to, bytes.
pub const LINE: usize = 64;

/// `len` elements whose first starts a 64-byte cache line: an over-allocated
/// `Vec` used from its first line boundary (safe code; the heap block does not
/// move with the value, so the alignment survives moves, e.g. through a channel).
#[derive(Debug, Clone)]
pub struct LineAligned<T> {
    raw: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Copy> LineAligned<T> {
    /// `len` elements `f(0), f(1), ...`.
    pub fn from_fn(len: usize, f: impl Fn(usize) -> T) -> LineAligned<T> {
        LineAligned::from_fn_on(LINE, len, f)
    }

    /// As [`LineAligned::from_fn`], the first element on a `boundary`-byte
    /// boundary (a multiple of [`LINE`]; 128 for two lines that some CPUs'
    /// adjacent-line prefetch moves together).
    pub fn from_fn_on(boundary: usize, len: usize, f: impl Fn(usize) -> T) -> LineAligned<T> {
        assert!(
            boundary.is_multiple_of(LINE),
            "a boundary of {boundary} bytes is not a multiple of a line"
        );
        let size = std::mem::size_of::<T>().max(1);
        let per_boundary = (boundary / size).max(1);
        let mut raw: Vec<T> = Vec::with_capacity(len + per_boundary);
        let misalign = raw.as_ptr() as usize % boundary;
        let start = ((boundary - misalign) % boundary) / size;
        raw.extend((0..start + len).map(|i| f(i.saturating_sub(start))));
        LineAligned { raw, start, len }
    }

    /// `len` copies of `value`.
    pub fn filled(len: usize, value: T) -> LineAligned<T> {
        LineAligned::from_fn(len, |_| value)
    }
}

impl<T> std::ops::Deref for LineAligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.raw[self.start..self.start + self.len]
    }
}

impl<T> std::ops::DerefMut for LineAligned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_start_on_a_line_and_hold_what_they_were_given() {
        for len in [0, 1, 15, 64, 1000, 16_384] {
            let b = LineAligned::from_fn(len, |i| (i % 251) as u8);
            assert_eq!(b.len(), len);
            assert_eq!(b.as_ptr() as usize % LINE, 0, "len {len}");
            assert!(b.iter().enumerate().all(|(i, &v)| v == (i % 251) as u8));
            let v = LineAligned::filled(len, 1.5f64);
            assert_eq!(v.as_ptr() as usize % LINE, 0);
            assert!(v.iter().all(|&x| x == 1.5));
        }
    }

    #[test]
    fn alignment_survives_a_move_through_a_channel() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut b = LineAligned::filled(3000, 0u8);
        b[2999] = 7;
        let before = b.as_ptr();
        tx.send(b).unwrap();
        let b = rx.recv().unwrap();
        assert_eq!(b.as_ptr(), before);
        assert_eq!(b[2999], 7);
    }
}
