//! `hockney-sync` over MPI processes (`--features mpi`): every method of
//! synchronisation between processes (`MPI_Barrier`, `MPI_Allreduce`, the
//! dissemination barrier and the master's start and done messages) fitted
//! as between threads, and the barrier's cost growing with the processes.
//! Each run is started under `mpirun`, always under `timeout 300`.
//!
//! As in `tests/mpi.rs`, the tests assert structure, values and orderings
//! between very different sizes (retried: a loaded machine can stall a
//! batch), never absolute times. `HALFPERF_MPI_NP` (default 2) sets the
//! number of processes of the first test, `HALFPERF_MPI_ARGS` adds options
//! to every `mpirun`.
#![cfg(feature = "mpi")]

mod common;

use common::mpirun::{have_mpirun, kernel, np, run_quick};
use serde_json::Value;

/// The methods over MPI, as the results name them (their transport).
const METHODS: [&str; 4] = [
    "mpi-barrier",
    "mpi-allreduce",
    "mpi-dissemination",
    "mpi-linear",
];

/// How many times a run is repeated until its orderings hold.
const ATTEMPTS: usize = 3;

fn param(k: &Value, name: &str) -> f64 {
    k["fits"][0]["params"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no {name} in {k}"))
}

/// The median time of a segment at each grain, grain order.
fn times(k: &Value) -> Vec<(f64, f64)> {
    k["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["grain_flop"].as_f64().unwrap(),
                p["time_ns"]["median"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Every method gives a result on the world's processes with eq. (10b)
/// fitted: r_inf and t0 positive, every segment's time positive, the longest
/// grain slower than the shortest, and s_1/2 = t0 r_inf.
#[test]
fn hockney_sync_over_mpi_fits_every_method() {
    if !have_mpirun("hockney_sync_over_mpi_fits_every_method") {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let np = np();
    let mut ordered = Vec::new();
    for attempt in 0..ATTEMPTS {
        let name = format!("hs{attempt}.json");
        let doc = run_quick(dir.path(), np, &name, &["hockney-sync"]);
        assert_eq!(doc["incomplete"], false);
        assert_eq!(doc["config"]["transport"], "mpi");
        ordered.clear();
        for m in METHODS {
            let k = kernel(&doc, "hockney-sync", m);
            assert_eq!(k["ranks"], np, "{m}");
            assert_eq!(k["distance_class"], "other_process", "{m}");
            let t = times(k);
            assert!(t.len() >= 4, "{m}: {t:?}");
            assert!(t.iter().all(|&(_, ns)| ns > 0.0), "{m}: {t:?}");
            let (first, last) = (t[0], t[t.len() - 1]);
            assert!(last.0 > first.0, "{m}: grains ascend");
            // A busy machine can stall one grain's rounds so far that no
            // line fits (the result says why): that run is tried again.
            if k["fits"].as_array().unwrap().is_empty() {
                ordered.push((m, false));
                continue;
            }
            let r_inf = param(k, "r_inf_flop_per_s");
            let t0 = param(k, "t0_ns");
            assert!(r_inf > 1e6 && r_inf < 1e13, "{m}: r_inf {r_inf}");
            assert!(t0 > 0.0 && t0 < 1e8, "{m}: t0 {t0}");
            let s_half = param(k, "s_half_flop");
            assert!((s_half / (t0 * r_inf / 1e9) - 1.0).abs() < 1e-6, "{m}");
            ordered.push((m, last.1 > first.1));
        }
        if ordered.iter().all(|&(_, o)| o) {
            break;
        }
    }
    assert!(
        ordered.iter().all(|&(_, o)| o),
        "no run had a fit with the longest grain slower than the shortest: {ordered:?}"
    );
}

/// A barrier between three processes costs more than between two: MPI's
/// and the dissemination barrier's t0 grow from P = 2 (three processes on
/// this machine's two CPUs share one, and a barrier then waits for a turn
/// of the scheduler, so the ordering holds by far).
#[test]
fn the_barriers_cost_grows_with_the_processes() {
    if !have_mpirun("the_barriers_cost_grows_with_the_processes") {
        return;
    }
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for attempt in 0..ATTEMPTS {
        seen.clear();
        let two = run_quick(
            dir.path(),
            2,
            &format!("p2-{attempt}.json"),
            &["hockney-sync"],
        );
        let three = run_quick(
            dir.path(),
            3,
            &format!("p3-{attempt}.json"),
            &["hockney-sync"],
        );
        for method in ["mpi-barrier", "mpi-dissemination"] {
            // No fit (a stalled grain on a busy machine): NaN, tried again.
            let t0 = |doc: &Value| {
                kernel(doc, "hockney-sync", method)["fits"][0]["params"]["t0_ns"]
                    .as_f64()
                    .unwrap_or(f64::NAN)
            };
            seen.push((method, t0(&two), t0(&three)));
        }
        if seen.iter().all(|&(_, two, three)| three > two) {
            return;
        }
    }
    panic!("t0 at P = 3 never exceeded t0 at P = 2: {seen:?}");
}

/// `halfperf list` says hockney-sync runs over MPI.
#[test]
fn the_list_says_hockney_sync_runs_over_mpi() {
    let dir = tempfile::tempdir().unwrap();
    let list = common::halfperf(dir.path(), &["list"]);
    let text = String::from_utf8_lossy(&list.stdout);
    let line = text
        .lines()
        .skip_while(|l| !l.starts_with("hockney-sync "))
        .nth(1);
    assert!(line.is_some_and(|l| l.contains("runs over MPI")), "{text}");
}
