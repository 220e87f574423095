//! Records the git commit and the compiler version for the result files.

use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit =
        output("git", &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = output("git", &["status", "--porcelain", "--untracked-files=no"]).is_some();
    println!(
        "cargo:rustc-env=HALFPERF_GIT_COMMIT={commit}{}",
        if dirty { "-dirty" } else { "" }
    );
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HALFPERF_RUSTC={version}");
    // Ask git where HEAD, the branch it names and the index live: in a linked
    // worktree `.git` is a file and they are elsewhere, and a path that does not
    // exist would make cargo rebuild the crate on every invocation.
    let mut watched = vec!["HEAD".to_string(), "index".to_string()];
    if let Some(branch) = output("git", &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = output("git", &["rev-parse", "--git-path", &name])
            && std::path::Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    open_mpi_status();
}

/// With `--features mpi`, sets `cfg(halfperf_open_mpi)` when the MPI library
/// the bindings are made from is Open MPI: its compiler wrapper (`$MPICC` or
/// `mpicc`, the one the `mpi-sys` crate asks first) answers `-showme:version`
/// with "Open MPI". The transport then reads a receive's byte count from
/// Open MPI's status struct (`_ucount`) instead of calling `MPI_Get_count`.
fn open_mpi_status() {
    println!("cargo::rustc-check-cfg=cfg(halfperf_open_mpi)");
    println!("cargo:rerun-if-env-changed=MPICC");
    if std::env::var_os("CARGO_FEATURE_MPI").is_none() {
        return;
    }
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    if output(&mpicc, &["-showme:version"]).is_some_and(|v| v.contains("Open MPI")) {
        println!("cargo:rustc-cfg=halfperf_open_mpi");
    }
}
