//! A hint that the CPU fetch a value's cache line before it is read.

/// Asks the CPU to bring the cache line holding the start of `value` into its
/// caches (all levels), without waiting for it and without any effect on the
/// program's result: for a loop that knows which line it will read a few
/// steps ahead, so that the miss overlaps the work in between.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it is part
    // of the architecture's baseline); a prefetch reads nothing into the program
    // and never faults, and `value` is a valid reference besides.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    /// A prefetch changes nothing the program can see.
    #[test]
    fn prefetch_leaves_values_alone() {
        let v: Vec<u64> = (0..1024).collect();
        for x in v.iter().step_by(8) {
            prefetch(x);
        }
        assert_eq!(v.iter().sum::<u64>(), 1023 * 1024 / 2);
    }
}
