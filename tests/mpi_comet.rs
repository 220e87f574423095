//! CoMet's point-to-point kernels over MPI processes (`--features mpi`): the
//! echo (per pair and per logical hop), the exchange, the echo under
//! contention and the overlap of an exchange with a DAXPY, each started under
//! `mpirun` (always under `timeout 300`, so that nothing can hang).
//!
//! As in `tests/mpi.rs`, the tests assert structure, values and orderings
//! between very different sizes (retried: a loaded machine can stall one
//! batch), never absolute times. `HALFPERF_MPI_NP` (default 2) sets the number
//! of processes, `HALFPERF_MPI_ARGS` adds options to every `mpirun`; the hop
//! sweep is checked with more than two processes, the contention kernel runs
//! with four or more and is refused with fewer.
#![cfg(feature = "mpi")]

mod common;

use common::mpirun::{have_mpirun, kernel, min_at, mpirun, np, run_quick};
use serde_json::Value;
use std::path::Path;

/// How many times a run is repeated until its orderings hold.
const ATTEMPTS: usize = 3;

/// `mpirun -n np halfperf run ARGS --transport mpi --quick --out NAME` in
/// `dir`, asserting success; the result file.
fn run_ok(dir: &Path, np: usize, name: &str, args: &[&str]) -> Value {
    let doc = run_quick(dir, np, name, args);
    assert_eq!(doc["incomplete"], false, "{args:?}");
    assert_eq!(doc["config"]["transport"], "mpi");
    doc
}

/// The points of a result.
fn points(k: &Value) -> &Vec<Value> {
    k["points"].as_array().unwrap()
}

/// The minimum of `quantity` at the point where every `(column, value)` matches.
fn min_where(k: &Value, quantity: &str, at: &[(&str, f64)]) -> f64 {
    points(k)
        .iter()
        .find(|p| at.iter().all(|(c, v)| p[*c] == *v))
        .and_then(|p| p[quantity]["min"].as_f64())
        .unwrap_or_else(|| panic!("no {quantity} at {at:?} in {k}"))
}

/// The fit whose model starts with `model`.
fn fit<'a>(k: &'a Value, model: &str) -> &'a Value {
    k["fits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["model"].as_str().unwrap().starts_with(model))
        .unwrap_or_else(|| panic!("no fit {model} in {k}"))
}

/// A fit's parameter, finite.
fn param(f: &Value, name: &str) -> f64 {
    let v = f["params"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no {name} in {f}"));
    assert!(v.is_finite(), "{name} = {v} in {f}");
    v
}

/// A result of a kernel between ranks 0 and 1 of one node: transport `mpi`,
/// the world's size as its ranks, the pair's distance class.
fn assert_pair(k: &Value, np: usize) {
    assert_eq!(k["ranks"], np, "{k}");
    assert_eq!(k["distance_class"], "other_process", "{k}");
    assert_eq!(k["cpus"].as_array().unwrap().len(), 2, "{k}");
}

/// The echo over MPI: the pair's curve with CoMet's piecewise fits (t_startup,
/// t_per_byte, peak bandwidth, the 50% and 90% sizes), 64 KiB slower than 8 B;
/// with more than two processes the hop sweep over hops 1 to P - 1 with its
/// `(n - 1) h` fit, the longest chain at 64 KiB slower than one hop at 0 B.
#[test]
fn echo_over_mpi_is_fitted_per_pair_and_per_hop() {
    if !have_mpirun("echo_over_mpi_is_fitted_per_pair_and_per_hop") {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let np = np();
    let mut ordered = false;
    for attempt in 0..ATTEMPTS {
        let name = format!("echo{attempt}.json");
        let doc = run_ok(dir.path(), np, &name, &["comet-echo"]);
        let echo = kernel(&doc, "comet-echo", "mpi");
        assert_pair(echo, np);
        assert!(points(echo).len() >= 10, "{echo}");
        assert!(points(echo).iter().all(|p| p["hops"] == 1.0), "{echo}");
        let segment = fit(echo, "t_startup + N t_per_byte, segment 1");
        assert!(param(segment, "t_startup_ns") > 0.0, "{segment}");
        param(segment, "t_per_byte_ns");
        let summary = fit(echo, "piecewise");
        assert!(param(summary, "measured_peak_bandwidth_mb_per_s") > 0.0);
        let half = param(summary, "half_peak_size_bytes");
        let ninety = param(summary, "ninety_percent_size_bytes");
        assert!(0.0 < half && half <= ninety, "{summary}");
        let hops = doc["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kernel"] == "comet-echo-hops");
        let mut hops_ordered = true;
        if np > 2 {
            let hops = hops.unwrap_or_else(|| panic!("no comet-echo-hops with {np} processes"));
            assert_eq!(hops["transport"], "mpi");
            assert_eq!(hops["ranks"], np);
            let mut counts: Vec<u64> = points(hops)
                .iter()
                .map(|p| p["hops"].as_f64().unwrap() as u64)
                .collect();
            counts.dedup();
            assert_eq!(counts, (1..np as u64).collect::<Vec<_>>(), "{hops}");
            let f = fit(hops, "t_startup + N t_per_byte + (n - 1) h");
            param(f, "h_ns");
            param(f, "t_startup_ns");
            let far = (np - 1) as f64;
            hops_ordered = min_where(
                hops,
                "one_way_ns",
                &[("hops", far), ("size_bytes", 65536.0)],
            ) > min_where(hops, "one_way_ns", &[("hops", 1.0), ("size_bytes", 0.0)]);
        } else {
            assert!(hops.is_none(), "a hop sweep with two processes");
        }
        if hops_ordered && min_at(echo, 65536.0) > min_at(echo, 8.0) {
            ordered = true;
            break;
        }
    }
    assert!(
        ordered,
        "64 KiB never took longer than 8 B in {ATTEMPTS} runs"
    );
}

/// The exchange over MPI between ranks 0 and 1 (checked byte by byte before
/// timing, so success means every message arrived whole): a point per size,
/// the piecewise fit, 64 KiB slower than 8 B.
#[test]
fn exchange_over_mpi_between_ranks_0_and_1() {
    if !have_mpirun("exchange_over_mpi_between_ranks_0_and_1") {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let np = np();
    let mut ordered = false;
    for attempt in 0..ATTEMPTS {
        let name = format!("ex{attempt}.json");
        let doc = run_ok(
            dir.path(),
            np,
            &name,
            &["comet-exchange", "--sizes", "8,64,1K,4K,8K,64K"],
        );
        let ex = kernel(&doc, "comet-exchange", "mpi");
        assert_pair(ex, np);
        assert_eq!(points(ex).len(), 6, "{ex}");
        let segment = fit(ex, "t_startup + N t_per_byte, segment 1");
        param(segment, "t_per_byte_ns");
        assert!(param(fit(ex, "piecewise"), "measured_peak_bandwidth_mb_per_s") > 0.0);
        if min_where(ex, "exchange_ns", &[("size_bytes", 65536.0)])
            > min_where(ex, "exchange_ns", &[("size_bytes", 8.0)])
        {
            ordered = true;
            break;
        }
    }
    assert!(
        ordered,
        "64 KiB never took longer than 8 B in {ATTEMPTS} runs"
    );
}

/// The overlap over MPI: per size and vector length a synchronous and an
/// asynchronous time and the gain; an exchange of 64 KiB with a DAXPY of
/// 100,000 slower than 8 B with none, both ways.
#[test]
fn overlap_over_mpi_has_sync_and_async_points() {
    if !have_mpirun("overlap_over_mpi_has_sync_and_async_points") {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let np = np();
    let mut ordered = false;
    for attempt in 0..ATTEMPTS {
        let name = format!("ov{attempt}.json");
        let doc = run_ok(
            dir.path(),
            np,
            &name,
            &["comet-overlap", "--sizes", "8,64K"],
        );
        let ov = kernel(&doc, "comet-overlap", "mpi");
        assert_pair(ov, np);
        assert_eq!(points(ov).len(), 6, "{ov}");
        for p in points(ov) {
            for q in ["sync_ns", "async_ns"] {
                assert!(p[q]["min"].as_f64().unwrap() > 0.0, "{q}: {p}");
            }
            assert!(p["gain_percent"].as_f64().unwrap().is_finite(), "{p}");
        }
        let big = [("size_bytes", 65536.0), ("vector_length", 100_000.0)];
        let small = [("size_bytes", 8.0), ("vector_length", 0.0)];
        if ["sync_ns", "async_ns"]
            .iter()
            .all(|q| min_where(ov, q, &big) > min_where(ov, q, &small))
        {
            ordered = true;
            break;
        }
    }
    assert!(
        ordered,
        "the large point was never slower in {ATTEMPTS} runs"
    );
}

/// The echo under contention needs four processes: with two it is refused on
/// one line, exit status 2, nothing written; with `HALFPERF_MPI_NP` of four or
/// more it runs, the echo between ranks 0 and 1 under no load and under the
/// 50% and 90% loads from rank 2 to rank 3, a line fitted per load.
#[test]
fn contention_over_mpi_needs_four_processes() {
    if !have_mpirun("contention_over_mpi_needs_four_processes") {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "comet-contention",
        "--transport",
        "mpi",
        "--quick",
        "--out",
        "refused.json",
    ];
    let out = mpirun(dir.path(), 2, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("halfperf"))
        .collect();
    assert_eq!(ours.len(), 1, "{stderr}");
    assert!(
        ours[0].contains("comet-contention") && ours[0].contains("at least 4 MPI processes"),
        "{stderr}"
    );
    assert!(common::files_in(dir.path()).is_empty());
    let np = np();
    if np < 4 {
        eprintln!(
            "contention_over_mpi_needs_four_processes: the run itself needs HALFPERF_MPI_NP=4 (checked the refusal with 2)"
        );
        return;
    }
    let doc = run_ok(
        dir.path(),
        np,
        "cont.json",
        &["comet-contention", "--sizes", "8,1K,64K"],
    );
    let c = kernel(&doc, "comet-contention", "mpi");
    assert_eq!(c["ranks"], np, "{c}");
    assert_eq!(c["distance_class"], "other_process", "{c}");
    assert_eq!(points(c).len(), 9, "{c}");
    for (fraction, model) in [(0.0, "0%"), (0.5, "50%"), (0.9, "90%")] {
        let at: Vec<&Value> = points(c)
            .iter()
            .filter(|p| p["load_fraction"] == fraction)
            .collect();
        assert_eq!(at.len(), 3, "{fraction}: {c}");
        let load = at[0]["load_size_bytes"].as_f64().unwrap();
        assert_eq!(load > 0.0, fraction > 0.0, "{fraction}: {c}");
        param(
            fit(c, &format!("t_startup + N t_per_byte under {model} load")),
            "t_per_byte_ns",
        );
    }
}

/// `halfperf list` says the point-to-point kernels run over MPI, the
/// contention kernel with four processes or more.
#[test]
fn the_list_says_the_p2p_kernels_run_over_mpi() {
    let dir = tempfile::tempdir().unwrap();
    let list = common::halfperf(dir.path(), &["list"]);
    let text = String::from_utf8_lossy(&list.stdout);
    for (name, says) in [
        ("comet-echo", "runs over MPI"),
        ("comet-exchange", "runs over MPI"),
        ("comet-overlap", "runs over MPI"),
        ("comet-contention", "runs over MPI with 4 processes or more"),
    ] {
        let line = text
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{name} ")))
            .nth(1);
        assert!(line.is_some_and(|l| l.contains(says)), "{name}: {text}");
    }
}
