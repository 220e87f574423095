//! The result file a `cargo bench` writes: valid against the schema that
//! `halfperf schema` prints, read back by `halfperf card`, and merged bench
//! by bench.

use halfperf::benchfit::fits::{
    PairSite, Samples, barrier_result, copy_result, latency_result, sync_result,
};
use halfperf::benchfit::{self, SOURCE};
use halfperf::control::Placement;
use halfperf::kernels::hockney::Method;
use halfperf::kernels::hockney::sync_bench::{GrainRun, SyncSample, bench_plan};
use std::process::Command;

/// A ping-pong and a synchronisation result from exact synthetic samples.
fn kernels() -> Vec<halfperf::results::KernelResult> {
    let sizes: Vec<Samples> = [8usize, 64, 1024, 16384]
        .iter()
        .map(|&b| (b, 10, vec![2.0 * (150.0 + 0.1 * b as f64); 10]))
        .collect();
    let site = PairSite {
        cpus: vec![0, 1],
        placement: Placement::Pinned,
        distance: None,
    };
    let (short, long) = halfperf::benchfit::fits::sync_grains(Method::SpinBare, true);
    let grains: Vec<GrainRun> = short
        .iter()
        .chain(&long)
        .map(|&s| {
            let sample = |i: usize| SyncSample {
                time_ns: 200.0 + s as f64 / 4.0 + i as f64,
                blocks_per_segment: 0.0,
                preempted_per_s: 0.0,
                serial_flop_per_ns: 2.0,
                pair_ns: Some(100.0),
                syscall_ns: 300.0,
            };
            (s, 10, (0..10).map(sample).collect())
        })
        .collect();
    let topology = halfperf::platform::Topology::detect().expect("topology");
    let plan = bench_plan(&topology, &[0, 1], std::time::Duration::ZERO);
    vec![
        latency_result("mailbox", &site, &sizes, &[100.0; 10]),
        sync_result(Method::SpinBare, &grains, short.len(), &plan, 20.0, &[]),
    ]
}

/// The copy's lines (t = 10 ns + N / 32 B/ns, misaligned 1.5 times the
/// per-byte cost) and a barrier's per-P medians at P = 2 and 4.
fn copy_and_barrier() -> Vec<halfperf::results::KernelResult> {
    let copies = |per_byte: f64| -> Vec<Samples> {
        [1024usize, 4096, 8192, 16384]
            .iter()
            .map(|&b| {
                (
                    b,
                    100,
                    (0..10)
                        .map(|i| 10.0 + per_byte * b as f64 + i as f64 * 0.1)
                        .collect(),
                )
            })
            .collect()
    };
    let per_p: Vec<Samples> = [(2usize, 100.0), (4, 20_000.0)]
        .iter()
        .map(|&(p, t)| (p, 10, (0..10).map(|i| t + i as f64).collect()))
        .collect();
    vec![
        copy_result(
            1,
            &[
                ("line-aligned", copies(1.0 / 32.0)),
                ("16-bytes-past-a-line", copies(1.5 / 32.0)),
            ],
        ),
        barrier_result(
            "comet-barrier-central",
            None,
            &[0, 1],
            Placement::Virtual,
            &per_p,
        ),
    ]
}

#[test]
fn the_bench_file_is_schema_valid_and_reads_as_a_card() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("criterion").join("halfperf.json");
    let mut all = kernels();
    all.extend(copy_and_barrier());
    benchfit::merge_into(&path, "transport", 10, all).expect("written");
    let text = std::fs::read_to_string(&path).expect("the file");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let validator =
        jsonschema::validator_for(&halfperf::results::json_schema()).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let file = halfperf::results::read(&path).expect("read back");
    assert_eq!(file.config["source"], SOURCE);
    assert_eq!(file.kernels.len(), 4);
    assert!(file.machine.logical_cpus >= 1);
    let out = Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .arg("card")
        .arg(&path)
        .output()
        .expect("halfperf card runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let card = String::from_utf8_lossy(&out.stdout);
    // The ping-pong line's start-up (150 ns) and the method's t0 (200 ns).
    assert!(card.contains("150"), "{card}");
    assert!(card.contains("hockney-sync/spin-nohint"), "{card}");
    // The copy's per-byte ratio, 1.5, and the barrier at P = 2.
    assert!(card.contains("t_per_byte_over_aligned 1.50"), "{card}");
    assert!(card.contains("comet-barrier-central P = 2"), "{card}");
    // A second bench adds to the file; the same bench again replaces its own.
    benchfit::merge_into(&path, "hockney_sync", 10, kernels()[1..].to_vec()).expect("merged");
    let file = halfperf::results::read(&path).expect("read back");
    assert_eq!(file.kernels.len(), 4);
    assert_eq!(file.config["benches"]["transport"], 10);
    assert_eq!(file.config["benches"]["hockney_sync"], 10);
}
