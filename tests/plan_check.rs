//! The plan's estimate against measured quick runs: the run's fixed costs
//! (preheat, clock, idle samples) are in its total, and the quick run the
//! lead timed on an idle 2-vCPU VM (`run --quick decomposition hockney-sync
//! pingpong oneway`, 9.7 s wall) is planned within 25 % of that.

use halfperf::kernels::plan::{self, Shape};
use halfperf::kernels::{RunConfig, find};
use halfperf::platform::{ClockInfo, Topology};
use std::path::Path;

mod common;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A clock of 25 ns a read, as the 2-vCPU VMs measure.
fn clock() -> ClockInfo {
    ClockInfo {
        source: "test".into(),
        read_overhead_ns: 25.0,
        resolution_ns: 20.0,
    }
}

#[test]
fn the_quick_run_timed_on_an_idle_two_cpu_vm_is_planned_within_a_quarter() {
    let topo = Topology::read_from(&Path::new(ROOT).join("tests/data/sys-2pkg-2core-smt")).unwrap();
    let kernels: Vec<_> = ["decomposition", "hockney-sync", "pingpong", "oneway"]
        .iter()
        .map(|k| find(k).unwrap())
        .collect();
    let config = RunConfig {
        quick: true,
        preheat_ms: Some(200.0),
        ..RunConfig::default()
    };
    let clock = clock();
    let shape = Shape {
        topology: &topo,
        cpus: &[0, 1],
        config: &config,
        clock: &clock,
    };
    let p = plan::plan(&kernels, &shape, None).unwrap();
    let measured = 9.7;
    let ratio = measured / p.total_s;
    assert!((0.75..=1.25).contains(&ratio), "plan {} s", p.total_s);
    // The fixed costs, by hand: 200 ms of preheat; the clock measured twice,
    // 300,000 reads of 25 ns each (15 ms); one idle sample of 100 ms for
    // 9.8 s of kernels (a sample serves 10 s).
    let fixed: Vec<(&str, f64)> = p.fixed.iter().map(|f| (f.what, f.seconds)).collect();
    let want = [0.2, 0.015, 0.1];
    assert_eq!(fixed.len(), 3);
    for ((what, got), want) in fixed.iter().zip(want) {
        assert!((got - want).abs() < 1e-9, "{what}: {got} s, not {want}");
    }
    let kernels_s: f64 = p.kernels.iter().map(|k| k.estimate_s).sum();
    assert!((kernels_s - 9.79).abs() < 1e-9, "{kernels_s}");
    assert!((p.total_s - (9.79 + 0.315)).abs() < 1e-9, "{}", p.total_s);
}

/// `run --plan --json` carries the fixed costs, the preheat asked for
/// among them, and a total that adds them to the kernels'.
#[test]
fn the_printed_plan_adds_the_runs_fixed_costs_to_its_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::halfperf(
        dir.path(),
        &[
            "run",
            "pingpong",
            "oneway",
            "--quick",
            "--plan",
            "--json",
            "--preheat-ms",
            "500",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixed = p["fixed"].as_array().unwrap();
    assert_eq!(fixed[0]["what"], "preheat");
    assert_eq!(fixed[0]["seconds"].as_f64(), Some(0.5));
    let sum = |v: &serde_json::Value, key: &str| -> f64 {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x[key].as_f64().unwrap())
            .sum()
    };
    let total = sum(&p["kernels"], "estimate_s") + sum(&p["fixed"], "seconds");
    assert!((p["total_s"].as_f64().unwrap() - total).abs() < 1e-9);
    assert!(
        common::files_in(dir.path()).is_empty(),
        "--plan wrote a file"
    );
}
