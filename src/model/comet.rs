//! CoMet's collectives and matrix kernels predicted from the echo's lines.
//!
//! Source: N. Ganapati, S. W. Otto and J. Walpole, "CoMet: A Synthetic Benchmark
//! for Message-Passing Architectures" (1994), sections 2.2 and 4.1: a message of
//! `N` bytes between nodes `n` hops apart takes `t(N) = t_startup + N t_per_byte +
//! (n − 1) h` one way. Each kernel is a known pattern of such messages; counting
//! the messages on its critical path gives its time, under stated assumptions:
//!
//! * no overlap: a rank's consecutive sends each cost a whole one-way time (what
//!   the echo measured), so a root's `P − 1` sends take `(P − 1) t(N)`;
//! * full duplex: two ranks exchanging at once take one `t(N)` (the pairwise
//!   exchange's premise);
//! * no contention: messages of one round do not slow each other;
//! * one hop between every pair of ranks (threads of one machine are all
//!   neighbours) unless the caller says otherwise;
//! * computation (adding vectors, packing columns, transposing a block) is free.
//!
//! Where these fail the prediction fails, and says how: a root's sends overlap in
//! a memory system (too slow a prediction), store-and-forward or shared links add
//! contention (too fast), and virtual processors (more ranks than CPUs) add
//! thread wake-ups the echo between two pinned CPUs never saw (far too fast).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The echo's lines: `t(N) = t_startup + N t_per_byte + (hops − 1) h`, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EchoLines {
    /// Start-up of a one-hop message (ns).
    pub t_startup_ns: f64,
    /// Time per byte (ns).
    pub t_per_byte_ns: f64,
    /// Extra time per further hop (ns).
    pub h_ns: f64,
}

/// Bad input to a CoMet prediction.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CometModelError {
    /// Fewer than two processors.
    #[error("a collective needs at least 2 processors, got {0}")]
    TooFewProcessors(u32),
    /// A negative or non-finite size.
    #[error("message size {0} must be a finite number of bytes >= 0")]
    BadSize(f64),
    /// Zero hops.
    #[error("a message travels at least 1 hop")]
    ZeroHops,
    /// A grid with an empty side, or one that does not hold the processors.
    #[error("a grid of {rows} x {cols} does not make a processor grid")]
    BadGrid {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
    },
}

/// `ceil(log2 p)`: the rounds of a binomial tree or of a dissemination.
pub fn rounds(p: u32) -> u32 {
    p.next_power_of_two().trailing_zeros()
}

impl EchoLines {
    /// One-way time of `bytes` over `hops` hops.
    pub fn one_way_ns(&self, bytes: f64, hops: u32) -> Result<f64, CometModelError> {
        if !(bytes.is_finite() && bytes >= 0.0) {
            return Err(CometModelError::BadSize(bytes));
        }
        if hops == 0 {
            return Err(CometModelError::ZeroHops);
        }
        Ok(self.t_startup_ns + bytes * self.t_per_byte_ns + f64::from(hops - 1) * self.h_ns)
    }

    fn t(&self, bytes: f64) -> Result<f64, CometModelError> {
        self.one_way_ns(bytes, 1)
    }

    /// Dissemination barrier: `ceil(log2 P)` rounds of an empty message.
    pub fn barrier_ns(&self, p: u32) -> Result<f64, CometModelError> {
        at_least_two(p)?;
        Ok(f64::from(rounds(p)) * self.t(0.0)?)
    }

    /// Linear broadcast then the barrier: `(P − 1) t(N) + ceil(log2 P) t(0)`.
    pub fn broadcast_linear_ns(&self, bytes: f64, p: u32) -> Result<f64, CometModelError> {
        Ok(f64::from(p - 1) * self.t(bytes)? + self.barrier_ns(p)?)
    }

    /// Binomial-tree broadcast then the barrier: `ceil(log2 P) (t(N) + t(0))`.
    pub fn broadcast_tree_ns(&self, bytes: f64, p: u32) -> Result<f64, CometModelError> {
        Ok(f64::from(rounds(p)) * self.t(bytes)? + self.barrier_ns(p)?)
    }

    /// Recursive-doubling global sum: `log2 P'` exchanges of the vector (`P'` the
    /// largest power of two <= P), two more (fold in, result out) when P is not one.
    pub fn global_sum_doubling_ns(&self, bytes: f64, p: u32) -> Result<f64, CometModelError> {
        at_least_two(p)?;
        let pow = 1u32 << (31 - p.leading_zeros());
        let extra = if pow == p { 0.0 } else { 2.0 };
        Ok((f64::from(pow.trailing_zeros()) + extra) * self.t(bytes)?)
    }

    /// Tree reduction then tree broadcast: `2 ceil(log2 P) t(N)`.
    pub fn global_sum_tree_ns(&self, bytes: f64, p: u32) -> Result<f64, CometModelError> {
        at_least_two(p)?;
        Ok(2.0 * f64::from(rounds(p)) * self.t(bytes)?)
    }

    /// Shift of the whole local array (`8 (ld + 2)^2` bytes) one block along a grid
    /// side of `side` ranks: one exchange, nothing when the side is 1 rank.
    pub fn shift_ns(&self, ld: u32, side: u32) -> Result<f64, CometModelError> {
        if side <= 1 {
            return Ok(0.0);
        }
        self.t(block_bytes(ld))
    }

    /// Transpose: one exchange of the local array with the transposed position,
    /// then the dissemination barrier; on a `1 x 2` grid no message moves.
    pub fn transpose_ns(&self, ld: u32, rows: u32, cols: u32) -> Result<f64, CometModelError> {
        let p = grid(rows, cols)?;
        let exchange = if rows == 1 || cols == 1 {
            0.0
        } else {
            self.t(block_bytes(ld))?
        };
        Ok(exchange + self.barrier_ns(p)?)
    }

    /// Guard update: four strips of `8 ld` bytes sent one after another (their
    /// packing overlapped, Fig. 15), the receptions overlapping the sends.
    pub fn update_guard_ns(&self, ld: u32) -> Result<f64, CometModelError> {
        Ok(4.0 * self.t(8.0 * f64::from(ld))?)
    }

    /// Row (or column) multicast to the `others` other ranks of a grid column (or
    /// row), each answering with an empty acknowledgement: `others (t(8 ld) + t(0))`.
    pub fn line_broadcast_ns(&self, ld: u32, others: u32) -> Result<f64, CometModelError> {
        Ok(f64::from(others) * (self.t(8.0 * f64::from(ld))? + self.t(0.0)?))
    }
}

/// Bytes of a local array with its guard wrapper: `8 (ld + 2)^2`.
pub fn block_bytes(ld: u32) -> f64 {
    8.0 * (f64::from(ld) + 2.0).powi(2)
}

fn at_least_two(p: u32) -> Result<(), CometModelError> {
    if p < 2 {
        Err(CometModelError::TooFewProcessors(p))
    } else {
        Ok(())
    }
}

fn grid(rows: u32, cols: u32) -> Result<u32, CometModelError> {
    match rows.checked_mul(cols) {
        Some(p) if rows >= 1 && cols >= 1 && p >= 2 => Ok(p),
        _ => Err(CometModelError::BadGrid { rows, cols }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's iPSC/860 lines above 100 bytes: 156 us, 0.41 us/byte, h = 25 us.
    fn ipsc() -> EchoLines {
        EchoLines {
            t_startup_ns: 156e3,
            t_per_byte_ns: 0.41e3,
            h_ns: 25e3,
        }
    }

    #[test]
    fn echo_line_by_hand_and_paper() {
        let e = ipsc();
        // 1000 B over 4 hops: 156 + 410 + 3 x 25 = 641 us.
        assert_eq!(e.one_way_ns(1000.0, 4).unwrap(), 641e3);
        // Half the peak bandwidth at N = t_startup / t_per_byte = 380 B; the paper
        // measured 486 B (its line is a fit above 100 B, its peak 2.5 MB/s).
        assert!((e.t_startup_ns / e.t_per_byte_ns - 380.5).abs() < 0.1);
        assert_eq!(e.one_way_ns(1.0, 0), Err(CometModelError::ZeroHops));
        assert_eq!(e.one_way_ns(-1.0, 1), Err(CometModelError::BadSize(-1.0)));
    }

    #[test]
    fn collectives_by_hand() {
        let e = EchoLines {
            t_startup_ns: 100.0,
            t_per_byte_ns: 1.0,
            h_ns: 0.0,
        };
        assert_eq!(rounds(2), 1);
        assert_eq!(rounds(5), 3);
        assert_eq!(rounds(8), 3);
        // Barrier at P = 8: 3 empty messages.
        assert_eq!(e.barrier_ns(8).unwrap(), 300.0);
        // Linear broadcast of 50 B to 8: 7 x 150 + 300.
        assert_eq!(e.broadcast_linear_ns(50.0, 8).unwrap(), 1350.0);
        // Tree: 3 x 150 + 300.
        assert_eq!(e.broadcast_tree_ns(50.0, 8).unwrap(), 750.0);
        // Doubling at P = 8: 3 exchanges; at P = 6: 2 + 2.
        assert_eq!(e.global_sum_doubling_ns(50.0, 8).unwrap(), 450.0);
        assert_eq!(e.global_sum_doubling_ns(50.0, 6).unwrap(), 600.0);
        assert_eq!(e.global_sum_tree_ns(50.0, 8).unwrap(), 900.0);
        assert_eq!(e.barrier_ns(1), Err(CometModelError::TooFewProcessors(1)));
    }

    #[test]
    fn matrix_kernels_by_hand() {
        let e = EchoLines {
            t_startup_ns: 100.0,
            t_per_byte_ns: 1.0,
            h_ns: 0.0,
        };
        // ld = 8: the array with guard is 10 x 10 doubles = 800 B.
        assert_eq!(block_bytes(8), 800.0);
        assert_eq!(e.shift_ns(8, 2).unwrap(), 900.0);
        assert_eq!(e.shift_ns(8, 1).unwrap(), 0.0);
        // 2 x 2 grid: one exchange and a 2-round barrier.
        assert_eq!(e.transpose_ns(8, 2, 2).unwrap(), 900.0 + 200.0);
        // 1 x 2 grid: no message, only the barrier.
        assert_eq!(e.transpose_ns(8, 1, 2).unwrap(), 100.0);
        // Guard: four strips of 64 B.
        assert_eq!(e.update_guard_ns(8).unwrap(), 4.0 * 164.0);
        // Row broadcast to 1 other rank: 164 + 100.
        assert_eq!(e.line_broadcast_ns(8, 1).unwrap(), 264.0);
        assert_eq!(
            e.transpose_ns(8, 0, 2),
            Err(CometModelError::BadGrid { rows: 0, cols: 2 })
        );
    }

    #[test]
    fn broadcast_grows_with_log_p_as_the_paper_saw() {
        // Section 4.1: "the broadcast times for different machine sizes increases
        // linearly with the log of the number of processors": the tree's increments
        // per doubling are equal, the linear broadcast's nearly double.
        let e = ipsc();
        let tree: Vec<f64> = [2, 4, 8, 16]
            .iter()
            .map(|&p| e.broadcast_tree_ns(1000.0, p).unwrap())
            .collect();
        let steps: Vec<f64> = tree.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(steps.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-6));
        let lin: Vec<f64> = [2, 4, 8]
            .iter()
            .map(|&p| e.broadcast_linear_ns(1000.0, p).unwrap())
            .collect();
        assert!(lin[2] - lin[1] > 1.5 * (lin[1] - lin[0]));
    }
}
