//! The background computation `Q` (Krumme & Greenfield, section 3.1 and Appendix A's
//! `qint` and `qfloat`): a fixed loop that runs on the timing rank between and around
//! its communication calls, so that the computation a message costs the processor
//! shows up as extra time of `Q`.
//!
//! The integer version adds, multiplies and accumulates a Fibonacci-like sequence;
//! the floating-point version does the same in `f64`. One *unit* of `Q` is one pass
//! of the inner loop (40 integer or 18 floating-point iterations, as `QINTLOOP` and
//! `QFLOATLOOP`); a calibration measures the time of a unit without communication,
//! from which the lengths the experiments use are set: a *chunk* (the computation
//! between two polls of the hosted nodes), `SENDTIME` (long enough for a message to
//! clear) and `COMPTIME = 5 SENDTIME` (Appendix A's 5 and 25 units), both whole
//! numbers of chunks.

use crate::kernels::harness::timing::Timer;
use std::hint::black_box;
use std::time::Duration;

/// Inner-loop length of the integer `Q` (Appendix A's `QINTLOOP`).
const QINTLOOP: u32 = 40;
/// Inner-loop length of the floating-point `Q` (Appendix A's `QFLOATLOOP`).
const QFLOATLOOP: u32 = 18;

/// Which background computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QKind {
    /// Integer adds, multiplies and compares (Table 1).
    Integer,
    /// Floating-point adds and multiplies with integer loop control (Table 2).
    Float,
}

impl QKind {
    /// Both versions, in the paper's table order.
    pub const ALL: [QKind; 2] = [QKind::Integer, QKind::Float];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            QKind::Integer => "integer",
            QKind::Float => "floating-point",
        }
    }

    /// The prefix of its fit parameters (`int_e0_ns`, `float_e0_ns`).
    pub fn prefix(self) -> &'static str {
        match self {
            QKind::Integer => "int",
            QKind::Float => "float",
        }
    }
}

/// `units` passes of the integer loop; returns the checksum (`qint`).
#[inline(never)]
pub fn qint(units: u64) -> u64 {
    let mut iss = 0u64;
    for _ in 0..units {
        // black_box on the seed: every pass is computed, none hoisted.
        let (mut i, mut j) = (black_box(2u64), 3u64);
        iss = 0;
        for _ in 0..QINTLOOP {
            let k = i.wrapping_add(j);
            i = j;
            j = k;
            iss = iss.wrapping_add(k.wrapping_mul(k));
        }
        iss = black_box(iss);
    }
    iss
}

/// `units` passes of the floating-point loop; returns the checksum (`qfloat`).
#[inline(never)]
pub fn qfloat(units: u64) -> f64 {
    let mut fss = 0.0f64;
    for _ in 0..units {
        let (mut i, mut j) = (black_box(2.0f64), 3.0f64);
        fss = 0.0;
        for _ in 0..QFLOATLOOP {
            j += i;
            fss += j * j;
            i += j;
            fss += i * i;
        }
        fss = black_box(fss);
    }
    fss
}

/// A calibrated background computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Background {
    /// Which loop.
    pub kind: QKind,
    /// Time of one unit without communication, ns (minimum over trials).
    pub unit_ns: f64,
    /// Units of one chunk (the computation between two polls).
    pub chunk_units: u64,
    /// Chunks of `Q(SENDTIME)`.
    pub send_chunks: u64,
    /// Chunks of `Q(COMPTIME)`, five times `send_chunks` as in Appendix A.
    pub comp_chunks: u64,
}

impl Background {
    /// Calibrates `kind` on the calling thread so that a chunk lasts about `chunk`
    /// and `Q(SENDTIME)` about `sendtime`: times batches of units (minimum of
    /// several trials) first.
    pub fn calibrate(kind: QKind, sendtime: Duration, chunk: Duration) -> Background {
        const BATCH: u64 = 2_000;
        let mut best = f64::INFINITY;
        for _ in 0..7 {
            let start = Timer::start();
            run(kind, BATCH);
            best = best.min(start.elapsed().as_nanos() as f64 / BATCH as f64);
        }
        let unit_ns = best.max(1e-3);
        let chunk_units = ((chunk.as_nanos() as f64 / unit_ns).ceil() as u64).max(1);
        let chunk_ns = chunk_units as f64 * unit_ns;
        let send_chunks = ((sendtime.as_nanos() as f64 / chunk_ns).ceil() as u64).max(1);
        Background {
            kind,
            unit_ns,
            chunk_units,
            send_chunks,
            comp_chunks: 5 * send_chunks,
        }
    }

    /// Runs one chunk.
    #[inline(always)]
    pub fn chunk(&self) {
        run(self.kind, self.chunk_units);
    }

    /// Runs `units` units.
    #[inline(always)]
    pub fn units(&self, units: u64) {
        run(self.kind, units);
    }
}

/// Runs `units` units of `kind` and keeps the result alive.
#[inline(always)]
pub(super) fn run(kind: QKind, units: u64) {
    match kind {
        QKind::Integer => {
            black_box(qint(black_box(units)));
        }
        QKind::Float => {
            black_box(qfloat(black_box(units)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loops compute what Appendix A's do: for the integer loop the 40 terms
    /// k = 5, 8, 13, ... (Fibonacci from F_5), summed squared; by hand for 3 terms:
    /// 25 + 64 + 169 = 258. Here checked through the closed form sum F_k^2 =
    /// F_k F_{k+1} with wrapping, against a direct loop.
    #[test]
    fn q_computes_its_checksums_and_scales_with_units() {
        let mut fib = vec![0u64, 1];
        for n in 2..50 {
            let next = fib[n - 1].wrapping_add(fib[n - 2]);
            fib.push(next);
        }
        // k runs over F_5 .. F_44; sum of F_i^2 for i = 1..m is F_m F_{m+1}.
        let sum = fib[44]
            .wrapping_mul(fib[45])
            .wrapping_sub(fib[4].wrapping_mul(fib[5]));
        assert_eq!(qint(3), sum);
        assert_eq!(qint(0), 0);
        // Floating point: 18 steps of (j += i; i += j) from (2, 3) stay finite.
        let f = qfloat(1);
        assert!(f.is_finite() && f > 1e10, "{f}");
        let bg = Background::calibrate(
            QKind::Integer,
            Duration::from_micros(20),
            Duration::from_micros(2),
        );
        assert!(bg.unit_ns > 0.0 && bg.chunk_units >= 1 && bg.send_chunks >= 1);
        assert_eq!(bg.comp_chunks, 5 * bg.send_chunks);
    }
}
