//! The calls several methods time alike: the end of a system action (a full
//! fence, Krumme & Greenfield's serializing return, which the decomposition
//! and Lamanna's calibration both charge to a send), the per-iteration
//! samples of an experiment whose figure is their median, the dissemination
//! barrier on point-to-point messages (which CoMet times and hockney-sync's
//! MPI processes meet on), and the byte views of `f64` vectors that CoMet's
//! global sum and the speedup's product send.

use crate::control::RankError;
use crate::transport::Endpoint;

/// The end of a system action (a write or read call, a poll that moved something):
/// a full fence, so that the action's stores have left the CPU's store buffer
/// before the program goes on.
///
/// On the NCUBE the system's work was done when it returned (the DMA engines moved
/// the data, the processor's own copies were complete). Here the CPU copies, and a
/// copy of up to a few KiB can return with its stores still buffered; they drain
/// (with the cross-CPU ownership requests of the transport's lines) while whatever
/// comes next runs. A register-only `Q` does not wait for them, the next copy does:
/// the same action then costs more on the echo's endpoints, which copy again at
/// once, than where it is timed alone, and the paper's solve, which adds and
/// subtracts the six times, puts the difference into `U` and (below zero) into
/// `A`. The fence makes each action pay its own stores, as a serializing return
/// from a system call or an interrupt does on x86.
#[inline(always)]
pub(crate) fn system_return() {
    // SeqCst: the only fence that orders earlier stores before later loads (a full
    // barrier, `mfence` on x86); it orders no data between ranks here.
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// Per-iteration times of one experiment (its blocks of every round), kept
/// without allocating on the timed path. The experiment's figure is their
/// median: robust against the odd iteration a scheduler preemption stretches,
/// on a machine shared with other work (the paper, on a dedicated machine,
/// averaged).
#[derive(Debug, Clone)]
pub(crate) struct Samples(Vec<f64>);

impl Samples {
    /// Room for `reps` samples.
    pub(crate) fn new(reps: u64) -> Samples {
        Samples(Vec::with_capacity(reps as usize))
    }

    /// Adds one (no allocation while under the capacity given).
    #[inline(always)]
    pub(crate) fn push(&mut self, v: f64) {
        self.0.push(v);
    }

    /// The median, NaN when empty.
    pub(crate) fn median(&self) -> f64 {
        crate::model::stats::summarize(&self.0).map_or(f64::NAN, |s| s.median)
    }
}

/// The dissemination barrier on an endpoint's messages: in round `k` rank `r`
/// sends an empty message to `r + 2^k` and receives one from `r - 2^k` (mod P),
/// for `ceil(log2 P)` rounds. Messages between a pair arrive in order, so
/// episodes cannot mix.
#[inline]
pub fn dissemination<E: Endpoint>(ep: &mut E) -> Result<(), RankError> {
    let (r, p) = (ep.rank(), ep.size());
    let mut dist = 1;
    while dist < p {
        ep.send((r + dist) % p, &[])?;
        ep.recv((r + p - dist) % p, &mut [])?;
        dist *= 2;
    }
    Ok(())
}

/// The bytes of a vector of doubles, for sending.
pub(crate) fn f64_bytes(v: &[f64]) -> &[u8] {
    // SAFETY: `f64` has no padding, so all `size_of_val(v)` bytes are initialised;
    // `u8` needs no alignment; the view borrows `v` for its lifetime.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The bytes of a vector of doubles, for receiving into.
pub(crate) fn f64_bytes_mut(v: &mut [f64]) -> &mut [u8] {
    // SAFETY: as in `f64_bytes`; moreover every bit pattern is a valid `f64`, so
    // writes through the view cannot create an invalid value, and the exclusive
    // borrow of `v` keeps it the only access.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_give_the_median_or_nan() {
        let mut s = Samples::new(4);
        assert!(s.median().is_nan());
        for v in [5.0, 1.0, 900.0, 3.0] {
            s.push(v);
        }
        assert_eq!(s.median(), 4.0);
    }
}
