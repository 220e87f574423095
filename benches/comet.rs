//! CoMet's barrier kernel as a Criterion bench: the central sense-reversing
//! barrier and the dissemination barrier on each transport, on teams of 2 ranks
//! (pinned) and 4 ranks (virtual processors when the machine has fewer CPUs).
//!
//! Run with: `cargo bench --bench comet` (HTML in target/criterion/report). The
//! reported time is one barrier, after one untimed barrier per sample (the paper
//! discards the first). After the group the bench gives each barrier's median
//! time per P with a bootstrap interval over Criterion's samples, as `halfperf
//! card` prints them, and writes them to target/criterion/halfperf.json. The
//! whole CoMet method runs with `halfperf run comet`.

mod common;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use halfperf::benchfit::fits::barrier_result;
use halfperf::benchfit::{self, Recorder};
use halfperf::control::Placement;
use halfperf::kernels::comet::barrier_time;
use halfperf::platform::allowed_cpus;
use halfperf::team::{Team, TeamSpec};
use halfperf::transport::TransportKind;
use std::time::Duration;

/// The processor counts.
const RANKS: [usize; 2] = [2, 4];

/// Criterion's samples per bench outside the quick mode (Criterion's default).
const SAMPLES: usize = 100;

fn team(ranks: usize) -> Team {
    let cpus = allowed_cpus();
    Team::new(&TeamSpec {
        cpus: cpus[..cpus.len().min(ranks)].to_vec(),
        ranks,
        virtual_ok: true,
        oversubscribe: false,
        wait_timeout: Duration::from_secs(10),
    })
    .expect("a team")
}

fn barriers(c: &mut Criterion) {
    let mut rec = Recorder::new();
    let samples = benchfit::samples(SAMPLES);
    let kinds = [
        ("central", None),
        ("dissemination-mailbox", Some(TransportKind::Mailbox)),
        ("dissemination-channel", Some(TransportKind::Channel)),
    ];
    let mut placement = Placement::Pinned;
    let mut cpus = Vec::new();
    let mut group = c.benchmark_group("comet/comet-barrier");
    group.sample_size(samples);
    for p in RANKS {
        let team = team(p);
        if team.placement() != Placement::Pinned {
            placement = team.placement();
        }
        cpus = allowed_cpus()[..allowed_cpus().len().min(p)].to_vec();
        for (name, transport) in kinds {
            let id = format!("{name}/{p}");
            group.bench_with_input(BenchmarkId::new(name, p), &p, |b, _| {
                b.iter_custom(|iters| {
                    rec.time(&id, iters, |iters| {
                        barrier_time(&team, transport, iters).expect("barrier")
                    })
                })
            });
        }
    }
    group.finish();
    let results = kinds
        .iter()
        .map(|(name, transport)| {
            let per_p: Vec<_> = RANKS
                .iter()
                .map(|&p| {
                    let id = format!("{name}/{p}");
                    (p, rec.reps(&id, samples), rec.samples(&id, samples))
                })
                .collect();
            let kernel = match transport {
                None => "comet-barrier-central",
                Some(_) => "comet-barrier-dissemination",
            };
            barrier_result(
                kernel,
                transport.map(|t| t.name()),
                &cpus,
                placement,
                &per_p,
            )
        })
        .collect();
    benchfit::finish_group(&mut rec, "comet", samples, results);
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = barriers
}
criterion_main!(benches);
