//! A kernel's entry in the registry ([`KernelSpec`]): its name, paper, MPI
//! support ([`OverMpi`]), card rows, run function and plan estimate. Every
//! method declares its kernels with it; the registry (`registry.rs`) lists
//! them, so this sits below both.

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
    /// Runs it.
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

/// Whether a kernel runs between MPI processes (`--transport mpi`): a field
/// of its [`KernelSpec`], read by `run` (which refuses the others) and by
/// `list`. Kernels over MPI talk only through their endpoints; the others'
/// ranks share memory (flags, emulated fabrics, hosted nodes), or they time
/// one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverMpi {
    /// It runs over MPI on at least this many processes.
    Runs {
        /// The least world it runs on (a run naming it on fewer is refused;
        /// one naming no kernel leaves it out).
        processes: usize,
    },
    /// It runs over MPI on a number of processes that forms CoMet's
    /// processor grid (section 3.3: 2, 4, 8, 9, 16, 18, ...).
    OnGrid,
    /// It does not, for this reason.
    No(&'static str),
}

impl OverMpi {
    /// Runs over MPI between two processes or more.
    pub const PAIR: OverMpi = OverMpi::Runs { processes: 2 };
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
}

/// Whether `spec` runs over MPI processes.
pub fn runs_over_mpi(spec: &KernelSpec) -> bool {
    matches!(spec.over_mpi, OverMpi::Runs { .. } | OverMpi::OnGrid)
}

/// Why `spec` does not run over MPI, for `list` and the refusal; `None` for a
/// kernel that does.
pub fn not_over_mpi(spec: &KernelSpec) -> Option<&'static str> {
    match spec.over_mpi {
        OverMpi::Runs { .. } | OverMpi::OnGrid => None,
        OverMpi::No(why) => Some(why),
    }
}

/// The least number of MPI processes `spec` runs with over MPI (its
/// [`OverMpi::Runs`]; 2 for a kernel that does not run over MPI). A run that
/// names a kernel on fewer is refused before any measurement; one that names
/// none leaves it out.
pub fn mpi_processes_needed(spec: &KernelSpec) -> usize {
    match spec.over_mpi {
        OverMpi::Runs { processes } => processes,
        OverMpi::OnGrid | OverMpi::No(_) => 2,
    }
}
