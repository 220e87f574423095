//! The registry: every kernel's [`KernelSpec`] (name, paper, whether the
//! suite takes it, its MPI support, its card rows, its run function), the one
//! list that `list`, `run`, the MPI dispatch and the card read, and the load
//! check every kernel runs inside.

use super::harness::timing::Timer;
use super::{
    KernelError, RunContext, card, comet, decomposition, headline, hockney, reliability, scibench,
    speedup,
};
use crate::platform::{IdleSample, LoadReport, LoadWindow};
use crate::results::KernelResult;
use std::time::Duration;

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
}

impl std::fmt::Debug for KernelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Every kernel, in the order a full run takes them.
pub fn registry() -> Vec<&'static KernelSpec> {
    scibench::KERNELS
        .iter()
        .chain(hockney::KERNELS.iter())
        .chain(decomposition::KERNELS.iter())
        .chain(comet::KERNELS.iter())
        .chain(speedup::KERNELS.iter())
        .chain(reliability::KERNELS.iter())
        .collect()
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

/// The names of the kernels that run over MPI processes, registry order.
pub fn over_mpi_names() -> Vec<&'static str> {
    registry()
        .into_iter()
        .filter(|k| runs_over_mpi(k))
        .map(|k| k.name)
        .collect()
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

/// Why `spec`, which runs over MPI, cannot run on a world of `processes`, if
/// it cannot: fewer processes than it needs ([`mpi_processes_needed`]), or,
/// for CoMet's matrix kernels, a world that forms no processor grid. Checked
/// before any kernel runs, so that a refused run writes nothing.
#[cfg(feature = "mpi")]
pub fn over_mpi_refusal(spec: &KernelSpec, processes: usize) -> Option<String> {
    let needed = mpi_processes_needed(spec);
    if processes < needed {
        return Some(format!(
            "kernel {} needs at least {needed} MPI processes, and this world has {processes}: start it with `mpirun -n {needed}`",
            spec.name
        ));
    }
    match spec.over_mpi {
        OverMpi::OnGrid => comet::grid_refusal(spec.name, processes),
        _ => None,
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

/// The kernels a run that names none takes.
pub fn default_suite() -> Vec<&'static KernelSpec> {
    registry()
        .into_iter()
        .filter(|k| k.in_quick_suite)
        .collect()
}

/// The kernel named `name`.
pub fn find(name: &str) -> Option<&'static KernelSpec> {
    registry().into_iter().find(|k| k.name == name)
}

/// Every kernel's card entries, registry order, then the bench-only ones.
pub fn card_entries() -> impl Iterator<Item = &'static card::CardEntry> {
    registry()
        .into_iter()
        .flat_map(|k: &'static KernelSpec| k.card)
        .chain(card::BENCH_ONLY)
}

/// The presenter of the result `kernel` over `transport`, if the card shows it.
pub fn card_rows_of(kernel: &str, transport: Option<&str>) -> Option<card::CardRows> {
    card_entries()
        .find(|e| e.matches(kernel, transport))
        .map(|e| e.rows)
}

/// Whether any transport of the result `kernel` has the presenter `rows`.
pub fn presented_as(kernel: &str, rows: card::CardRows) -> bool {
    card_entries().any(|e| e.names(kernel) && e.rows == rows)
}

/// The idle sample before a kernel: 100 ms, long enough that tick counting
/// resolves a neighbour using half a CPU (see
/// [`crate::platform::counting_error_cpus`]).
pub const IDLE_SAMPLE: Duration = Duration::from_millis(100);

/// How long a suite's idle sample serves the kernels after it: a sample at
/// most this old, with no other work seen during the kernels since, is not
/// taken again. A quick suite's twenty kernels slept 2 s of its 27 s in
/// their own samples; with a sample every 10 s, three of its 20 s. Every
/// kernel's own window still counts others' work during it, and a kernel
/// that saw any makes the next one sample afresh, so a longer reuse only
/// leaves the quiet stretches unsampled again.
pub const IDLE_SAMPLE_REUSE: Duration = Duration::from_secs(30);

/// The load check of a run of kernels: the last idle sample while it still
/// serves ([`IDLE_SAMPLE_REUSE`]).
#[derive(Debug, Default)]
pub struct LoadCheck {
    last: Option<IdleSample>,
    /// The time its idle samples took so far.
    pub sampled: Duration,
}

impl LoadCheck {
    /// The window around the next kernel: the last idle sample if it still
    /// serves, else a new one.
    fn begin(&mut self) -> LoadWindow {
        let idle = match self.last {
            Some(s) if s.age() < IDLE_SAMPLE_REUSE => s,
            _ => IdleSample::take(IDLE_SAMPLE),
        };
        self.last = Some(idle);
        LoadWindow::begin_after(idle)
    }

    /// After a kernel whose load check said `load`: a kernel that saw others'
    /// work (before or during) makes the next one sample afresh.
    fn end(&mut self, load: &LoadReport) {
        if load.busy {
            self.last = None;
        }
    }
}

/// Runs one kernel with the load check around it, attaching the load report, its
/// warning and the elapsed time to every result it returns; on a busy machine
/// every fit is flagged too, with the reason among the warnings.
pub fn run_kernel(
    spec: &KernelSpec,
    ctx: &RunContext<'_>,
) -> Result<Vec<KernelResult>, KernelError> {
    run_kernel_checked(spec, ctx, &mut LoadCheck::default())
}

/// [`run_kernel`] as one of a run's kernels, sharing the run's `check`.
pub fn run_kernel_checked(
    spec: &KernelSpec,
    ctx: &RunContext<'_>,
    check: &mut LoadCheck,
) -> Result<Vec<KernelResult>, KernelError> {
    let sampling = Timer::start();
    let window = check.begin();
    check.sampled += sampling.elapsed();
    let start = Timer::start();
    let mut results = (spec.run)(ctx)?;
    let load = window.finish();
    check.end(&load);
    let elapsed = start.elapsed().as_secs_f64();
    for r in &mut results {
        if let Some(w) = load.warning() {
            r.warnings.push(w);
            // Results never look clean when the run was not: a busy machine flags
            // every fit, whatever its R^2.
            r.fits.iter_mut().for_each(|f| f.flagged = true);
            let fits = r.fits.len();
            if fits > 0 {
                r.warnings
                    .push(format!("{fits} fit(s) flagged: measured on a busy machine"));
            }
        }
        r.load = Some(load.clone());
        r.elapsed_s = elapsed;
        headline::fill_from_fits(r);
        r.drop_non_finite();
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_shares_a_recent_idle_sample_until_others_work() {
        let mut check = LoadCheck::default();
        let t = Timer::start();
        let _first = check.begin();
        assert!(t.elapsed() >= IDLE_SAMPLE, "the first kernel samples");
        let t = Timer::start();
        let _second = check.begin();
        assert!(
            t.elapsed() < IDLE_SAMPLE / 2,
            "the next kernel reuses the sample: {:?}",
            t.elapsed()
        );
        check.end(&LoadReport {
            others_before_cpus: Some(0.0),
            others_during_cpus: Some(1.0),
            busy: true,
        });
        let t = Timer::start();
        let _third = check.begin();
        assert!(
            t.elapsed() >= IDLE_SAMPLE,
            "after a busy kernel the next one samples again"
        );
    }
}
