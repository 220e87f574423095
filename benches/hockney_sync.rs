//! Hockney's synchronisation methods (Table II): one bench per method and grain
//! (`hockney/hockney-sync/<method>/<grain>`), the time of a dyadic segment of
//! `s` flop split between two pinned CPUs, as the master sees it. Throughput is
//! in flop (elements), so Criterion's rate is the achieved flop/s, which
//! approaches r_inf as s grows past s_1/2.
//!
//! Run with: `cargo bench --bench hockney_sync` (HTML in target/criterion/report).
//! Each measurement runs one verified batch (team or pool set up outside the
//! timing). The grains are three near-zero ones and three long ones per method
//! (`halfperf::benchfit::fits::sync_grains`, the same on every machine); after
//! the group the bench fits eq. (10b) per method as `halfperf run hockney-sync`
//! does (r_inf from the long grains, t0 from the near-zero ones, s_1/2 = t0
//! r_inf, bootstrap intervals over Criterion's samples), prints them as
//! `halfperf card` does and writes them to target/criterion/halfperf.json.

mod common;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use halfperf::benchfit::fits::{sync_grains, sync_result};
use halfperf::benchfit::{self, Recorder};
use halfperf::kernels::hockney::{Method, sync_batch_time};
use halfperf::platform::{Topology, allowed_cpus};
use std::time::Duration;

/// Criterion's samples per bench outside the quick mode.
const SAMPLES: usize = 20;

fn pair() -> Vec<usize> {
    let allowed = allowed_cpus();
    let topo = Topology::detect().expect("topology");
    match topo.pairs_by_class(&allowed).last() {
        Some((_, a, b)) => vec![*a, *b],
        None => vec![allowed[0]],
    }
}

fn methods(c: &mut Criterion) {
    let cpus = pair();
    let mut rec = Recorder::new();
    let samples = benchfit::samples(SAMPLES);
    let mut results = Vec::new();
    let mut group = c.benchmark_group("hockney/hockney-sync");
    group.sample_size(samples);
    common::timing(
        &mut group,
        Duration::from_millis(300),
        Duration::from_secs(2),
    );
    for method in Method::ALL {
        let (short, long) = sync_grains(method);
        let grains: Vec<usize> = short.iter().chain(&long).copied().collect();
        for &grain in &grains {
            let id = format!("{}/{grain}", method.name());
            group.throughput(Throughput::Elements(grain as u64));
            group.bench_with_input(
                BenchmarkId::new(method.name(), grain),
                &grain,
                |b, &grain| {
                    b.iter_custom(|iters| {
                        rec.time(&id, iters, |iters| {
                            sync_batch_time(method, &cpus, grain, iters).expect("a verified batch")
                        })
                    })
                },
            );
        }
        let measured: Vec<_> = grains
            .iter()
            .map(|&g| {
                let id = format!("{}/{g}", method.name());
                (g, rec.reps(&id, samples), rec.samples(&id, samples))
            })
            .collect();
        results.push(sync_result(
            method,
            &measured,
            short.len(),
            &cpus,
            rec.clock().read_overhead_ns,
        ));
    }
    group.finish();
    benchfit::finish_group(&mut rec, "hockney_sync", samples, results);
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = methods
}
criterion_main!(benches);
