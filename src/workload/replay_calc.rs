//! The replay's `calc`: real work, a dependent chain of integer multiply-adds
//! whose count per nanosecond is calibrated once before the trials (the fastest
//! of several short batches, so that a preempted batch does not slow every
//! `calc` down), and checked against the clock in the warm-up trial.
//!
//! A `//@ vector` calc runs its own loop instead: one pass of Hockney's vector
//! operation over operands allocated before the trials ([`VectorWork`]),
//! checked element by element in the warm-up.
//!
//! Work rather than a wait on the clock: a rank that shares its CPU with another
//! (oversubscribed) takes longer to do the same work, as a real computation does,
//! where a clock-driven wait would end on time whoever else ran meanwhile.

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
/// pass is one vector operation of Hockney's Table I over `elements` of them.
pub(crate) enum VectorWork {
    /// `-f64` operations.
    F64(Operands<f64>),
    /// `-f32` operations.
    F32(Operands<f32>),
}

/// `a = op(b, c, d, s)`, each array `elements` long.
pub(crate) struct Operands<T> {
    base: Base,
    a: Vec<T>,
    b: Vec<T>,
    c: Vec<T>,
    d: Vec<T>,
    s: T,
}

#[derive(Clone, Copy, PartialEq)]
enum Base {
    Dyadic,
    Triad,
    ScalarTriad,
    Scalar,
}

impl<T> Operands<T>
where
    T: Copy + PartialEq + From<f32> + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
{
    fn new(base: Base, n: usize) -> Self {
        let fill = |f: fn(usize) -> f32| (0..n).map(|i| T::from(f(i))).collect::<Vec<T>>();
        Operands {
            base,
            a: fill(|_| 0.0),
            b: fill(|i| 1.0 + (i % 7) as f32 * 0.25),
            c: fill(|i| 1.5 - (i % 5) as f32 * 0.125),
            d: fill(|i| 0.5 + (i % 3) as f32 * 0.5),
            s: T::from(1.25),
        }
    }

    fn want(&self, i: usize) -> T {
        match self.base {
            Base::Dyadic | Base::Scalar => self.b[i] * self.c[i],
            Base::Triad => self.d[i] * self.b[i] + self.c[i],
            Base::ScalarTriad => self.s * self.b[i] + self.c[i],
        }
    }

    #[inline(never)]
    fn pass(&mut self) {
        let (b, c, d, s) = (&self.b[..], &self.c[..], &self.d[..], self.s);
        let a = &mut self.a[..b.len()];
        match self.base {
            Base::Dyadic => a.iter_mut().enumerate().for_each(|(i, x)| *x = b[i] * c[i]),
            Base::Triad => a
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = d[i] * b[i] + c[i]),
            Base::ScalarTriad => a
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = s * b[i] + c[i]),
            // One element at a time: the operand through black_box keeps the
            // loop from being vectorised (Hockney's scalar code).
            Base::Scalar => a
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = black_box(b[i]) * c[i]),
        }
        black_box(&mut self.a);
    }

    fn check(&self) -> bool {
        (0..self.a.len()).all(|i| self.a[i] == self.want(i))
    }
}

impl VectorWork {
    /// The operands of `v`, each of its `elements()`.
    pub(crate) fn new(v: &crate::model::goal::VectorCalc) -> VectorWork {
        let base = match v.operation.rsplit_once('-').map_or("", |(b, _)| b) {
            "triad" => Base::Triad,
            "scalar-triad" => Base::ScalarTriad,
            "scalar" => Base::Scalar,
            _ => Base::Dyadic,
        };
        let n = v.elements() as usize;
        match v.is_f32() {
            true => VectorWork::F32(Operands::new(base, n)),
            false => VectorWork::F64(Operands::new(base, n)),
        }
    }

    /// One pass of the operation.
    pub(crate) fn run(&mut self) {
        match self {
            VectorWork::F64(o) => o.pass(),
            VectorWork::F32(o) => o.pass(),
        }
    }

    /// Whether every element of the result is the operation's, exactly.
    pub(crate) fn check(&self) -> bool {
        match self {
            VectorWork::F64(o) => o.check(),
            VectorWork::F32(o) => o.check(),
        }
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
        }
        // Triad: A = D*B + C at element 4: 1.0 * 2.0 + 1.0 = 3.0.
        let mut t = Operands::<f64>::new(Base::Triad, 8);
        t.pass();
        assert_eq!(t.a[4], 3.0);
        assert_eq!(t.a.len(), 8);
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
