//! `halfperf replay SCHEDULE.goal --transport mpi` under `mpirun` (feature
//! `mpi`): the validation set's pipeline at as many ranks as processes, each
//! rank a process, checked end to end (every message received once and
//! checked, the result file's transport, hash and per-rank finish times); and a
//! world whose size is not the schedule's refused with one line, exit 2 and no
//! file.
#![cfg(feature = "mpi")]

mod common;

use common::mpirun::{have_mpirun, json, mpirun, np};
use std::process::Output;
use tempfile::TempDir;

const TEST: &str = "replay_mpi";

/// `mpirun -n NP halfperf replay workloads/pP/pipeline.goal --transport mpi
/// --trials 3 --out r.json` in a fresh directory.
fn replay_pipeline(p: usize) -> (Output, TempDir) {
    let schedule = std::fs::canonicalize(format!("workloads/p{p}/pipeline.goal"))
        .expect("the validation set has this rank count");
    let dir = tempfile::tempdir().expect("temp dir");
    let args = [
        "replay",
        schedule.to_str().expect("utf-8 path"),
        "--transport",
        "mpi",
        "--trials",
        "3",
        "--out",
        "r.json",
    ];
    let out = mpirun(dir.path(), np(), &args);
    (out, dir)
}

#[test]
fn pipeline_replays_over_mpi_with_the_thread_replays_checks() {
    if !have_mpirun(TEST) {
        return;
    }
    let n = np();
    let (out, dir) = replay_pipeline(n);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mpirun failed: {err}");
    assert!(err.contains("over mpi"), "{err}");
    let doc = json(dir.path(), "r.json");
    assert_eq!(doc["config"]["transports"][0], "mpi");
    assert_eq!(doc["config"]["num_ranks"], n as u64);
    let hash = doc["config"]["schedule_hash"].as_str().expect("a hash");
    assert_eq!(hash.len(), 32, "{hash}");
    let k = &doc["kernels"][0];
    assert_eq!(k["kernel"], "replay");
    assert_eq!(k["transport"], "mpi");
    // One point for the schedule, one a rank.
    let points = k["points"].as_array().expect("points");
    assert_eq!(points.len(), 1 + n, "{points:?}");
    let warnings = k["warnings"].to_string();
    assert!(
        warnings.contains("each received once and checked"),
        "{warnings}"
    );
}

#[test]
fn a_world_of_the_wrong_size_is_refused_in_one_line() {
    if !have_mpirun(TEST) {
        return;
    }
    let n = np();
    let other = if n == 2 { 4 } else { 2 };
    let (out, dir) = replay_pipeline(other);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("halfperf: error:"))
        .unwrap_or_else(|| panic!("no error line in {err}"));
    assert!(
        line.contains(&format!("{other} ranks need as many MPI processes")),
        "{line}"
    );
    assert!(!dir.path().join("r.json").exists());
}
