//! The replay's `calc`: real work, a dependent chain of integer multiply-adds
//! whose count per nanosecond is calibrated once before the trials (the fastest
//! of several short batches, so that a preempted batch does not slow every
//! `calc` down), and checked against the clock in the warm-up trial.
//!
//! A `//@ vector` calc runs its own loop instead: one pass of Hockney's vector
//! operation over operands allocated before the trials ([`VectorWork`]), with
//! `hockney-vector`'s code and SIMD dispatch, checked element by element in
//! the warm-up.
//!
//! Work rather than a wait on the clock: a rank that shares its CPU with another
//! (oversubscribed) takes longer to do the same work, as a real computation does,
//! where a clock-driven wait would end on time whoever else ran meanwhile.

use crate::kernels::hockney::{Operation, Simd, Vectors};
use std::hint::black_box;
use std::time::Instant;

/// Steps of the chain per nanosecond on this machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CalcRate {
    /// Steps per nanosecond.
    pub(crate) steps_per_ns: f64,
}

/// Batches timed to calibrate, and the steps of each.
const BATCHES: usize = 25;
const BATCH_STEPS: u64 = 20_000;

/// Runs `steps` of the chain; the result only keeps the work from being removed.
#[inline(never)]
pub(crate) fn chain(steps: u64) -> u64 {
    let mut x: u64 = black_box(0x9e37_79b9_7f4a_7c15);
    for _ in 0..black_box(steps) {
        // A linear congruential step: each depends on the one before, so the
        // loop cannot be vectorised or shortened, and it touches no memory.
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    black_box(x)
}

impl CalcRate {
    /// Calibrates on the calling thread's CPU.
    pub(crate) fn calibrate() -> CalcRate {
        chain(BATCH_STEPS); // warm up the code and the frequency
        let best = (0..BATCHES)
            .map(|_| {
                let t = Instant::now();
                chain(BATCH_STEPS);
                t.elapsed().as_nanos().max(1) as f64
            })
            .fold(f64::INFINITY, f64::min);
        CalcRate {
            steps_per_ns: BATCH_STEPS as f64 / best,
        }
    }

    /// The steps that take `ns` nanoseconds.
    pub(crate) fn steps(&self, ns: u64) -> u64 {
        (ns as f64 * self.steps_per_ns).round() as u64
    }

    /// Does `ns` nanoseconds of work.
    #[inline]
    pub(crate) fn work(&self, ns: u64) {
        if ns > 0 {
            chain(self.steps(ns));
        }
    }
}

/// The operands of one `//@ vector` calc, allocated before the trials: a
/// pass is one vector operation of Hockney's Table I over `elements` of them,
/// run by `hockney-vector`'s own code ([`Vectors::run`]) at the SIMD level its
/// dispatch chooses ([`Simd::chosen`]; the detected level where that names
/// none this CPU runs), so that the replay's loop is the one the card's
/// `r_inf` and `n_1/2` were fitted on.
pub(crate) struct VectorWork {
    operands: Operands,
    op: Operation,
    elements: usize,
    simd: Simd,
}

/// The vectors of one precision.
enum Operands {
    F64(Vectors<f64>),
    F32(Vectors<f32>),
}

impl VectorWork {
    /// The operands of `v`, each of its `elements()`.
    pub(crate) fn new(v: &crate::model::goal::VectorCalc) -> VectorWork {
        let op = match v.operation.rsplit_once('-').map_or("", |(b, _)| b) {
            "triad" => Operation::Triad,
            "scalar-triad" => Operation::ScalarTriad,
            "scalar" => Operation::Scalar,
            _ => Operation::Dyadic,
        };
        let n = v.elements() as usize;
        VectorWork {
            operands: match v.is_f32() {
                true => Operands::F32(Vectors::new(n)),
                false => Operands::F64(Vectors::new(n)),
            },
            op,
            elements: n,
            simd: Simd::chosen().unwrap_or_else(|_| Simd::detect()),
        }
    }

    /// One pass of the operation.
    pub(crate) fn run(&mut self) {
        let (simd, op, n) = (self.simd, self.op, self.elements);
        match &mut self.operands {
            Operands::F64(v) => v.run(simd, op, n, 1),
            Operands::F32(v) => v.run(simd, op, n, 1),
        };
    }

    /// Whether every element of the result is the operation's, exactly.
    pub(crate) fn check(&self) -> bool {
        match &self.operands {
            Operands::F64(v) => v.check(self.op, self.elements),
            Operands::F32(v) => v.check(self.op, self.elements),
        }
    }

    /// The SIMD level the pass runs.
    #[cfg(test)]
    fn simd(&self) -> Simd {
        self.simd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vector_operation_computes_its_statement() {
        use crate::model::goal::VectorCalc;
        for op in ["dyadic-f64", "triad-f64", "scalar-triad-f32", "scalar-f32"] {
            let v = VectorCalc {
                operation: op.into(),
                level: "L1".into(),
                flop: 1000,
            };
            let mut w = VectorWork::new(&v);
            assert!(!w.check(), "{op}: the zeros before the pass must not pass");
            w.run();
            assert!(w.check(), "{op}");
            // hockney-vector's dispatch: the widest level this CPU runs.
            assert_eq!(w.simd(), Simd::chosen().unwrap_or_else(|_| Simd::detect()));
        }
        // Triad: A = D*B + C at element 4: 1.0 * 2.0 + 1.0 = 3.0, over the
        // 500 elements of 1000 flop.
        let v = VectorCalc {
            operation: "triad-f64".into(),
            level: "L1".into(),
            flop: 1000,
        };
        let mut t = VectorWork::new(&v);
        t.run();
        let Operands::F64(vectors) = &t.operands else {
            panic!("f64 operands")
        };
        assert_eq!(vectors.a[4], 3.0);
        assert_eq!((t.elements, vectors.len()), (500, 500));
    }

    #[test]
    fn calibrated_work_takes_about_the_time_asked() {
        let rate = CalcRate::calibrate();
        assert!(
            rate.steps_per_ns > 0.01 && rate.steps_per_ns < 100.0,
            "{rate:?}"
        );
        // The fastest of several runs of 2 ms of work, against the clock: within
        // a generous band on a loaded machine (a run preempted lasts longer, the
        // fastest is the work's own time).
        let best = (0..5)
            .map(|_| {
                let t = Instant::now();
                rate.work(2_000_000);
                t.elapsed().as_nanos() as f64
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            best > 1_500_000.0 && best < 4_000_000.0,
            "2 ms of work took {best} ns"
        );
        assert_eq!(rate.steps(0), 0);
    }
}
