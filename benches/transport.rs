//! Ping-pong latency per transport and message size, and the two-atomic-flag
//! baseline on the same CPU pair, so that anyone can check what the mailbox adds.
//!
//! Run with: `cargo bench --bench transport` (HTML in target/criterion/report).
//! Each measurement times round trips on a pinned two-rank team (rank 0 times, as
//! in the `pingpong` kernel); the reported time is one round trip (= 2 x the
//! one-way latency the CLI prints).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use halfperf::kernels::scibench::{atomic_flag_round_trip, round_trip_time};
use halfperf::platform::{Topology, allowed_cpus};
use halfperf::team::{Team, TeamSpec};
use halfperf::transport::TransportKind;
use std::time::Duration;

fn pair_team() -> Team {
    let allowed = allowed_cpus();
    let topo = Topology::detect().expect("topology");
    let cpus = match topo.pairs_by_class(&allowed).last() {
        Some((_, a, b)) => vec![*a, *b],
        None => vec![allowed[0]],
    };
    Team::new(&TeamSpec {
        ranks: 2,
        oversubscribe: cpus.len() < 2,
        virtual_ok: false,
        cpus,
        wait_timeout: Duration::from_secs(10),
    })
    .expect("a two-rank team")
}

fn pingpong(c: &mut Criterion) {
    let team = pair_team();
    let mut group = c.benchmark_group("scibench/pingpong");
    group.bench_function(BenchmarkId::new("atomic-flags", 8), |b| {
        b.iter_custom(|iters| atomic_flag_round_trip(&team, iters).expect("baseline"))
    });
    for transport in TransportKind::ALL {
        for size in [8usize, 64, 1024, 16 * 1024, 64 * 1024] {
            group.throughput(Throughput::Bytes(2 * size as u64));
            group.bench_with_input(
                BenchmarkId::new(transport.name(), size),
                &size,
                |b, &size| {
                    b.iter_custom(|iters| {
                        round_trip_time(&team, transport, size, iters).expect("ping-pong")
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, pingpong);
criterion_main!(benches);
