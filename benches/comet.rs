//! CoMet's barrier kernel as a Criterion bench: the central sense-reversing
//! barrier and the dissemination barrier on each transport, on teams of P = 2
//! and 4 ranks and the powers of two up to the machine's CPUs and their count
//! (`halfperf::benchfit::fits::barrier_processors`); a team of more ranks than
//! CPUs runs as virtual processors, and its points and printed rows say so.
//!
//! Run with: `cargo bench --bench comet` (HTML in target/criterion/report). The
//! reported time is one barrier, after one untimed barrier per sample (the paper
//! discards the first). After the group the bench prints each barrier's
//! median time per P with a bootstrap interval over Criterion's samples (and
//! the card's row, the largest team of real processors) and writes them to
//! target/criterion/halfperf.json. The whole CoMet method runs with `halfperf
//! run comet`.

mod common;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use halfperf::benchfit::budget::Part;
use halfperf::benchfit::fits::{barrier_processors, barrier_result};
use halfperf::benchfit::{self, Recorder};
use halfperf::control::Placement;
use halfperf::kernels::comet::barrier_time;
use halfperf::platform::allowed_cpus;
use halfperf::team::{Team, TeamSpec};
use halfperf::transport::TransportKind;
use std::time::Duration;

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
    let kinds = [
        ("central", None),
        ("dissemination-mailbox", Some(TransportKind::Mailbox)),
        ("dissemination-channel", Some(TransportKind::Channel)),
    ];
    let mut placement = Placement::Pinned;
    let mut cpus = Vec::new();
    let ranks = barrier_processors(allowed_cpus().len());
    let mut group = c.benchmark_group("comet/comet-barrier");
    let samples = common::settings(&mut group, Part::Barriers);
    for &p in &ranks {
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
            let per_p: Vec<_> = ranks
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
