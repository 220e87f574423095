//! Buffers on transparent huge pages.
//!
//! A table of tens of MiB read at scattered places costs a TLB entry per 4 KiB
//! page it touches; once its pages outnumber the TLB's entries (a few thousand
//! on current cores), nearly every such read walks the page tables, and in a
//! virtual machine the walk is nested. [`HugeBuf`] starts on a 2 MiB boundary
//! and asks the kernel for huge pages (`madvise(MADV_HUGEPAGE)`, which is what
//! the `madvise` setting of `/sys/kernel/mm/transparent_hugepage/enabled`
//! waits for) before its first touch, so that 2 MiB take one entry. Where the
//! kernel declines, it is an ordinary buffer.

use std::alloc::Layout;

/// Size and alignment of a huge page, bytes.
pub const HUGE_PAGE: usize = 2 << 20;

/// Element types that are valid with every bit zero and own nothing.
pub trait Plain: Copy + private::Sealed {}
impl Plain for u16 {}
impl Plain for u32 {}
impl Plain for u64 {}

mod private {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// `len` zeroed elements, from a 2 MiB boundary on huge pages once the buffer
/// holds at least half a huge page (below that, from a cache line).
pub struct HugeBuf<T: Plain> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    /// The allocation's layout (size 0: nothing allocated).
    layout: Layout,
}

// SAFETY: the buffer owns its elements alone, like a `Vec<T>` of a `Plain` `T`
// (integers): nothing in it refers to a thread.
unsafe impl<T: Plain> Send for HugeBuf<T> {}
// SAFETY: shared access only reads through `&[T]`, as for a `Vec<T>`.
unsafe impl<T: Plain> Sync for HugeBuf<T> {}

impl<T: Plain> HugeBuf<T> {
    /// `len` zeroed elements.
    pub fn zeroed(len: usize) -> Self {
        let bytes = len
            .checked_mul(size_of::<T>())
            .expect("a huge buffer's size fits a usize");
        let align = if bytes >= HUGE_PAGE / 2 {
            HUGE_PAGE
        } else {
            super::LINE
        };
        let layout = Layout::from_size_align(bytes.next_multiple_of(align), align)
            .expect("a huge buffer's layout is valid");
        if layout.size() == 0 {
            return Self {
                ptr: std::ptr::NonNull::dangling(),
                len,
                layout,
            };
        }
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = std::ptr::NonNull::new(raw.cast::<T>()) else {
            std::alloc::handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        if align == HUGE_PAGE {
            // SAFETY: the range is the allocation just made, whole pages (the
            // size is a multiple of the 2 MiB alignment); the advice changes how
            // the kernel backs it, not its contents. A refusal (huge pages
            // disabled) leaves ordinary pages, so the result is not needed.
            unsafe { libc::madvise(raw.cast(), layout.size(), libc::MADV_HUGEPAGE) };
        }
        // SAFETY: `raw` holds `layout.size()` writable bytes, at least `len`
        // elements; zero bits are a valid `T` (`Plain`).
        unsafe { std::ptr::write_bytes(raw, 0, layout.size()) };
        Self { ptr, len, layout }
    }

    /// Grows to `len` elements (no shorter than now), the old ones kept in
    /// place and the new ones zero: a new buffer and one copy.
    pub fn grow(&mut self, len: usize) {
        assert!(len >= self.len, "a huge buffer only grows");
        let mut bigger = Self::zeroed(len);
        bigger[..self.len].copy_from_slice(self);
        *self = bigger;
    }
}

impl<T: Plain> Drop for HugeBuf<T> {
    fn drop(&mut self) {
        if self.layout.size() > 0 {
            // SAFETY: allocated in `zeroed` with this very layout, freed once.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) };
        }
    }
}

impl<T: Plain> std::ops::Deref for HugeBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised elements (zeroed or written
        // since), or is dangling and well aligned with `len` 0 elements.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Plain> std::ops::DerefMut for HugeBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Plain> std::fmt::Debug for HugeBuf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HugeBuf")
            .field("len", &self.len)
            .field("align", &self.layout.align())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_start_on_a_huge_page_and_small_ones_on_a_line() {
        let big = HugeBuf::<u16>::zeroed(HUGE_PAGE); // 4 MiB
        assert_eq!(big.as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(big.len(), HUGE_PAGE);
        assert!(big.iter().all(|&x| x == 0));
        let small = HugeBuf::<u64>::zeroed(100);
        assert_eq!(small.as_ptr() as usize % super::super::LINE, 0);
        assert_eq!((small.len(), small.iter().sum::<u64>()), (100, 0));
        assert!(HugeBuf::<u32>::zeroed(0).is_empty());
    }

    #[test]
    fn growing_keeps_the_elements_and_zeroes_the_rest() {
        let mut b = HugeBuf::<u32>::zeroed(10);
        for (i, x) in b.iter_mut().enumerate() {
            *x = i as u32 + 1;
        }
        b.grow(HUGE_PAGE / 4); // 2 MiB: onto huge pages
        assert_eq!(b.as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(&b[..10], &(1..=10).collect::<Vec<u32>>()[..]);
        assert!(b[10..].iter().all(|&x| x == 0));
        assert_eq!(b.len(), HUGE_PAGE / 4);
    }
}
