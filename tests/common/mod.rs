//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test file uses its own subset

#[cfg(feature = "mpi")]
pub(crate) mod mpirun;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// Kernels spin on the CPUs they use, so two measuring runs at once would share
/// CPUs between spinners and time the scheduler; the tests of one file that
/// measure take turns.
static MEASURING: Mutex<()> = Mutex::new(());

/// Waits for this test's turn to measure; the turn lasts while the guard lives.
pub(crate) fn measuring() -> MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the halfperf binary in `dir`.
pub(crate) fn halfperf(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("halfperf runs")
}

/// The names of the files in `dir`, sorted.
pub(crate) fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// Asserts exit status 2, exactly one line on stderr containing `needle`, and no
/// new file in `dir`.
pub(crate) fn assert_refused(dir: &Path, args: &[&str], needle: &str) {
    let before = files_in(dir);
    let out = halfperf(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {stderr}"
    );
    assert!(
        stderr.contains(needle),
        "{args:?}: {stderr:?} lacks {needle:?}"
    );
    assert_eq!(files_in(dir), before, "{args:?} wrote a file");
}

/// A test that cannot run on this machine (no `taskset`, fewer than two CPUs):
/// under `CI=true` it fails with `why`, because CI must run every test; elsewhere
/// it says on stderr that `test` was skipped and why, and the caller returns.
/// No test returns early without a line saying so.
pub(crate) fn cannot_run_here(test: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test} cannot run here, and CI=true requires it to: {why}");
    }
    eprintln!("SKIPPED {test}: {why} (under CI=true this fails)");
}
