//! What the kernels of this method share: the CPU pair, the commands rank 0 sends
//! the other ranks before each experiment, and small timing helpers.

use super::super::{KernelError, RunContext};
use crate::team::RankError;
use crate::transport::Endpoint;
use std::time::Instant;

/// The two CPUs the virtual processors are dealt onto: the user's first two, else
/// the most distant pair among the allowed CPUs; one CPU only with
/// `--oversubscribe` (hops then do not cross CPUs, and the result says so).
pub(super) fn cpu_pair(ctx: &RunContext<'_>, kernel: &str) -> Result<Vec<usize>, KernelError> {
    crate::kernels::scibench::choose_pair(ctx, kernel)
}

/// A command from rank 0: what to do next, with up to three arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Command {
    /// The operation (kernel-specific; 0 ends the kernel).
    pub(super) op: u64,
    /// Message size in bytes.
    pub(super) size: usize,
    /// Repetitions.
    pub(super) reps: u64,
    /// An operation-specific argument.
    pub(super) arg: u64,
}

/// The operation that ends a rank's command loop.
pub(super) const OP_END: u64 = 0;

impl Command {
    fn encode(self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[..8].copy_from_slice(&self.op.to_le_bytes());
        b[8..16].copy_from_slice(&(self.size as u64).to_le_bytes());
        b[16..24].copy_from_slice(&self.reps.to_le_bytes());
        b[24..].copy_from_slice(&self.arg.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Command {
        let word = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        Command {
            op: word(0),
            size: word(1) as usize,
            reps: word(2),
            arg: word(3),
        }
    }

    /// Sends the command to each of `ranks`.
    pub(super) fn send_to<E: Endpoint>(
        self,
        ep: &mut E,
        ranks: impl IntoIterator<Item = usize>,
    ) -> Result<(), RankError> {
        let bytes = self.encode();
        for r in ranks {
            ep.send(r, &bytes)?;
        }
        Ok(())
    }

    /// Receives the next command from rank 0.
    pub(super) fn recv<E: Endpoint>(ep: &mut E, buf: &mut [u8]) -> Result<Command, RankError> {
        let n = ep.recv(0, buf)?;
        check_len(n, 32)?;
        Ok(Command::decode(buf))
    }
}

/// Fails unless `got == want`.
pub(super) fn check_len(got: usize, want: usize) -> Result<(), RankError> {
    if got != want {
        return Err(RankError::Failed(format!(
            "received {got} bytes, expected {want}"
        )));
    }
    Ok(())
}

/// Nanoseconds from `a` to `b`.
#[inline(always)]
pub(super) fn ns(a: Instant, b: Instant) -> f64 {
    b.duration_since(a).as_nanos() as f64
}

/// Per-iteration times of one timed block, kept without allocating on the timed
/// path. The block's figure is their median: robust against the odd iteration a
/// scheduler preemption stretches, on a machine shared with other work (the paper,
/// on a dedicated machine, averaged).
#[derive(Debug, Clone)]
pub(super) struct Samples(Vec<f64>);

impl Samples {
    /// Room for `reps` samples.
    pub(super) fn new(reps: u64) -> Samples {
        Samples(Vec::with_capacity(reps as usize))
    }

    /// Adds one (no allocation while under the capacity given).
    #[inline(always)]
    pub(super) fn push(&mut self, v: f64) {
        self.0.push(v);
    }

    /// The median, NaN when empty.
    pub(super) fn median(&self) -> f64 {
        crate::model::stats::summarize(&self.0).map_or(f64::NAN, |s| s.median)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip() {
        let c = Command {
            op: 3,
            size: 65_536,
            reps: 101,
            arg: 5 | 1 << 8,
        };
        assert_eq!(Command::decode(&c.encode()), c);
    }

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
