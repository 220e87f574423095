//! The kernels: one module per source method, each kernel one file that declares
//! what it sweeps, runs on a [`Team`](crate::team::Team), and returns points and
//! fits. Every kernel is listed once in its method's `KERNELS`, and [`registry`]
//! gathers them; the CLI, the JSON and the benches read that list. The methods
//! measure with the [`harness`] (sweep plan, transport loop, flag primitives,
//! probes, timer), which imports none of them.

pub mod card;
pub mod comet;
pub mod convert;
pub mod decomposition;
pub mod effort;
pub mod harness;
pub mod headline;
pub mod hockney;
pub mod plan;
pub mod reliability;
pub mod scibench;
pub mod speedup;

use crate::platform::{ClockInfo, IdleSample, LoadReport, LoadWindow, Topology};
use crate::results::KernelResult;
use crate::team::{TeamError, TeamSpec};
use crate::transport::TransportKind;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A fault to inject, for testing that the suite stops cleanly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fault {
    /// The rank stops answering (and waits to be aborted).
    Stall {
        /// The rank.
        rank: usize,
    },
    /// The rank panics.
    Panic {
        /// The rank.
        rank: usize,
    },
}

impl std::str::FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (kind, rank) = s
            .split_once(':')
            .ok_or_else(|| format!("fault {s:?}: expected stall:RANK or panic:RANK"))?;
        let rank = rank
            .parse()
            .map_err(|_| format!("fault {s:?}: {rank:?} is not a rank number"))?;
        match kind {
            "stall" => Ok(Fault::Stall { rank }),
            "panic" => Ok(Fault::Panic { rank }),
            _ => Err(format!("fault {s:?}: expected stall:RANK or panic:RANK")),
        }
    }
}

/// A run's settings, shared by every kernel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunConfig {
    /// Fewer trials and shorter batches, for a run of under a minute.
    pub quick: bool,
    /// The CPUs to use (kernels take what they need from the front); `None`: the
    /// kernel's default policy over the allowed CPUs.
    pub cpus: Option<Vec<usize>>,
    /// The transports message-passing kernels run on.
    pub transports: Vec<TransportKind>,
    /// Message sizes in bytes; `None`: the kernel's default sweep.
    pub sizes: Option<Vec<usize>>,
    /// Trials per point; `None`: the effort policy's (15, or 5 with `quick`),
    /// as scibench's NUMREPS.
    pub trials: Option<usize>,
    /// The deadline of a single wait.
    pub wait_timeout: Duration,
    /// Allow more ranks than CPUs, with blocking waits (labelled).
    pub oversubscribe: bool,
    /// A fault to inject (tests only).
    pub fault: Option<Fault>,
    /// Total messages of the soak, split evenly over the transports, size classes
    /// and both directions; `None`: its default.
    pub soak_messages: Option<u64>,
    /// c2c's pairs per kind (distance class and core types); `None`: every
    /// pair, or [`plan::C2C_QUICK_PER_KIND`] with `quick`. Set by the plan.
    #[serde(default)]
    pub c2c_pairs_per_kind: Option<usize>,
    /// The largest processor count of the CoMet collectives' sweep; `None`:
    /// the CPUs in use. Set by the plan.
    #[serde(default)]
    pub max_processors: Option<usize>,
    /// How long every CPU in use was kept busy before the first kernel, ms.
    #[serde(default)]
    pub preheat_ms: Option<f64>,
    /// Where the pair kernels' transport lines are homed (`--home`).
    #[serde(default)]
    pub home: crate::platform::Home,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            quick: false,
            cpus: None,
            transports: TransportKind::ALL.to_vec(),
            sizes: None,
            trials: None,
            wait_timeout: Duration::from_secs(10),
            oversubscribe: false,
            fault: None,
            soak_messages: None,
            c2c_pairs_per_kind: None,
            max_processors: None,
            preheat_ms: None,
            home: crate::platform::Home::Local,
        }
    }
}

impl RunConfig {
    /// The effort policy of the run: [`effort::QUICK`] or [`effort::FULL`].
    pub fn effort(&self) -> &'static effort::Effort {
        effort::of(self.quick)
    }

    /// Trials per point: `--trials`, else the policy's.
    pub fn trials(&self) -> usize {
        self.trials.unwrap_or(self.effort().trials)
    }

    /// How long one timed batch should last at least: the policy's target,
    /// raised to the clock's floor.
    pub fn batch_target(&self, clock: &ClockInfo) -> Duration {
        self.effort().batch_target.max(clock.min_batch())
    }
}

/// Progress reporting, implemented by the CLI (bars) and by tests (nothing).
pub trait Progress: Sync {
    /// A kernel begins, with `total` steps.
    fn begin(&self, kernel: &str, total: u64);
    /// One step done.
    fn step(&self, what: &str);
    /// The kernel ended.
    fn end(&self);
}

/// Progress that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _: &str, _: u64) {}
    fn step(&self, _: &str) {}
    fn end(&self) {}
}

/// What a kernel is given.
pub struct RunContext<'a> {
    /// The machine.
    pub topology: &'a Topology,
    /// The CPUs this process may use.
    pub allowed: &'a [usize],
    /// The clock.
    pub clock: &'a ClockInfo,
    /// The run's settings.
    pub config: &'a RunConfig,
    /// Where to report progress.
    pub progress: &'a dyn Progress,
    /// Set when the user interrupts the run; kernels stop at the next point.
    pub cancel: Arc<AtomicBool>,
    /// The team of MPI processes this process belongs to, when the run is over
    /// MPI (`--transport mpi`): the kernels that run over MPI ([`OverMpi`]) then run between
    /// processes instead of threads.
    #[cfg(feature = "mpi")]
    pub processes: Option<crate::team::mpi::ProcessesHandle<'a>>,
}

impl<'a> RunContext<'a> {
    /// A context that reports no progress and is never cancelled: for the tests,
    /// the benches and library callers that run kernels directly.
    pub fn quiet(
        topology: &'a Topology,
        allowed: &'a [usize],
        clock: &'a ClockInfo,
        config: &'a RunConfig,
    ) -> Self {
        RunContext {
            topology,
            allowed,
            clock,
            config,
            progress: &NoProgress,
            cancel: Arc::new(AtomicBool::new(false)),
            #[cfg(feature = "mpi")]
            processes: None,
        }
    }
}

impl RunContext<'_> {
    /// The CPUs a kernel should use: the user's, else all allowed in the
    /// topology's sweep order (one L3 domain first, a thread of every core
    /// before their SMT siblings), so that a team of P takes the first P.
    pub fn cpus(&self) -> Vec<usize> {
        self.config
            .cpus
            .clone()
            .unwrap_or_else(|| self.topology.sweep_order(self.allowed))
    }

    /// The largest processor count a sweep over P takes real CPUs for: the
    /// CPUs in use, or fewer where the plan sampled.
    pub fn sweep_cpus(&self) -> usize {
        self.cpus()
            .len()
            .min(self.config.max_processors.unwrap_or(usize::MAX))
    }

    /// Whether the user interrupted the run.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// A team spec over `cpus` for `ranks` ranks with the run's deadline.
    pub fn team_spec(&self, cpus: Vec<usize>, ranks: usize, virtual_ok: bool) -> TeamSpec {
        TeamSpec {
            cpus,
            ranks,
            virtual_ok,
            oversubscribe: self.config.oversubscribe,
            wait_timeout: self.config.wait_timeout,
        }
    }
}

/// Why a kernel did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// The team failed (a rank's error, a deadline, a panic, a bad CPU list).
    #[error(transparent)]
    Team(#[from] TeamError),
    /// The kernel cannot run with what this machine or run allows.
    #[error("kernel {kernel} cannot run here: {reason}")]
    NotRunnable {
        /// The kernel.
        kernel: String,
        /// Why, and what would make it run.
        reason: String,
    },
    /// The user interrupted the run.
    #[error("interrupted")]
    Interrupted,
    /// A check of the kernel's own results failed.
    #[error("kernel {kernel}: {reason}")]
    Failed {
        /// The kernel.
        kernel: String,
        /// What failed.
        reason: String,
    },
}

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
    let sampling = Instant::now();
    let window = check.begin();
    check.sampled += sampling.elapsed();
    let start = Instant::now();
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
        let t = Instant::now();
        let _first = check.begin();
        assert!(t.elapsed() >= IDLE_SAMPLE, "the first kernel samples");
        let t = Instant::now();
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
        let t = Instant::now();
        let _third = check.begin();
        assert!(
            t.elapsed() >= IDLE_SAMPLE,
            "after a busy kernel the next one samples again"
        );
    }
}
