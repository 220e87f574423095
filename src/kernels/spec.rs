//! A kernel's entry in the registry ([`KernelSpec`]): its name, paper, MPI
//! support ([`OverMpi`], with its run between MPI processes), card rows, run
//! function and plan estimate. Every method declares its kernels with it; the
//! registry (`registry.rs`) lists them and dispatches a run to the threads'
//! run or the MPI one, so this sits below both.

use super::card;
use super::context::{KernelError, RunContext};
use super::work::{Budgets, Estimate};
use crate::results::KernelResult;

/// A kernel's entry in the registry.
pub struct KernelSpec {
    /// The name users type (`pingpong`).
    pub name: &'static str,
    /// The method (`scibench`, `hockney`, ...).
    pub method: &'static str,
    /// The paper and section it ports.
    pub paper: &'static str,
    /// One line on what it measures.
    pub about: &'static str,
    /// Whether a run that names no kernels (or `all`) includes it; the others,
    /// such as the long soak, run only when named.
    pub in_quick_suite: bool,
    /// Whether it runs between MPI processes, and if not, why.
    pub over_mpi: OverMpi,
    /// The results of it that the machine card shows, and how.
    pub card: &'static [card::CardEntry],
    /// Runs it between threads (a run over MPI processes takes the function
    /// in [`OverMpi`] instead).
    pub run: fn(&RunContext<'_>) -> Result<Vec<KernelResult>, KernelError>,
    /// Its part of the run plan: what it sweeps and does on the plan's
    /// budgets ([`super::work`]), before anything is timed.
    pub plan: fn(&Budgets<'_>) -> Estimate,
}

impl std::fmt::Debug for KernelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A kernel's run between MPI processes (`--transport mpi`), which its
/// [`OverMpi`] carries and the registry calls when the run has processes:
/// every rank calls it with the team of processes it belongs to.
#[cfg(feature = "mpi")]
pub type MpiRun =
    fn(&RunContext<'_>, &crate::team::mpi::Processes) -> Result<Vec<KernelResult>, KernelError>;

/// Without the `mpi` feature a kernel's run between MPI processes is not
/// built; [`OverMpi`] holds this stand-in in its place.
#[cfg(not(feature = "mpi"))]
#[derive(Debug, Clone, Copy)]
pub struct MpiRun;

/// The [`MpiRun`] of a kernel: its function (a path, or a closure that
/// captures nothing) with the `mpi` feature; without it the stand-in, and
/// the function's tokens are dropped, so it may name items built only with
/// MPI.
macro_rules! mpi_run {
    ($run:expr) => {{
        #[cfg(feature = "mpi")]
        let run: $crate::kernels::MpiRun = $run;
        #[cfg(not(feature = "mpi"))]
        let run = $crate::kernels::MpiRun;
        run
    }};
}
pub(crate) use mpi_run;

/// Whether a kernel runs between MPI processes (`--transport mpi`), and how:
/// a field of its [`KernelSpec`], read by `run` (which refuses the others),
/// by `list` and by the registry's dispatch ([`OverMpi::run`]). Kernels over MPI
/// talk only through their endpoints; the others' ranks share memory (flags,
/// emulated fabrics, hosted nodes), or they time one process.
#[derive(Debug, Clone, Copy)]
pub enum OverMpi {
    /// It runs over MPI on at least this many processes.
    Runs {
        /// The least world it runs on (a run naming it on fewer is refused;
        /// one naming no kernel leaves it out).
        processes: usize,
        /// Its run between the processes (set with `mpi_run!`).
        run: MpiRun,
    },
    /// It runs over MPI on a number of processes that forms CoMet's
    /// processor grid (section 3.3: 2, 4, 8, 9, 16, 18, ...).
    OnGrid {
        /// Its run between the processes (set with `mpi_run!`).
        run: MpiRun,
    },
    /// It does not, for this reason.
    No(&'static str),
}

impl OverMpi {
    /// Runs over MPI between two processes or more, with `run`.
    pub const fn pair(run: MpiRun) -> OverMpi {
        OverMpi::Runs { processes: 2, run }
    }

    /// Hockney's one-process kernels.
    pub const ONE_PROCESS: OverMpi = OverMpi::No(
        "it times one process's loops and synchronisation primitives; nothing passes between processes",
    );
    /// Krumme & Greenfield's hosted virtual nodes.
    pub const HOSTED_NODES: OverMpi = OverMpi::No(
        "its ranks are virtual nodes hosted on two threads, polled between chunks of their computation in one address space",
    );
    /// scibench's emulated SCI rings and tori.
    pub const EMULATED_FABRIC: OverMpi =
        OverMpi::No("its rings and tori are emulated with flags in shared memory");
    /// The soak of the thread transports.
    pub const THREAD_DELIVERY: OverMpi =
        OverMpi::No("it checks the thread transports' delivery, not MPI's");

    /// The kernel's run between MPI processes, `None` for one that does not
    /// run over MPI.
    pub fn run(self) -> Option<MpiRun> {
        match self {
            OverMpi::Runs { run, .. } | OverMpi::OnGrid { run } => Some(run),
            OverMpi::No(_) => None,
        }
    }
}

/// Whether `spec` runs over MPI processes.
pub fn runs_over_mpi(spec: &KernelSpec) -> bool {
    matches!(spec.over_mpi, OverMpi::Runs { .. } | OverMpi::OnGrid { .. })
}

/// Why `spec` does not run over MPI, for `list` and the refusal; `None` for a
/// kernel that does.
pub fn not_over_mpi(spec: &KernelSpec) -> Option<&'static str> {
    match spec.over_mpi {
        OverMpi::Runs { .. } | OverMpi::OnGrid { .. } => None,
        OverMpi::No(why) => Some(why),
    }
}

/// The least number of MPI processes `spec` runs with over MPI (its
/// [`OverMpi::Runs`]; 2 for a kernel that does not run over MPI). A run that
/// names a kernel on fewer is refused before any measurement; one that names
/// none leaves it out.
pub fn mpi_processes_needed(spec: &KernelSpec) -> usize {
    match spec.over_mpi {
        OverMpi::Runs { processes, .. } => processes,
        OverMpi::OnGrid { .. } | OverMpi::No(_) => 2,
    }
}
