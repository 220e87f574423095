//! hockney-sync's segment: the vectors of `A = B * C` that a method's
//! processors split, on 128-byte boundaries, and the check that every part
//! was computed.

use super::simd::{Simd, dyadic_f64};
use super::sync_plan::{Method, SyncPlan};
use crate::control::RankError;
use crate::platform::LineAligned;

/// Where the vectors start: on a 128-byte boundary (two 64-byte lines, the
/// unit some CPUs' adjacent-line prefetch moves together). With `P` parts
/// every share of a segment starts a multiple of 64 bytes from the vector's
/// start (grains are multiples of `8 P` elements), so with the start aligned
/// no two processors write one line. Left to the allocator (16-byte
/// alignment), the start's offset in its line varied between processes, and
/// with it whether the master and a worker wrote the same line at every
/// segment: one more line transfer in some processes' `t_0` and not in
/// others'.
pub(super) const ALIGN_BYTES: usize = 128;

/// The result vector, written by every processor in disjoint ranges.
struct SharedOut {
    ptr: *mut f64,
    len: usize,
}

// SAFETY: processors only ever form slices of disjoint ranges at the same time
// (see `Work::share`), and the master touches the whole vector only while the
// others are idle; every hand-over between them is a release/acquire pair.
unsafe impl Sync for SharedOut {}
// SAFETY: as above.
unsafe impl Send for SharedOut {}

impl SharedOut {
    /// # Safety
    /// No other thread may access `lo..hi` while the slice lives.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    unsafe fn range(&self, lo: usize, hi: usize) -> &mut [f64] {
        debug_assert!(lo <= hi && hi <= self.len);
        // SAFETY: in bounds (asserted above; callers keep hi <= len) and, by the
        // caller's promise, not aliased.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(lo), hi - lo) }
    }
}

/// The segment's data and how it is split.
pub(super) struct Work<'a> {
    out: SharedOut,
    b: &'a [f64],
    c: &'a [f64],
    parts: usize,
    simd: Simd,
    skip: Option<usize>,
}

impl Work<'_> {
    /// Processor `part`'s share of a segment of `grain` flop.
    #[inline]
    pub(super) fn share(&self, grain: usize, part: usize) {
        if self.skip == Some(part) {
            return;
        }
        // This part's flop: its share of the segment.
        let mut left = (part + 1) * grain / self.parts - part * grain / self.parts;
        // Its elements: its share of the segment, or of the whole vector when the
        // segment is longer than the vector (then it makes repeated passes).
        let (lo, hi) = self.part_range(grain, part);
        // SAFETY: the ranges of different parts are disjoint, and the master
        // touches the whole vector only between batches.
        let a = unsafe { self.out.range(lo, hi) };
        while left > 0 {
            let n = left.min(hi - lo);
            // SAFETY: `self.simd` comes from `Simd::detect` (in `with_method`).
            unsafe {
                dyadic_f64(
                    self.simd,
                    &mut a[..n],
                    &self.b[lo..lo + n],
                    &self.c[lo..lo + n],
                )
            };
            left -= n;
        }
    }

    /// Marks the first `grain` results as not computed. Only while the others idle.
    pub(super) fn prefill(&self, grain: usize) {
        // SAFETY: called by the master between batches, when no other processor
        // runs a segment.
        unsafe { self.out.range(0, grain.min(self.out.len)) }.fill(f64::NAN);
    }

    /// The elements processor `part` writes in a segment of `grain` flop.
    fn part_range(&self, grain: usize, part: usize) -> (usize, usize) {
        let span = grain.min(self.out.len);
        (part * span / self.parts, (part + 1) * span / self.parts)
    }

    /// Checks processor `part`'s results of a segment of `grain` flop: a
    /// process of a team over MPI has its own vectors and checks its own
    /// part. Only while no other processor writes them.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(super) fn verify_part(
        &self,
        grain: usize,
        part: usize,
        method: Method,
    ) -> Result<(), RankError> {
        let (lo, hi) = self.part_range(grain, part);
        // SAFETY: as in `prefill`.
        let a = unsafe { self.out.range(lo, hi) };
        match (lo..hi).find(|&i| a[i - lo] != self.b[i] * self.c[i]) {
            None => Ok(()),
            Some(i) => Err(RankError::Failed(format!(
                "verification failed for {}: element {i} of processor {part}'s part was not computed; the method skipped work",
                method.name()
            ))),
        }
    }

    /// Checks the first `grain` results. Only while the others idle.
    pub(super) fn verify(&self, grain: usize, method: Method) -> Result<(), RankError> {
        let grain = grain.min(self.out.len);
        // SAFETY: as in `prefill`.
        let a = unsafe { self.out.range(0, grain) };
        match (0..grain).find(|&i| a[i] != self.b[i] * self.c[i]) {
            None => Ok(()),
            Some(i) => Err(RankError::Failed(format!(
                "verification failed for {}: element {i} of {grain} (part {} of the segment) was not computed; the method skipped work",
                method.name(),
                i * self.parts / grain.max(1)
            ))),
        }
    }
}

/// Runs `f` on the segment's vectors for `plan` (filled, on 128-byte
/// boundaries) split between its processors.
pub(super) fn with_work<R>(plan: &SyncPlan, f: impl FnOnce(&Work<'_>) -> R) -> R {
    let len = plan.max_grain.max(plan.parts * 8);
    let mut a = LineAligned::from_fn_on(ALIGN_BYTES, len, |_| f64::NAN);
    let b = LineAligned::from_fn_on(ALIGN_BYTES, len, |i| 1.0 + (i % 7) as f64 * 0.25);
    let c = LineAligned::from_fn_on(ALIGN_BYTES, len, |i| 1.5 - (i % 5) as f64 * 0.125);
    let (b, c) = (&b[..], &c[..]);
    let simd = Simd::detect();
    let work = Work {
        out: SharedOut {
            ptr: a.as_mut_ptr(),
            len,
        },
        b,
        c,
        parts: plan.parts,
        simd,
        skip: plan.skip_part,
    };
    f(&work)
}
