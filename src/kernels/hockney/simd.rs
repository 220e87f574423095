//! The vector operations of Hockney's Table I, compiled once per SIMD level and
//! chosen at run time (`is_x86_feature_detected!`), so the binary stays portable
//! and still reaches the machine's vector width.
//!
//! Each operation is a plain indexed loop over slices of equal length, which LLVM
//! vectorises to the width the enclosing `#[target_feature]` allows (512-bit with
//! `avx512f`, 256-bit with `avx2,fma`, 128-bit SSE2 otherwise). Rust does not
//! contract `a * b + c` into a fused multiply-add, so a triad is a multiply and an
//! add, two flops, as on the Cray. The scalar case reads and writes through
//! volatile accesses, which keeps the compiler from vectorising the dyadic loop,
//! as Hockney's compiler directive did.
//!
//! A batch runs one operation `reps` times back to back. Before each repetition
//! the slices pass through `black_box`, so the compiler cannot reuse the previous
//! repetition's results or drop a repetition.

pub use crate::platform::LineAligned;
use std::hint::black_box;
use std::ops::{Add, Mul};

/// An element type of the vectors (f64 or f32).
pub trait Element:
    Copy + Mul<Output = Self> + Add<Output = Self> + PartialEq + Send + Sync
{
    /// Bytes per element.
    const BYTES: usize;
    /// The name used in labels (`f64`).
    const NAME: &'static str;
    /// Converts from f64.
    fn from_f64(v: f64) -> Self;
    /// Not-a-number, to mark elements not yet written.
    const NAN: Self;
}

impl Element for f64 {
    const BYTES: usize = 8;
    const NAME: &'static str = "f64";
    const NAN: f64 = f64::NAN;
    fn from_f64(v: f64) -> f64 {
        v
    }
}

impl Element for f32 {
    const BYTES: usize = 4;
    const NAME: &'static str = "f32";
    const NAN: f32 = f32::NAN;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

/// The operations of Table I.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// `A = B * C`: one vector instruction, one flop per element.
    Dyadic,
    /// `A = D * B + C`, all vectors: two chained instructions, two flops per element.
    Triad,
    /// `A = s * B + C`, the Cyber 205 triad (and STREAM's): two flops per element.
    ScalarTriad,
    /// `A = B * C` kept from vectorising: scalar code.
    Scalar,
}

impl Operation {
    /// All four, in Table I's order.
    pub const ALL: [Operation; 4] = [
        Operation::Dyadic,
        Operation::Triad,
        Operation::ScalarTriad,
        Operation::Scalar,
    ];

    /// Its name in labels.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Dyadic => "dyadic",
            Operation::Triad => "triad",
            Operation::ScalarTriad => "scalar-triad",
            Operation::Scalar => "scalar",
        }
    }

    /// The statement, as in Table I.
    pub fn statement(self) -> &'static str {
        match self {
            Operation::Dyadic => "A = B*C",
            Operation::Triad => "A = D*B + C",
            Operation::ScalarTriad => "A = s*B + C",
            Operation::Scalar => "A = B*C (scalar)",
        }
    }

    /// Flops per element.
    pub fn flop_per_element(self) -> usize {
        match self {
            Operation::Dyadic | Operation::Scalar => 1,
            Operation::Triad | Operation::ScalarTriad => 2,
        }
    }

    /// Vector instructions per element step: the time is divided by this so that
    /// it is the time per vector operation (Hockney 3.1: "in the case of triadic
    /// operations TMIN is divided by two").
    pub fn vector_instructions(self) -> usize {
        self.flop_per_element()
    }

    /// Arrays touched (read or written) per element.
    pub fn arrays(self) -> usize {
        match self {
            Operation::Triad => 4,
            _ => 3,
        }
    }
}

/// The environment variable that forces the vector kernels' SIMD level
/// ([`Simd::chosen`]).
pub const SIMD_ENV: &str = "HALFPERF_SIMD";

/// The SIMD level a batch is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simd {
    /// `avx512f`: 512-bit vectors.
    Avx512,
    /// `avx2,fma`: 256-bit vectors.
    Avx2,
    /// The target's baseline: 128-bit vectors, SSE2 on x86_64 and NEON on
    /// aarch64 (NEON is part of the aarch64 baseline, so this batch is the
    /// NEON path there).
    Baseline,
}

impl Simd {
    /// The widest level this CPU supports.
    pub fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Simd::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Simd::Avx2;
            }
        }
        Simd::Baseline
    }

    /// The level the vector kernels run: [`Simd::detect`]'s, or the one that
    /// the environment variable [`SIMD_ENV`] names (`avx512`, `avx2` or
    /// `baseline`) where this CPU can run it, so that a run can force the
    /// dispatch to a narrower level (to compare them, or to check that the
    /// card reports what ran). An unknown or unavailable name is an error.
    pub fn chosen() -> Result<Simd, String> {
        let Ok(name) = std::env::var(SIMD_ENV) else {
            return Ok(Simd::detect());
        };
        let simd = match name.as_str() {
            "avx512" => Simd::Avx512,
            "avx2" => Simd::Avx2,
            "baseline" => Simd::Baseline,
            other => {
                return Err(format!(
                    "{SIMD_ENV}={other}: expected avx512, avx2 or baseline"
                ));
            }
        };
        match simd.available() {
            true => Ok(simd),
            false => Err(format!("{SIMD_ENV}={name}: this CPU cannot run it")),
        }
    }

    /// Whether this CPU can run code compiled for the level.
    pub fn available(self) -> bool {
        match self {
            Simd::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Vector register width in bits.
    pub fn width_bits(self) -> u32 {
        match self {
            Simd::Avx512 => 512,
            Simd::Avx2 => 256,
            Simd::Baseline => 128,
        }
    }
}

/// The four vectors and the scalar of one precision.
#[derive(Debug)]
pub struct Vectors<T> {
    /// The result.
    pub a: LineAligned<T>,
    /// First operand.
    pub b: LineAligned<T>,
    /// Second operand.
    pub c: LineAligned<T>,
    /// Third operand (all-vector triad).
    pub d: LineAligned<T>,
    /// The scalar of the scalar triad.
    pub s: T,
}

impl<T: Element> Vectors<T> {
    /// Vectors of length `len`, each on a cache-line boundary, written once here
    /// (first touch by the caller's thread, so pages sit on its NUMA node).
    pub fn new(len: usize) -> Vectors<T> {
        let fill = |f: fn(usize) -> f64| LineAligned::from_fn(len, |i| T::from_f64(f(i)));
        Vectors {
            a: fill(|_| 0.0),
            b: fill(|i| 1.0 + (i % 7) as f64 * 0.25),
            c: fill(|i| 1.5 - (i % 5) as f64 * 0.125),
            d: fill(|i| 0.5 + (i % 3) as f64 * 0.5),
            s: T::from_f64(1.25),
        }
    }

    /// Length of the vectors.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether the vectors are empty.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Whether `a[..n]` holds the result of `op`, exactly (same operations, same
    /// rounding).
    pub fn check(&self, op: Operation, n: usize) -> bool {
        (0..n).all(|i| {
            let want = match op {
                Operation::Dyadic | Operation::Scalar => self.b[i] * self.c[i],
                Operation::Triad => self.d[i] * self.b[i] + self.c[i],
                Operation::ScalarTriad => self.s * self.b[i] + self.c[i],
            };
            self.a[i] == want
        })
    }

    /// Runs `op` on the first `n` elements `reps` times with the code compiled for
    /// `simd`, and returns the level whose code ran: the dispatch's own answer,
    /// which the kernel records in every point (`simd_width_bits`) and the card
    /// prints per kernel and level. Panics if `simd` is not available on this
    /// CPU or `n > len`.
    #[inline(never)]
    pub fn run(&mut self, simd: Simd, op: Operation, n: usize, reps: u64) -> Simd {
        assert!(n <= self.len(), "vector length {n} beyond {}", self.len());
        assert!(simd.available(), "{simd:?} is not available on this CPU");
        match simd {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => {
                // SAFETY: `available()` checked that the CPU has avx512f.
                unsafe { batch_avx512(self, op, n, reps) };
                Simd::Avx512
            }
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => {
                // SAFETY: `available()` checked that the CPU has avx2 and fma.
                unsafe { batch_avx2(self, op, n, reps) };
                Simd::Avx2
            }
            _ => {
                batch_baseline(self, op, n, reps);
                Simd::Baseline
            }
        }
    }
}

/// `a = b * c` over equal-length slices, as the compiler sees fit to vectorise.
#[inline(always)]
fn dyadic<T: Element>(a: &mut [T], b: &[T], c: &[T]) {
    let n = a.len();
    let (b, c) = (&b[..n], &c[..n]);
    for i in 0..n {
        a[i] = b[i] * c[i];
    }
}

#[inline(always)]
fn triad<T: Element>(a: &mut [T], d: &[T], b: &[T], c: &[T]) {
    let n = a.len();
    let (d, b, c) = (&d[..n], &b[..n], &c[..n]);
    for i in 0..n {
        a[i] = d[i] * b[i] + c[i];
    }
}

#[inline(always)]
fn scalar_triad<T: Element>(a: &mut [T], s: T, b: &[T], c: &[T]) {
    let n = a.len();
    let (b, c) = (&b[..n], &c[..n]);
    for i in 0..n {
        a[i] = s * b[i] + c[i];
    }
}

#[inline(always)]
fn scalar_dyadic<T: Element>(a: &mut [T], b: &[T], c: &[T]) {
    let n = a.len().min(b.len()).min(c.len());
    let (pa, pb, pc) = (a.as_mut_ptr(), b.as_ptr(), c.as_ptr());
    for i in 0..n {
        // SAFETY: i < n, which is within all three slices; volatile accesses to
        // valid, aligned, initialised elements of `T: Copy`.
        unsafe {
            let v = std::ptr::read_volatile(pb.add(i)) * std::ptr::read_volatile(pc.add(i));
            std::ptr::write_volatile(pa.add(i), v);
        }
    }
}

#[inline(always)]
fn batch_body<T: Element>(v: &mut Vectors<T>, op: Operation, n: usize, reps: u64) {
    match op {
        Operation::Dyadic => {
            for _ in 0..reps {
                let (a, b, c) = black_box((&mut v.a[..n], &v.b[..n], &v.c[..n]));
                dyadic(a, b, c);
            }
        }
        Operation::Triad => {
            for _ in 0..reps {
                let (a, d, b, c) = black_box((&mut v.a[..n], &v.d[..n], &v.b[..n], &v.c[..n]));
                triad(a, d, b, c);
            }
        }
        Operation::ScalarTriad => {
            for _ in 0..reps {
                let (a, s, b, c) = black_box((&mut v.a[..n], v.s, &v.b[..n], &v.c[..n]));
                scalar_triad(a, s, b, c);
            }
        }
        Operation::Scalar => {
            for _ in 0..reps {
                let (a, b, c) = black_box((&mut v.a[..n], &v.b[..n], &v.c[..n]));
                scalar_dyadic(a, b, c);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn batch_avx512<T: Element>(v: &mut Vectors<T>, op: Operation, n: usize, reps: u64) {
    batch_body(v, op, n, reps);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn batch_avx2<T: Element>(v: &mut Vectors<T>, op: Operation, n: usize, reps: u64) {
    batch_body(v, op, n, reps);
}

#[inline(never)]
fn batch_baseline<T: Element>(v: &mut Vectors<T>, op: Operation, n: usize, reps: u64) {
    batch_body(v, op, n, reps);
}

/// `a = b * c` on f64 slices with the code for `simd` (the work of a
/// synchronisation segment), without checking the level on every call.
///
/// # Safety
/// `simd` must be available on this CPU (`simd.available()`, as any level
/// returned by [`Simd::detect`] is).
#[inline]
pub(super) unsafe fn dyadic_f64(simd: Simd, a: &mut [f64], b: &[f64], c: &[f64]) {
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees the CPU has avx512f.
        Simd::Avx512 => unsafe { dyadic_avx512(a, b, c) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees the CPU has avx2 and fma.
        Simd::Avx2 => unsafe { dyadic_avx2(a, b, c) },
        _ => dyadic(a, b, c),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn dyadic_avx512(a: &mut [f64], b: &[f64], c: &[f64]) {
    dyadic(a, b, c);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dyadic_avx2(a: &mut [f64], b: &[f64], c: &[f64]) {
    dyadic(a, b, c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_start_on_cache_lines() {
        for len in [1, 33, 4096] {
            let v = Vectors::<f64>::new(len);
            let w = Vectors::<f32>::new(len);
            for p in [v.a.as_ptr(), v.b.as_ptr(), v.c.as_ptr(), v.d.as_ptr()] {
                assert_eq!(p as usize % 64, 0);
            }
            assert_eq!(w.b.as_ptr() as usize % 64, 0);
            assert_eq!((v.len(), v.b[0], w.c[len - 1]), (len, 1.0, w.c[len - 1]));
        }
    }

    #[test]
    fn every_operation_at_every_level_computes_its_statement() {
        for simd in [Simd::Baseline, Simd::Avx2, Simd::Avx512] {
            if !simd.available() {
                continue;
            }
            for op in Operation::ALL {
                let mut v = Vectors::<f64>::new(1000);
                // The dispatch, forced to each level, says it ran that one.
                assert_eq!(v.run(simd, op, 997, 3), simd);
                assert!(v.check(op, 997), "{simd:?} {op:?}");
                assert_eq!(v.a[998], 0.0, "{simd:?} {op:?} wrote past n");
                let mut w = Vectors::<f32>::new(100);
                w.run(simd, op, 33, 1);
                assert!(w.check(op, 33), "{simd:?} {op:?} f32");
            }
        }
        let mut a = vec![0.0; 10];
        // SAFETY: the level comes from Simd::detect.
        unsafe { dyadic_f64(Simd::detect(), &mut a, &[2.0; 10], &[3.0; 10]) };
        assert_eq!(a, vec![6.0; 10]);
    }

    /// Hockney's Table I, per element of each statement: the flops it names, the
    /// chained vector instructions it issues (section 3.1: a triad chains a
    /// multiply and an add, and its time is halved to one instruction's), and
    /// the arrays it reads or writes (STREAM's count of the bytes moved).
    #[test]
    fn each_operation_counts_its_flops_instructions_and_arrays_as_hockney_does() {
        // (operation, flop, vector instructions, arrays)
        let table = [
            (Operation::Dyadic, 1, 1, 3), // A = B*C: one multiply; B, C in, A out
            (Operation::Triad, 2, 2, 4),  // A = D*B + C: multiply, add; D, B, C in, A out
            (Operation::ScalarTriad, 2, 2, 3), // A = s*B + C: multiply, add; B, C in, A out
            (Operation::Scalar, 1, 1, 3), // A = B*C in scalar code
        ];
        for (op, flop, instructions, arrays) in table {
            assert_eq!(op.flop_per_element(), flop, "{op:?} flop");
            assert_eq!(
                op.vector_instructions(),
                instructions,
                "{op:?} instructions"
            );
            assert_eq!(op.arrays(), arrays, "{op:?} arrays");
        }
    }
}
