//! `run --transport mpi`: the command line's side of a run over MPI processes.
//!
//! Every process of `mpirun` runs the same command: the checks below, then the
//! kernels in lockstep. Rank 0 alone prints and writes the result file; it
//! rewrites the file, marked incomplete, after every kernel, so that a job that
//! `mpirun` ends early (Ctrl-C, a rank that died) leaves the kernels that
//! finished. A rank whose kernel fails prints one line naming the kernel and
//! itself and ends the job (`MPI_Abort`), so that no peer waits for it.

use anyhow::{Result, bail};
use halfperf::kernels::{self, KernelSpec};

/// The first line of every refusal of `--transport mpi` in a build without MPI.
#[cfg(not(feature = "mpi"))]
pub(crate) const NOT_BUILT: &str = "--transport mpi needs a build with MPI: cargo build --release --features mpi (see the README, \"Across nodes: MPI\")";

/// This process's rank as the MPI launcher set it in the environment (before
/// MPI is initialised), if it was started by one.
pub(crate) fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// Writes `line` and a newline to stderr in one `write`: mpirun forwards each
/// rank's output as it comes and puts its own lines between the pieces of one
/// written in several (`eprintln!` writes each argument apart).
pub(crate) fn say(line: &str) {
    use std::io::Write;
    let whole = format!("{line}\n");
    let _ = std::io::stderr().lock().write_all(whole.as_bytes());
}

/// Ends the process on an error that every process of the job meets alike
/// (bad input: the same command line, the same build); the exit status.
///
/// Outside a launcher, or as rank 0, it prints `line` and returns 2. A rank
/// other than 0 says nothing at first and waits ten seconds: rank 0, which met
/// the same error, exits first with 2, and mpirun ends the job on that after
/// forwarding rank 0's line (OpenMPI 4.1 kills the other ranks about a second
/// later). Had a rank other than 0 exited non-zero first, mpirun could have
/// killed rank 0 before its line was forwarded, or put its own lines into it;
/// had it exited 0, a rank 0 that went on would wait in `MPI_Init` for ever.
/// A rank still alive after the wait met the error alone, so it prints the
/// line, naming itself, and returns 2.
pub(crate) fn fail(line: &str) -> std::process::ExitCode {
    match launcher_rank() {
        None | Some(0) => say(line),
        Some(rank) => {
            std::thread::sleep(std::time::Duration::from_secs(10));
            say(&line.replacen("halfperf: ", &format!("halfperf: rank {rank}: "), 1));
        }
    }
    std::process::ExitCode::from(2)
}

/// The options of `run` that make no sense over MPI, and the kernels: those
/// named must all run over MPI; none named means those of the default suite
/// that do.
pub(crate) fn check(
    names: &[String],
    chosen: Vec<&'static KernelSpec>,
    cpus: bool,
    oversubscribe: bool,
) -> Result<Vec<&'static KernelSpec>> {
    if cpus {
        bail!(
            "--cpus does not apply over MPI: each process pins itself to a CPU by its rank on its node; place processes with mpirun (--map-by, a hostfile)"
        );
    }
    if oversubscribe {
        bail!(
            "--oversubscribe does not apply over MPI: give it to mpirun (halfperf sees processes that share a CPU, waits by yielding and labels the results oversubscribed)"
        );
    }
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(chosen
            .into_iter()
            .filter(|k| kernels::runs_over_mpi(k))
            .collect());
    }
    if let Some((k, why)) = chosen
        .iter()
        .find_map(|k| Some((k, kernels::not_over_mpi(k)?)))
    {
        bail!(
            "kernel {} does not run over MPI: {why}; over MPI run: {}",
            k.name,
            kernels::over_mpi_names().join(", ")
        );
    }
    Ok(chosen)
}

#[cfg(feature = "mpi")]
pub(crate) use with_mpi::*;

#[cfg(feature = "mpi")]
mod with_mpi {
    use anyhow::Result;
    use halfperf::kernels::{self, KernelSpec};
    use halfperf::team::mpi::Processes;
    use mpi::traits::{Communicator, CommunicatorCollectives, Root};
    use std::path::Path;
    use std::time::Duration;

    /// Joins the team of processes and has rank 0 check the result file's path
    /// (`check_out`); every rank learns the verdict, so all stop together.
    pub(crate) fn join(
        deadline: Duration,
        cpu_model: Option<String>,
        out: Option<&Path>,
        check_out: impl Fn(&Path) -> Result<()>,
    ) -> Result<Processes> {
        let procs = Processes::init(deadline, cpu_model)?;
        let verdict = match (procs.rank(), out) {
            (0, Some(p)) => check_out(p),
            _ => Ok(()),
        };
        let mut ok = u8::from(verdict.is_ok());
        procs.world().process_at_rank(0).broadcast_into(&mut ok);
        verdict?;
        if ok == 0 {
            anyhow::bail!("rank 0 refused the result file's path");
        }
        Ok(procs)
    }

    /// The named kernels against the world's size: when one cannot run on
    /// this many processes (too few, or a matrix kernel whose grid they do
    /// not form), the run is refused before anything runs, so nothing is
    /// written, and this is rank 0's exit status. Rank 0 prints the reason on one line (in one
    /// write, so that mpirun's own lines cannot split it), then every process
    /// meets it at a barrier, so that none exits before the line is written.
    /// The other ranks then end with status 0: mpirun ends the whole job when
    /// the first process returns non-zero, and a rank other than 0 doing so
    /// could have it end rank 0 before its line was forwarded (1 run in 40
    /// over TCP at two processes lost the line); rank 0's 2 is mpirun's
    /// status. With no kernel named, such a kernel is skipped when its turn
    /// comes, with the reason.
    pub(crate) fn refuse_world(
        names: &[String],
        chosen: &[&halfperf::kernels::KernelSpec],
        procs: Option<&Processes>,
    ) -> Option<std::process::ExitCode> {
        let procs = procs?;
        if names.is_empty() || names.iter().any(|n| n == "all") {
            return None;
        }
        let reason = chosen
            .iter()
            .find_map(|k| halfperf::kernels::over_mpi_refusal(k, procs.size()))?;
        if procs.rank() == 0 {
            super::say(&format!("halfperf: error: {reason}"));
        }
        procs.world().barrier();
        Some(std::process::ExitCode::from(match procs.rank() {
            0 => 2,
            _ => 0,
        }))
    }

    /// The kernels this world of `size` processes can run, when the run
    /// names none (or `all`): those that need more are left out. A kernel
    /// named that needs more is refused by [`refuse_world`].
    pub(crate) fn fit_world(
        names: &[String],
        chosen: Vec<&'static KernelSpec>,
        size: usize,
    ) -> Vec<&'static KernelSpec> {
        if names.is_empty() || names.iter().any(|n| n == "all") {
            let fits = |k: &&KernelSpec| kernels::mpi_processes_needed(k) <= size;
            return chosen.into_iter().filter(fits).collect();
        }
        chosen
    }

    /// The line under the run's header: the processes, their hosts and the
    /// library.
    pub(crate) fn banner(procs: &Processes) -> String {
        let mut hosts: Vec<&str> = procs.members().iter().map(|m| m.host.as_str()).collect();
        hosts.dedup();
        format!(
            "over MPI: {} processes on {} ({}), CPUs {:?}, {}; {}\n\n",
            procs.size(),
            hosts.join(", "),
            if hosts.len() == 1 {
                "one node"
            } else {
                "several nodes"
            },
            procs.cpus(),
            procs.placement(),
            procs
                .library_version()
                .lines()
                .next()
                .unwrap_or("unknown MPI library")
        )
    }

    /// A rank other than 0 at the end of the run: quietly done, or, when its
    /// kernel failed, one line naming the kernel and the rank, then the job ends.
    pub(crate) fn finish_rank(
        procs: &Processes,
        failure: Option<halfperf::kernels::KernelError>,
    ) -> Result<std::process::ExitCode> {
        match failure {
            None => Ok(std::process::ExitCode::SUCCESS),
            Some(halfperf::kernels::KernelError::Interrupted) => {
                Ok(std::process::ExitCode::from(130))
            }
            Some(e) => abort(procs, &e.to_string()),
        }
    }

    /// Prints `error` on one line and ends every process of the job, exit
    /// status 2: no rank waits for one that failed.
    pub(crate) fn abort(procs: &Processes, error: &str) -> ! {
        super::say(&format!("halfperf: error: {error}"));
        procs.abort(2)
    }

    /// What the result file records of the team: the MPI library, the placement
    /// and every rank's host, CPU model and CPU.
    pub(crate) fn describe(procs: &Processes) -> serde_json::Value {
        serde_json::json!({
            "library_version": procs.library_version(),
            "placement": procs.placement(),
            "processes": procs.members(),
        })
    }
}
