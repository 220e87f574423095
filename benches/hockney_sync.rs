//! Hockney's synchronisation methods (Table II): one bench per method and grain
//! (`hockney/hockney-sync/<method>/<grain>`), the time
//! of a dyadic segment of `s` flop split between two pinned CPUs, as the master
//! sees it, for a few grains. Throughput is in flop (elements), so Criterion's
//! rate is the achieved flop/s, which approaches r_inf as s grows past s_1/2.
//!
//! Run with: `cargo bench --bench hockney_sync` (HTML in target/criterion/report).
//! Each measurement runs one verified batch (team or pool set up outside the
//! timing). The CLI (`halfperf run hockney-sync`) does the (r_inf, s_1/2) fits.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use halfperf::kernels::hockney::{Method, sync_batch_time};
use halfperf::platform::{Topology, allowed_cpus};
use std::time::Duration;

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
    let mut group = c.benchmark_group("hockney/hockney-sync");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for method in Method::ALL {
        for grain in [64usize, 1024, 16384] {
            group.throughput(Throughput::Elements(grain as u64));
            group.bench_with_input(
                BenchmarkId::new(method.name(), grain),
                &grain,
                |b, &grain| {
                    b.iter_custom(|iters| {
                        sync_batch_time(method, &cpus, grain, iters).expect("a verified batch")
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, methods);
criterion_main!(benches);
