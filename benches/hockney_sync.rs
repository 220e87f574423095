//! Hockney's synchronisation methods (Table II): one bench per method and grain
//! (`hockney/hockney-sync/<method>/<grain>`), the time of a dyadic segment of
//! `s` flop split between two pinned CPUs, as the master sees it. Throughput is
//! in flop (elements), so Criterion's rate is the achieved flop/s, which
//! approaches r_inf as s grows past s_1/2.
//!
//! Run with: `cargo bench --bench hockney_sync` (HTML in target/criterion/report).
//! Each Criterion sample is one round of `halfperf run hockney-sync` over its
//! grain (`halfperf::kernels::hockney::sync_bench`): a fresh team, the
//! kernel's batch (calibrated to its batch target, 1 ms quick, 10 ms
//! otherwise, in the grain's first sample) as the kernel's sub-batches whose
//! median the sample keeps with their sleeps per segment (an asleep grain's
//! a segment each), and the kernel's probes (the CPU pair's round trip, the rate of every
//! processor at once, a system call). The grains are four near-zero ones, a
//! short one and four long ones a method (`halfperf::benchfit::fits::sync_grains`,
//! the same on every machine). After the group the bench fits each method by
//! the kernel's own code: `t0` from the near-zero grains' samples that did not
//! sleep (for a blocking method, its grains timed with the waiter kept
//! awake), `t0_asleep` and `t_wake` from its two shortest grains timed again
//! with the waiter made to sleep (`<method>-asleep/<grain>`), `r_inf` from
//! the long grains or the rate probe, `s_1/2 = t0 r_inf`, with bootstrap
//! intervals over the samples;
//! prints them as `halfperf card` does and writes them to
//! target/criterion/halfperf.json.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use halfperf::benchfit::budget::Part;
use halfperf::benchfit::fits::{sync_grains, sync_result};
use halfperf::benchfit::{self, Recorder};
use halfperf::kernels::RunConfig;
use halfperf::kernels::hockney::Method;
use halfperf::kernels::hockney::sync_bench::{ASLEEP, bench_plan, pair_probes, sync_sample};
use halfperf::platform::{Topology, allowed_cpus};

fn methods(c: &mut Criterion) {
    let topo = Topology::detect().expect("topology");
    let allowed = allowed_cpus();
    let cpus = match topo.pairs_by_class(&allowed).last() {
        Some((_, a, b)) => vec![*a, *b],
        None => vec![allowed[0]],
    };
    let mut rec = Recorder::new();
    let clock = rec.clock().clone();
    // The kernel's batch target: a quick pass against a quick run.
    let run = RunConfig {
        quick: benchfit::quick(),
        ..RunConfig::default()
    };
    let plan = bench_plan(&topo, &cpus, run.batch_target(&clock));
    let mut group = c.benchmark_group("hockney/hockney-sync");
    let samples = common::settings(&mut group, Part::Sync);
    let mut measured = Vec::new();
    for method in Method::ALL {
        let (short, long) = sync_grains(method, benchfit::quick());
        // A blocking method's two shortest grains again, asleep.
        let asleep: Vec<usize> = match method.two_regimes() {
            true => short.iter().take(2).map(|&g| g | ASLEEP).collect(),
            false => Vec::new(),
        };
        // The bench's variant and grain of a grain with or without the bit.
        let named = |g: usize| match g & ASLEEP {
            0 => (method.name().to_string(), g),
            _ => (format!("{}-asleep", method.name()), g & !ASLEEP),
        };
        let all: Vec<usize> = short.iter().chain(&long).chain(&asleep).copied().collect();
        for &grain in &all {
            let (variant, flop) = named(grain);
            let id = format!("{variant}/{flop}");
            group.throughput(Throughput::Elements(flop as u64));
            // The grain's batch, calibrated in its first sample (Criterion's
            // warm-up) and kept for the others.
            let mut segments = 0;
            group.bench_with_input(BenchmarkId::new(&variant, flop), &grain, |b, &grain| {
                b.iter_custom(|iters| {
                    rec.time_sync(&id, iters, || {
                        let s = sync_sample(method, &plan, grain, &mut segments, &clock)
                            .expect("a verified sample");
                        (s, segments)
                    })
                })
            });
        }
        let grains: Vec<_> = all
            .iter()
            .map(|&g| {
                let (variant, flop) = named(g);
                let id = format!("{variant}/{flop}");
                (g, rec.reps(&id, samples), rec.sync_samples(&id, samples))
            })
            .collect();
        measured.push((method, short.len(), grains));
    }
    group.finish();
    // The TASKS take no pair probe: the team methods' stand beside their t0.
    let probes = pair_probes(
        measured
            .iter()
            .flat_map(|(_, _, g)| g.iter().map(|g| &g.2[..])),
    );
    let distance = (cpus.len() >= 2)
        .then(|| topo.distance(cpus[0], cpus[1]))
        .flatten();
    let results = measured
        .iter()
        .map(|(method, short, grains)| {
            let mut r = sync_result(
                *method,
                grains,
                *short,
                &plan,
                clock.read_overhead_ns,
                &probes,
            );
            r.distance_class = distance;
            r
        })
        .collect();
    benchfit::finish_group(&mut rec, "hockney_sync", samples, results);
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = methods
}
criterion_main!(benches);
