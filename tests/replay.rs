//! `replay`: GOAL schedules run on pinned ranks, verified end to end (every
//! message received once, in order per tag, its length and payload checked), the
//! validation set in `workloads/`, and the refusals: a deadlock ends at the
//! deadline naming the rank and the operation, a bad file is one line and exit
//! 2, more ranks than CPUs need `--oversubscribe`.

mod common;

use common::{assert_refused, cannot_run_here, halfperf, measuring};
use halfperf::control::Placement;
use halfperf::model::goal::{self, OpKind, Schedule};
use halfperf::transport::TransportKind;
use halfperf::workload::replay::{ReplayConfig, ReplayError, replay};
use halfperf::workload::replay_schedules::{RANK_COUNTS, validation_set};
use std::path::Path;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Two allowed CPUs, or `None` after saying why the test cannot run.
fn two_cpus(test: &str) -> Option<Vec<usize>> {
    let cpus: Vec<usize> = halfperf::platform::allowed_cpus()
        .into_iter()
        .take(2)
        .collect();
    if cpus.len() < 2 {
        cannot_run_here(test, "fewer than two CPUs are allowed");
        return None;
    }
    Some(cpus)
}

fn config(transport: TransportKind, cpus: Vec<usize>, trials: usize) -> ReplayConfig {
    ReplayConfig {
        trials,
        deadline: Duration::from_secs(10),
        ..ReplayConfig::new(transport, cpus)
    }
}

/// Receives, and payload bytes past the 8-byte header, of a schedule (a
/// `//@ sync` meeting's receives carry nothing in the replay).
fn receives(s: &Schedule) -> (u64, u64) {
    let mut n = 0;
    let mut checked = 0;
    for op in s
        .ranks
        .iter()
        .flat_map(|r| &r.ops)
        .filter(|o| o.sync.is_none())
    {
        if let OpKind::Recv { bytes, .. } = op.kind {
            n += 1;
            checked += bytes.max(8) - 8;
        }
    }
    (n, checked)
}

/// The committed set is what the generator writes (regenerate with
/// HALFPERF_WRITE_WORKLOADS=1), and every file reads and passes the checks.
#[test]
fn workloads() {
    let write = std::env::var("HALFPERF_WRITE_WORKLOADS").is_ok_and(|v| v == "1");
    for p in RANK_COUNTS {
        let dir = Path::new(ROOT).join(format!("workloads/p{p}"));
        if write {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let set = validation_set(p);
        assert_eq!(set.len(), 8);
        for w in set {
            let path = dir.join(format!("{}.goal", w.name));
            if write {
                std::fs::write(&path, &w.text).unwrap();
            }
            let committed = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                committed,
                w.text,
                "{} is stale: regenerate it",
                path.display()
            );
            assert!(
                committed.starts_with("// "),
                "{}: no header",
                path.display()
            );
            let s = goal::read(&path).unwrap();
            assert_eq!(s.num_ranks, p);
            goal::check(&s).unwrap_or_else(|e| panic!("{e}"));
            let ops = s.ranks.iter().flat_map(|r| &r.ops);
            let marked = ops.filter(|o| o.sync.is_some()).count();
            assert!(
                receives(&s).0 > 0 || marked > 0,
                "{}: no messages",
                path.display()
            );
            assert_eq!(w.name == "bsp-sync", !s.meetings.is_empty(), "{}", w.name);
        }
    }
}

/// Every schedule of the set at P = 2 replays over both transports with every
/// message received once and checked, and takes at least the work it asks for.
#[test]
fn the_p2_set_replays_with_every_message_checked() {
    let Some(cpus) = two_cpus("the_p2_set_replays_with_every_message_checked") else {
        return;
    };
    let _turn = measuring();
    for w in validation_set(2) {
        let s = goal::parse(&w.text, w.name).unwrap();
        let (messages, checked) = receives(&s);
        // The busiest rank's work, a floor under its finish time: calibrated
        // work never runs much faster than asked.
        let work: Vec<u64> = s
            .ranks
            .iter()
            .map(|r| {
                r.ops
                    .iter()
                    .map(|op| match op.kind {
                        OpKind::Calc { ns } => ns,
                        _ => 0,
                    })
                    .sum()
            })
            .collect();
        for t in TransportKind::ALL {
            let o = replay(&s, &config(t, cpus.clone(), 3)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(o.messages_per_trial, messages, "{} {t}", w.name);
            assert_eq!(o.payload_bytes_checked, checked, "{} {t}", w.name);
            assert_eq!(o.placement, Placement::Pinned);
            assert_eq!(o.hash, s.hash);
            assert_eq!(o.trials.len(), 3);
            for trial in &o.trials {
                assert_eq!(trial.finish_ns.len(), 2);
                // Rank 0's time spans its own finish.
                assert!(
                    trial.time_ns >= trial.finish_ns[0],
                    "{} {t}: {trial:?}",
                    w.name
                );
                for (r, &f) in trial.finish_ns.iter().enumerate() {
                    assert!(
                        f as f64 >= 0.8 * work[r] as f64,
                        "{} {t}: rank {r} finished in {f} ns, its work is {} ns",
                        w.name,
                        work[r]
                    );
                }
            }
            assert!(o.summary.min_ns <= o.summary.median_ns);
            assert!(o.summary.median_ns <= o.summary.max_ns);
        }
    }
}

/// The warm-up turns every lane's ring (and channel buffers) over once
/// before the timed trials, so that they write lines the receiver read
/// before (as a program in a loop and the ping-pong do). Buffered for 4 KiB:
/// 64 slots. A 4 KiB broadcast sends 2 messages a trial from rank 0 to 1
/// (`go`, the data), 32 trials for 64 slots, and 1 back (`done`), 64 trials:
/// 1 + 64 = 65. With 63 messages of 8 B each way (64 a lane with `go` and
/// `done`), one trial turns every lane over: 1 + 1. An 8 KiB exchange (64
/// slots): 2 messages each way, 1 + 32. A replay runs the warm-up it asks for
/// (within its time budget) and counts its messages into the check.
#[test]
fn the_warm_up_turns_every_lane_over_once() {
    use halfperf::transport::TransportConfig;
    use halfperf::workload::replay::warmup_trials;
    let bcast = "num_ranks 2
rank 0 {
a: send 4096b to 1 tag 0
}
rank 1 {
a: recv 4096b from 0 tag 0
}
";
    let s = goal::parse(bcast, "bcast.goal").unwrap();
    let buffered = TransportConfig::buffered(4096);
    assert_eq!((buffered.slots, buffered.slot_bytes), (64, 2048));
    assert_eq!(warmup_trials(&s, &buffered), 65);
    let mut many = String::from("num_ranks 2\n");
    for (me, peer) in [(0, 1), (1, 0)] {
        many.push_str(&format!("rank {me} {{\n"));
        for i in 0..63 {
            many.push_str(&format!(
                "s{i}: send 8b to {peer} tag 0\nr{i}: recv 8b from {peer} tag 0\n"
            ));
        }
        many.push_str("}\n");
    }
    let m = goal::parse(&many, "many.goal").unwrap();
    assert_eq!(warmup_trials(&m, &TransportConfig::buffered(8)), 2);
    let exchange = "num_ranks 2\nrank 0 {\na: send 8192b to 1 tag 0\nb: recv 8192b from 1 tag 0\n}\n\
        rank 1 {\na: send 8192b to 0 tag 0\nb: recv 8192b from 0 tag 0\n}\n";
    let x = goal::parse(exchange, "exchange.goal").unwrap();
    assert_eq!(TransportConfig::buffered(8192).slots, 64);
    assert_eq!(warmup_trials(&x, &TransportConfig::buffered(8192)), 33);
    let Some(cpus) = two_cpus("the_warm_up_turns_every_lane_over_once") else {
        return;
    };
    let _turn = measuring();
    for t in TransportKind::ALL {
        let o = replay(&s, &config(t, cpus.clone(), 4)).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            (1..=65).contains(&o.warmup_trials),
            "{t}: {}",
            o.warmup_trials
        );
        assert_eq!(o.trials.len(), 4);
    }
}

/// Messages that arrive before their receive is posted, tags out of order and
/// several messages on one tag: matched per (source, tag) in the order posted.
#[test]
fn out_of_order_tags_match_in_order_per_tag() {
    let Some(cpus) = two_cpus("out_of_order_tags_match_in_order_per_tag") else {
        return;
    };
    let text = "num_ranks 2\n\
        rank 0 {\n a: send 100b to 1 tag 1\n b: send 3000b to 1 tag 0\n c: send 5b to 1 tag 1\n d: send 16b to 1 tag 0\n b requires a\n c requires b\n d requires c\n}\n\
        rank 1 {\n w: calc 20000\n x: recv 3000b from 0 tag 0\n y: recv 16b from 0 tag 0\n z: recv 100b from 0 tag 1\n v: recv 5b from 0 tag 1\n x requires w\n y requires x\n z requires y\n v requires z\n}\n";
    let s = goal::parse(text, "tags.goal").unwrap();
    goal::check(&s).unwrap();
    let _turn = measuring();
    for t in TransportKind::ALL {
        let o = replay(&s, &config(t, cpus.clone(), 5)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.messages_per_trial, 4);
        assert_eq!(o.bytes_per_trial, 3121);
        assert_eq!(o.payload_bytes_checked, 92 + 2992 + 8);
    }
}

/// A message longer than its receive is caught, naming the rank's operation.
#[test]
fn a_message_of_the_wrong_length_is_caught() {
    let Some(cpus) = two_cpus("a_message_of_the_wrong_length_is_caught") else {
        return;
    };
    let text = "num_ranks 2\nrank 0 {\n a: send 64b to 1 tag 3\n}\nrank 1 {\n b: recv 32b from 0 tag 3\n}\n";
    let s = goal::parse(text, "len.goal").unwrap();
    let _turn = measuring();
    let err = replay(&s, &config(TransportKind::Mailbox, cpus, 2)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("rank 1")
            && text.contains("`b: recv 32b from 0 tag 3`")
            && text.contains("64 bytes"),
        "{text}"
    );
}

const DEADLOCK: &str = "num_ranks 2\n\
    rank 0 {\n a: recv 8b from 1 tag 0\n b: send 8b to 1 tag 0\n b requires a\n}\n\
    rank 1 {\n a: recv 8b from 0 tag 0\n b: send 8b to 0 tag 0\n b requires a\n}\n";

/// Both ranks receive before they send: the replay ends at the deadline with
/// an error naming a rank and the receive it waits at, never a hang.
#[test]
fn a_deadlock_ends_at_the_deadline_naming_rank_and_operation() {
    let Some(cpus) = two_cpus("a_deadlock_ends_at_the_deadline_naming_rank_and_operation") else {
        return;
    };
    let s = goal::parse(DEADLOCK, "deadlock.goal").unwrap();
    let _turn = measuring();
    for t in TransportKind::ALL {
        let started = Instant::now();
        let err = replay(
            &s,
            &ReplayConfig {
                deadline: Duration::from_millis(500),
                ..config(t, cpus.clone(), 2)
            },
        )
        .unwrap_err();
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(500), "{took:?}");
        assert!(took < Duration::from_secs(8), "{took:?}");
        let text = err.to_string();
        assert!(matches!(err, ReplayError::Team { .. }), "{text}");
        assert!(
            text.contains("deadlock.goal")
                && (text.contains("rank 0") || text.contains("rank 1"))
                && text.contains("recv 8b from")
                && text.contains("(line ")
                && text.contains("deadline"),
            "{text}"
        );
    }
}

/// Two ranks on one CPU: refused unless oversubscription is asked for, then
/// labelled, and still every message checked.
#[test]
fn more_ranks_than_cpus_need_oversubscribe() {
    let cpu = halfperf::platform::allowed_cpus()[0];
    let s = goal::parse(&validation_set(2)[0].text, "bcast").unwrap();
    let err = replay(&s, &config(TransportKind::Mailbox, vec![cpu], 2)).unwrap_err();
    assert!(err.to_string().contains("--oversubscribe"), "{err}");
    let _turn = measuring();
    for t in TransportKind::ALL {
        let o = replay(
            &s,
            &ReplayConfig {
                oversubscribe: true,
                ..config(t, vec![cpu], 2)
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.placement, Placement::Oversubscribed);
        assert_eq!(o.hosts, vec![cpu, cpu]);
        assert_eq!(o.messages_per_trial, 1);
        assert!(
            o.kernel_result()
                .warnings
                .iter()
                .any(|w| w.contains("oversubscribed"))
        );
    }
}

/// The command line: a result file that validates against the schema and names
/// the schedule's hash; bad input is one line, exit 2, nothing written.
#[test]
fn the_command_writes_a_valid_result_and_refuses_bad_input() {
    let Some(cpus) = two_cpus("the_command_writes_a_valid_result_and_refuses_bad_input") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("bad.goal"),
        "num_ranks 2\nrank 0 {\n l1: fly 8b to 1\n}\n",
    )
    .unwrap();
    assert_refused(d, &["replay", "bad.goal", "--out", "r.json"], "bad.goal:3");
    assert_refused(
        d,
        &["replay", "missing.goal", "--out", "r.json"],
        "missing.goal",
    );
    let bcast = Path::new(ROOT).join("workloads/p4/binomial-bcast.goal");
    let one = cpus[0].to_string();
    let bcast = bcast.to_str().unwrap();
    assert_refused(
        d,
        &["replay", bcast, "--cpus", &one, "--out", "r.json"],
        "--oversubscribe",
    );
    // Without the `mpi` feature, --transport mpi says how to build it.
    #[cfg(not(feature = "mpi"))]
    assert_refused(
        d,
        &["replay", bcast, "--transport", "mpi", "--out", "r.json"],
        "--features mpi",
    );
    std::fs::write(d.join("deadlock.goal"), DEADLOCK).unwrap();
    let _turn = measuring();
    assert_refused(
        d,
        &[
            "replay",
            "deadlock.goal",
            "--deadline-ms",
            "300",
            "--out",
            "r.json",
        ],
        "rank",
    );
    let pipeline = Path::new(ROOT).join("workloads/p2/pipeline.goal");
    let out = halfperf(
        d,
        &[
            "replay",
            pipeline.to_str().unwrap(),
            "--trials",
            "3",
            "--transport",
            "all",
            "--out",
            "r.json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(d.join("r.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("results/schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&doc),
        "the replay's result file is not schema-valid"
    );
    let s = goal::read(&pipeline).unwrap();
    assert_eq!(doc["config"]["schedule_hash"], s.hash.as_str());
    let file = halfperf::results::read(&d.join("r.json")).unwrap();
    assert_eq!(file.kernels.len(), 2);
    for k in &file.kernels {
        assert_eq!(k.kernel, "replay");
        assert_eq!(k.ranks, 2);
        assert_eq!(k.placement, Placement::Pinned);
        // The whole schedule's point and one per rank.
        assert_eq!(k.points.len(), 3);
        assert!(
            k.headline
                .iter()
                .any(|p| p.name == "time_ns" && p.value > 0.0)
        );
    }
}

/// A `//@ vector` calc runs its loop (checked element by element in the
/// warm-up), not the plain reading's 1 ns: a million-element triad from
/// memory takes far longer than that, and the calibrated work is not asked.
#[test]
fn a_vector_calc_runs_its_operation() {
    let Some(cpus) = two_cpus("a_vector_calc_runs_its_operation") else {
        return;
    };
    let text = "num_ranks 2\n\
        rank 0 {\n a: calc 1 //@ vector triad-f64 memory 2000000\n b: send 8b to 1 tag 0\n b requires a\n}\n\
        rank 1 {\n c: calc 1 //@ vector scalar-f32 L1 512\n d: recv 8b from 0 tag 0\n\
         e: calc 1 //@ vector dyadic-f64 L2 8192\n e requires d\n}\n";
    let s = goal::parse(text, "vector.goal").unwrap();
    goal::check(&s).unwrap();
    let _turn = measuring();
    let o = replay(&s, &config(TransportKind::Mailbox, cpus, 3)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.calc_asked_ns, 0);
    let fastest = o.trials.iter().map(|t| t.time_ns).min().unwrap();
    // 1e6 elements of four f64 arrays (32 MB) at under 100 GB/s: over 300 us.
    assert!(fastest > 100_000, "{fastest} ns");
}

/// Every `//@ sync` method meets as a barrier on the ranks' threads: in the
/// first meeting rank 1 arrives 1 ms late, in the second rank 0 does, so each
/// rank's finish spans both waits; no meeting sends a message.
#[test]
fn every_sync_method_meets_as_a_barrier() {
    let Some(cpus) = two_cpus("every_sync_method_meets_as_a_barrier") else {
        return;
    };
    let _turn = measuring();
    for m in goal::SYNC_METHODS {
        let text = format!(
            "num_ranks 2\n\
             rank 0 {{\n c: calc 100\n a: recv 0b from 1 tag 1 //@ sync {m}\n b: send 0b to 1 tag 1 //@ sync {m}\n\
             d: calc 1000000\n e: recv 0b from 1 tag 2 //@ sync {m}\n f: send 0b to 1 tag 2 //@ sync {m}\n\
             a requires c\n b requires a\n d requires b\n e requires d\n f requires e\n}}\n\
             rank 1 {{\n c: calc 1000000\n a: send 0b to 0 tag 1 //@ sync {m}\n b: recv 0b from 0 tag 1 //@ sync {m}\n\
             d: calc 100\n e: send 0b to 0 tag 2 //@ sync {m}\n f: recv 0b from 0 tag 2 //@ sync {m}\n\
             a requires c\n b requires a\n d requires b\n e requires d\n f requires e\n}}\n"
        );
        let s = goal::parse(&text, "meet.goal").unwrap();
        goal::check(&s).unwrap();
        assert_eq!(s.meetings.len(), 2);
        let o = replay(&s, &config(TransportKind::Mailbox, cpus.clone(), 3))
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        assert_eq!(o.messages_per_trial, 0, "{m}");
        for t in &o.trials {
            for (r, &f) in t.finish_ns.iter().enumerate() {
                // Two waits of 1 ms each, calibrated work at most a fifth short.
                assert!(f >= 1_600_000, "{m}: rank {r} finished at {f} ns");
            }
        }
    }
}
