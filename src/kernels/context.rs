//! What a kernel receives: the run's settings ([`RunConfig`], with the
//! fault to inject), the progress hook, the machine and clock
//! ([`RunContext`]), and the errors it may end in ([`KernelError`]).

use super::effort;
use crate::platform::{ClockInfo, Topology};
use crate::team::{TeamError, TeamSpec};
use crate::transport::TransportKind;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

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
    /// pair, or [`effort::C2C_QUICK_PER_KIND`] with `quick`. Set by the plan.
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
    /// MPI (`--transport mpi`): the kernels that run over MPI ([`OverMpi`](super::OverMpi)) then run between
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
