//! Hockney's vector operations (Table I), each ending in its `(r_inf, n_1/2)`
//! per memory level, beside the baselines the suite's numbers are checked
//! against: plain triad loops compiled here, separately from the library (for
//! the host's widest SIMD level and for the target's baseline), and a
//! STREAM-style triad over vectors larger than the last cache for the memory
//! bandwidth.
//!
//! Run with: `cargo bench --bench hockney_vector` (HTML in target/criterion/report).
//! Throughput is in elements, so Criterion's rate is elements/s; flop/s is that
//! times the operation's flops per element (1 dyadic, 2 triads). The lengths are
//! `halfperf::benchfit::fits::vector_lengths`: the paper's 16 to 400
//! (`hockney/hockney-vector/triad-f64/256`), then `halfperf run
//! hockney-vector`'s own lengths inside each memory level of the CPU's
//! caches, six a level (three quick), named by level and rank
//! (`triad-f64/L2-1`, `triad-f64/memory-6`) so that two machines' ids line
//! up; after the group the bench fits `hockney-vector`'s lines (Fig. 1's and
//! one per memory level) on the times it measured, prints them as `halfperf
//! card` does, and writes them to target/criterion/halfperf.json. With
//! `HALFPERF_BENCH_QUICK=1` (or `CI=true`): f64 only, fewer lengths (as a
//! quick run, no memory level where the last cache holds 30 MiB or more),
//! the plain loops at two, Criterion's smallest sample. Each part's
//! Criterion settings: `halfperf::benchfit::budget`.

mod common;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use halfperf::benchfit::budget::{Part, plain_lengths};
use halfperf::benchfit::fits::{VectorSite, vector_lengths, vector_result};
use halfperf::benchfit::{self, Recorder};
use halfperf::kernels::hockney::{Element, LineAligned, Operation, Simd, Vectors};
use halfperf::platform::{Topology, allowed_cpus, pin_current_thread};
use halfperf::results::KernelResult;
use std::hint::black_box;
use std::time::Instant;

fn pin() {
    if let Some(cpu) = allowed_cpus().last() {
        let _ = pin_current_thread(*cpu);
    }
}

fn operations<T: Element>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    rec: &mut Recorder,
    site: &VectorSite<'_>,
    out: &mut Vec<KernelResult>,
) -> usize {
    let per_op: Vec<_> = Operation::ALL
        .iter()
        .map(|&op| vector_lengths(site.quick, op.arrays() * T::BYTES, site.caches))
        .collect();
    let longest = per_op
        .iter()
        .flat_map(|at| at.lengths.iter().map(|l| l.0))
        .max()
        .unwrap_or(1);
    let mut v = Vectors::<T>::new(longest);
    let samples = common::settings(group, Part::Vector);
    for (op, at) in Operation::ALL.into_iter().zip(per_op) {
        let variant = format!("{}-{}", op.name(), T::NAME);
        for (n, param) in &at.lengths {
            let n = *n;
            group.throughput(Throughput::Elements(n as u64));
            let id = format!("{variant}/{param}");
            group.bench_with_input(BenchmarkId::new(&variant, param), &n, |b, &n| {
                b.iter_custom(|iters| {
                    rec.time(&id, iters, |iters| {
                        let start = Instant::now();
                        v.run(site.simd, op, n, iters);
                        start.elapsed()
                    })
                })
            });
        }
        let measured = at
            .lengths
            .iter()
            .map(|(n, param)| {
                let id = format!("{variant}/{param}");
                (*n, rec.reps(&id, samples), rec.samples(&id, samples))
            })
            .collect();
        out.push(vector_result(op, T::NAME, T::BYTES, measured, site));
    }
    samples
}

/// The all-vector triad as anyone would write it.
#[inline(always)]
fn triad(a: &mut [f64], d: &[f64], b: &[f64], c: &[f64]) {
    for (((a, d), b), c) in a.iter_mut().zip(d).zip(b).zip(c) {
        *a = d * b + c;
    }
}

/// The scalar (Cyber 205, STREAM) triad as anyone would write it.
#[inline(always)]
fn scalar_triad(a: &mut [f64], s: f64, b: &[f64], c: &[f64]) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = s * b + c;
    }
}

#[inline(never)]
fn plain_baseline(a: &mut [f64], d: &[f64], b: &[f64], c: &[f64], s: f64, all_vector: bool) {
    if all_vector {
        triad(a, d, b, c)
    } else {
        scalar_triad(a, s, b, c)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn plain_avx512(a: &mut [f64], d: &[f64], b: &[f64], c: &[f64], s: f64, all_vector: bool) {
    if all_vector {
        triad(a, d, b, c)
    } else {
        scalar_triad(a, s, b, c)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn plain_avx2(a: &mut [f64], d: &[f64], b: &[f64], c: &[f64], s: f64, all_vector: bool) {
    if all_vector {
        triad(a, d, b, c)
    } else {
        scalar_triad(a, s, b, c)
    }
}

fn plain_loops(group: &mut BenchmarkGroup<'_, WallTime>) {
    let lengths = plain_lengths(benchfit::quick());
    let n_max = *lengths.last().unwrap();
    // On cache lines, as the suite's own vectors are: an allocator's 16-byte
    // alignment splits every 512-bit load across two lines and costs a third of
    // the rate, by the luck of the addresses.
    let (mut a, d, b, cc) = (
        LineAligned::from_fn(n_max, |_| 0.0),
        LineAligned::from_fn(n_max, |_| 0.5),
        LineAligned::from_fn(n_max, |_| 1.5),
        LineAligned::from_fn(n_max, |_| 2.0),
    );
    let simd = Simd::detect();
    common::settings(group, Part::PlainLoops);
    for (name, all_vector) in [("plain-triad-f64", true), ("plain-scalar-triad-f64", false)] {
        for (level, host) in [("host", true), ("baseline", false)] {
            for &n in &lengths {
                group.throughput(Throughput::Elements(n as u64));
                group.bench_with_input(
                    BenchmarkId::new(format!("{name}-{level}"), n),
                    &n,
                    |bch, &n| {
                        bch.iter(|| {
                            let (a, d, b, c) = black_box((&mut a[..n], &d[..n], &b[..n], &cc[..n]));
                            let s = black_box(1.25);
                            match (host, simd) {
                                #[cfg(target_arch = "x86_64")]
                                // SAFETY: Simd::detect found avx512f on this CPU.
                                (true, Simd::Avx512) => unsafe {
                                    plain_avx512(a, d, b, c, s, all_vector)
                                },
                                #[cfg(target_arch = "x86_64")]
                                // SAFETY: Simd::detect found avx2 and fma on this CPU.
                                (true, Simd::Avx2) => unsafe {
                                    plain_avx2(a, d, b, c, s, all_vector)
                                },
                                _ => plain_baseline(a, d, b, c, s, all_vector),
                            }
                        })
                    },
                );
            }
        }
    }
}

/// STREAM's triad `a[j] = b[j] + q * c[j]` over vectors 4 x the last cache (at
/// most 1 GiB in all), counted as STREAM counts it: 24 bytes per element.
fn stream_triad(group: &mut BenchmarkGroup<'_, WallTime>) {
    let topo = Topology::detect().expect("topology");
    let cpu = allowed_cpus().last().copied().unwrap_or(0);
    let last = topo.data_cache_sizes(cpu).last().map_or(32 << 20, |c| c.1);
    let n = ((4 * last).min(1 << 30) / 24) as usize;
    let mut v = Vectors::<f64>::new(n);
    let simd = Simd::detect();
    common::settings(group, Part::Stream);
    group.throughput(Throughput::Bytes(24 * n as u64));
    group.bench_function(BenchmarkId::new("stream-triad-f64", n), |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            v.run(simd, Operation::ScalarTriad, n, iters);
            start.elapsed()
        })
    });
}

fn all(c: &mut Criterion) {
    pin();
    let mut rec = Recorder::new();
    let cpu = allowed_cpus().last().copied().unwrap_or(0);
    let caches = Topology::detect().expect("topology").data_cache_sizes(cpu);
    let site = VectorSite {
        simd: Simd::detect(),
        cpu,
        caches: &caches,
        t0_clock_ns: rec.clock().read_overhead_ns,
        quick: benchfit::quick(),
    };
    let mut results = Vec::new();
    // One group, `hockney/hockney-vector/<variant>/<n>`; each part sets its own
    // timing before its benches.
    let mut group = c.benchmark_group("hockney/hockney-vector");
    let samples = operations::<f64>(&mut group, &mut rec, &site, &mut results);
    if !benchfit::quick() {
        operations::<f32>(&mut group, &mut rec, &site, &mut results);
    }
    plain_loops(&mut group);
    stream_triad(&mut group);
    group.finish();
    benchfit::finish_group(&mut rec, "hockney_vector", samples, results);
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = all
}
criterion_main!(benches);
