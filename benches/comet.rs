//! CoMet's barrier kernel as a Criterion bench: the central sense-reversing
//! barrier and the dissemination barrier on each transport, on teams of 2 ranks
//! (pinned) and 4 ranks (virtual processors when the machine has fewer CPUs).
//!
//! Run with: `cargo bench --bench comet` (HTML in target/criterion/report). The
//! reported time is one barrier, after one untimed barrier per sample (the paper
//! discards the first). The whole CoMet method runs with `halfperf run comet`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
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
    let mut group = c.benchmark_group("comet/comet-barrier");
    for p in [2usize, 4] {
        let team = team(p);
        let kinds = [
            ("central", None),
            ("dissemination-mailbox", Some(TransportKind::Mailbox)),
            ("dissemination-channel", Some(TransportKind::Channel)),
        ];
        for (name, transport) in kinds {
            group.bench_with_input(BenchmarkId::new(name, p), &p, |b, _| {
                b.iter_custom(|iters| barrier_time(&team, transport, iters).expect("barrier"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, barriers);
criterion_main!(benches);
