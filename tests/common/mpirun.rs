//! Starting halfperf under `mpirun` for the MPI tests (`--features mpi`):
//! every `mpirun` runs under `timeout 300`, so that nothing can hang.
//! `HALFPERF_MPI_NP` (default 2) sets the number of processes and
//! `HALFPERF_MPI_ARGS` adds options to every `mpirun`.

use super::cannot_run_here;
use std::path::Path;
use std::process::{Command, Output};

/// The hard limit of every `mpirun`, in seconds.
pub(crate) const TIMEOUT_S: &str = "300";

pub(crate) fn np() -> usize {
    std::env::var("HALFPERF_MPI_NP")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2)
}

pub(crate) fn have_mpirun(test: &str) -> bool {
    let found = Command::new("mpirun")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        cannot_run_here(test, "mpirun is not installed (openmpi-bin)");
    }
    found
}

/// `timeout 300 mpirun -n NP [options] halfperf ARGS`, in `dir`.
pub(crate) fn mpirun_command(dir: &Path, np: usize, args: &[&str]) -> Command {
    let mut cmd = timeout_mpirun(dir, np);
    cmd.arg(env!("CARGO_BIN_EXE_halfperf")).args(args);
    cmd
}

/// `timeout 300 mpirun -n NP [options]`, in `dir`, for the caller to add the
/// program and its arguments.
pub(crate) fn timeout_mpirun(dir: &Path, np: usize) -> Command {
    timeout_mpirun_yielding(dir, np, true)
}

/// [`timeout_mpirun`], saying whether OpenMPI's polling yields when the
/// processes outnumber the CPUs (`mpi_yield_when_idle`).
pub(crate) fn timeout_mpirun_yielding(dir: &Path, np: usize, yielding: bool) -> Command {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut cmd = Command::new("timeout");
    // `-k`: an mpirun wedged after an abort ignores SIGTERM (OpenMPI 4.1),
    // so timeout follows up with SIGKILL.
    cmd.args([
        "-k",
        "10",
        TIMEOUT_S,
        "mpirun",
        "-n",
        &np.to_string(),
        "--bind-to",
        "none",
    ])
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    .current_dir(dir);
    if np > cpus {
        // More processes than CPUs: OpenMPI's own polling must yield too.
        let yields = if yielding { "1" } else { "0" };
        cmd.args(["--oversubscribe", "--mca", "mpi_yield_when_idle", yields]);
    }
    if let Ok(extra) = std::env::var("HALFPERF_MPI_ARGS") {
        cmd.args(extra.split_whitespace());
    }
    cmd
}

pub(crate) fn mpirun(dir: &Path, np: usize, args: &[&str]) -> Output {
    mpirun_command(dir, np, args)
        .output()
        .expect("timeout and mpirun run")
}

pub(crate) fn json(dir: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(name)).expect("the result file");
    serde_json::from_str(&text).expect("the result file parses")
}

pub(crate) fn kernel<'a>(
    doc: &'a serde_json::Value,
    name: &str,
    transport: &str,
) -> &'a serde_json::Value {
    doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kernel"] == name && k["transport"] == transport)
        .unwrap_or_else(|| panic!("no {name}/{transport} in {doc}"))
}

pub(crate) fn min_at(k: &serde_json::Value, size: f64) -> f64 {
    k["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["size_bytes"] == size)
        .and_then(|p| p["one_way_ns"]["min"].as_f64())
        .unwrap_or_else(|| panic!("no point at {size} B in {k}"))
}

/// `halfperf run ARGS --transport mpi --quick --out NAME` under `mpirun -n
/// NP` in `dir`: the run succeeds, and its result file, read back, is
/// returned.
pub(crate) fn run_quick(dir: &Path, np: usize, name: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--transport", "mpi", "--quick", "--out", name]);
    let out = mpirun(dir, np, &all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(dir, name)
}
