//! hockney-sync's plan and samples: the synchronisation methods (the rows
//! of Table II), what a sweep does ([`SyncPlan`]), the grains it times, how a
//! batch splits into sub-batches, and what a method's sweep holds. The kernel
//! (`sync.rs`) says what is measured; the files that time the methods build on
//! these.

use super::super::RunContext;
use crate::control::Placement;
use std::time::Duration;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "hockney-sync";

/// The synchronisation methods, one row of Table II each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Fig. 3: a new thread per processor and segment, started and joined.
    TasksSpawn,
    /// A persistent pinned pool's fork/join.
    TasksPool,
    /// Fig. 4: binary locks handed across processors.
    Locks,
    /// Fig. 5: post / wait / clear on a mutex and condition variable.
    EventsCondvar,
    /// Fig. 5 on thread park / unpark (futex).
    EventsPark,
    /// Fig. 6: a spin flag polled with the spin-loop hint.
    SpinHint,
    /// Fig. 6: a spin flag polled with no hint.
    SpinBare,
    /// `std::sync::Barrier` at the end of every segment.
    BarrierStd,
    /// The dissemination spin barrier on flags at the end of every segment,
    /// polled without the spin-loop hint.
    BarrierSpin,
    /// Between MPI processes: `MPI_Barrier` at the end of every segment.
    MpiBarrier,
    /// Between MPI processes: `MPI_Allreduce` of one word at the end of
    /// every segment, a collective that synchronises as a barrier does.
    MpiAllreduce,
    /// Between MPI processes: the dissemination barrier on point-to-point
    /// messages at the end of every segment (barrier-spin's algorithm).
    MpiDissemination,
    /// Between MPI processes: the master sends every worker a start
    /// message, does its part, and receives a done message from each
    /// (Hockney's fork/join of Figs. 4 and 5, as messages).
    MpiLinear,
}

impl Method {
    /// Every method, in the order of Table II (most expensive first).
    pub const ALL: [Method; 9] = [
        Method::TasksSpawn,
        Method::TasksPool,
        Method::Locks,
        Method::EventsCondvar,
        Method::EventsPark,
        Method::SpinHint,
        Method::SpinBare,
        Method::BarrierStd,
        Method::BarrierSpin,
    ];

    /// The methods between MPI processes (`--transport mpi`,
    /// the kernel's `sync_mpi` file), each a row of its own.
    pub const OVER_MPI: [Method; 4] = [
        Method::MpiBarrier,
        Method::MpiAllreduce,
        Method::MpiDissemination,
        Method::MpiLinear,
    ];

    /// Whether it synchronises MPI processes (and not threads).
    pub fn over_mpi(self) -> bool {
        Method::OVER_MPI.contains(&self)
    }

    /// Its name in results.
    pub fn name(self) -> &'static str {
        match self {
            Method::TasksSpawn => "tasks-spawn",
            Method::TasksPool => "tasks-pool",
            Method::Locks => "locks",
            Method::EventsCondvar => "events-condvar",
            Method::EventsPark => "events-park",
            Method::SpinHint => "spin-hint",
            Method::SpinBare => "spin-nohint",
            Method::BarrierStd => "barrier-std",
            Method::BarrierSpin => "barrier-spin",
            Method::MpiBarrier => "mpi-barrier",
            Method::MpiAllreduce => "mpi-allreduce",
            Method::MpiDissemination => "mpi-dissemination",
            Method::MpiLinear => "mpi-linear",
        }
    }

    /// Whether its batches run on a team whose ranks 0 and 1 can take the
    /// pair probe between segments (`PROBE_GRAIN`): every method but the
    /// TASKS, whose workers are not a team between batches.
    pub fn probes_in_team(self) -> bool {
        !matches!(self, Method::TasksSpawn | Method::TasksPool)
    }

    /// Whether its hand-overs at the shortest grains are made while the
    /// waiter spins (the spin flags and barrier; the lock and the pool, which
    /// spin before they park; the MPI methods, which poll). The others block
    /// at every hand-over, or start a thread.
    pub fn spins_at_short_grains(self) -> bool {
        self.over_mpi()
            || matches!(
                self,
                Method::TasksPool
                    | Method::Locks
                    | Method::SpinHint
                    | Method::SpinBare
                    | Method::BarrierSpin
            )
    }

    /// Whether its hand-overs are measured in two regimes, the waiter kept
    /// awake and made to sleep (`Regime` of `crate::sync::team_method`): the
    /// team methods whose waits can block (the lock parks after its spin),
    /// and the pool, whose idle workers park after theirs.
    pub fn two_regimes(self) -> bool {
        matches!(
            self,
            Method::Locks
                | Method::EventsCondvar
                | Method::EventsPark
                | Method::BarrierStd
                | Method::TasksPool
        )
    }

    /// In the asleep regime, the posts held back on a segment's critical
    /// path (each `crate::sync::team_method::ASLEEP_HOLD`): LOCKS and EVENTS
    /// two, the master's start and the workers' done (the workers hold
    /// theirs at once); the std barrier one, the workers' arrival; the pool
    /// none (its fork is held back outside the segment's clock, until
    /// every worker has parked).
    pub fn asleep_holds(self) -> u32 {
        match self {
            Method::Locks | Method::EventsCondvar | Method::EventsPark => 2,
            Method::BarrierStd => 1,
            _ => 0,
        }
    }

    /// Whether its `t_0` is taken over four near-zero grains: those that spin
    /// at short grains, and the EVENTS and the std barrier, whose `t_0` comes
    /// from the rounds that did not sleep (`sync_result`), two to four of
    /// nine a grain in a quick run. Not a new thread's start, which sleeps.
    pub fn near_zero_grains(self) -> bool {
        self.spins_at_short_grains()
            || matches!(
                self,
                Method::EventsCondvar | Method::EventsPark | Method::BarrierStd
            )
    }

    /// The method by name.
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .chain(Method::OVER_MPI)
            .find(|m| m.name() == name)
    }

    /// Which figure of the paper it ports, for the table.
    pub fn figure(self) -> &'static str {
        match self {
            Method::TasksSpawn => "TASKS, Fig. 3",
            Method::TasksPool => "TASKS as a pool",
            Method::Locks => "LOCKS, Fig. 4",
            Method::EventsCondvar | Method::EventsPark => "EVENTS, Fig. 5",
            Method::SpinHint | Method::SpinBare => "CAL spin, Fig. 6",
            Method::BarrierStd | Method::BarrierSpin => "barrier",
            Method::MpiBarrier => "MPI_Barrier",
            Method::MpiAllreduce => "MPI_Allreduce",
            Method::MpiDissemination | Method::MpiLinear => "barrier over MPI messages",
        }
    }
}

/// What a synchronisation sweep does.
#[derive(Debug, Clone)]
pub struct SyncPlan {
    /// The CPUs; processor `p` runs on `cpus[p % cpus.len()]`.
    pub cpus: Vec<usize>,
    /// Processors `P` (at least 2).
    pub parts: usize,
    /// Grains to measure; `None`: chosen per method from a pilot measurement.
    pub grains: Option<Vec<usize>>,
    /// Short grains per method when chosen from the pilot (three long ones follow).
    pub points: usize,
    /// The vectors' length, flop; longer segments make repeated passes.
    pub max_grain: usize,
    /// Rounds: every grain is timed once per round.
    pub trials: usize,
    /// How long a timed batch lasts at least.
    pub target: Duration,
    /// The deadline of one wait.
    pub wait_timeout: Duration,
    /// Allow more processors than CPUs (waits then yield).
    pub oversubscribe: bool,
    /// Test hook: this processor skips its part of every segment (the kernel's
    /// verification must catch it).
    pub skip_part: Option<usize>,
}

impl SyncPlan {
    /// Waits poll with the hint, or yield when processors share CPUs.
    pub(super) fn shared_cpus(&self) -> bool {
        self.parts > self.cpus.len()
    }
}

/// The measured samples of one grain.
#[derive(Debug, Clone)]
pub struct GrainSamples {
    /// The grain `s`, flop.
    pub grain: usize,
    /// Segments per batch.
    pub reps: u64,
    /// Time of one segment per round, ns (T0 subtracted).
    pub samples_ns: Vec<f64>,
    /// Per round, the process's voluntary context switches per segment, the
    /// median over the round's sub-batches (as `samples_ns` is of their
    /// times): how often a hand-over slept in the sub-batches the time
    /// keeps.
    pub blocks_per_segment: Vec<f64>,
    /// Per round, the process's involuntary context switches per second of
    /// the round's sub-batches: how often another task took a CPU from the
    /// method's threads.
    pub preempted_per_s: Vec<f64>,
}

/// A method's sweep.
#[derive(Debug, Clone)]
pub struct MethodSweep {
    /// The method.
    pub method: Method,
    /// The grains, ascending; `samples_ns[r]` of each is round `r`.
    pub grains: Vec<GrainSamples>,
    /// How many of the first grains are the short ones (`t_0`); the others are
    /// the long ones (`r_inf`). All of them when the grains were given.
    pub short: usize,
    /// The shortest grains timed again in the asleep regime (the waiter
    /// made to sleep: `team_batch`'s `ASLEEP`), for the methods with
    /// [`Method::two_regimes`]; `grains` are timed awake. Empty for the
    /// others.
    pub asleep: Vec<GrainSamples>,
    /// One processor's rate on the same dyadic multiply (4096 elements), flop/ns,
    /// timed before the grains (it sizes them).
    pub serial_flop_per_ns: f64,
    /// The same rate timed once a round, after the round's grains, flop/ns:
    /// the rate probe, one processor's while every processor of the team
    /// computes at once (its slowest), or the master's alone for the TASKS
    /// and on shared CPUs (see the module doc).
    pub serial_rounds: Vec<f64>,
    /// The two-flag round trip between processors 0 and 1, timed on the
    /// method's own threads at the start of every round, ns; empty for the
    /// TASKS and on shared CPUs (see the module doc).
    pub pair_rounds: Vec<f64>,
    /// A system call's time on the master's CPU, once a round before the rate
    /// probe, ns ([`crate::platform::futex_wakes`]).
    pub syscall_rounds: Vec<f64>,
    /// How processors were placed.
    pub placement: Placement,
}

/// The longest segment, in passes over the vectors.
pub(super) const MAX_PASSES: usize = 512;

/// The shortest grains: `unit`, `2 unit`, .., this many, whose work is a few
/// ns against a hand-over of 50 ns or more, so that `t_0` is the median of
/// several near-zero segments' overheads and not one grain's.
pub(super) const NEAR_ZERO_GRAINS: usize = 4;

/// The long grains: this many, up to this multiple of the estimated `s_1/2`.
pub(crate) const LONG_GRAINS: usize = 3;
pub(super) const LONG_OVER_S_HALF: f64 = 32.0;

/// Grains `lo, ..., hi`, evenly spaced, multiples of `unit`.
pub fn linear_grains(lo: usize, hi: usize, count: usize, unit: usize) -> Vec<usize> {
    let count = count.max(2);
    let mut v: Vec<usize> = (0..count)
        .map(|i| {
            let s = lo as f64 + (hi.saturating_sub(lo)) as f64 * i as f64 / (count - 1) as f64;
            ((s / unit as f64).round() as usize).max(1) * unit
        })
        .collect();
    v.dedup();
    v
}

/// The short grains of `method`, `points` of them (at least two): evenly
/// from `unit` to `hi`, multiples of `unit`; for a method that spins at
/// short grains ([`Method::near_zero_grains`]) the first
/// `NEAR_ZERO_GRAINS` are `unit, 2 unit, ..` and the rest evenly to `hi`.
pub fn short_grains(method: Method, unit: usize, hi: usize, points: usize) -> Vec<usize> {
    let near_zero = match method.near_zero_grains() {
        true => NEAR_ZERO_GRAINS,
        false => 1,
    };
    let mut grains: Vec<usize> = (1..=near_zero).map(|k| k * unit).collect();
    grains.extend(linear_grains(
        unit,
        hi,
        points.saturating_sub(near_zero - 1),
        unit,
    ));
    grains.sort_unstable();
    grains.dedup();
    grains
}

/// Elements of the serial dyadic multiply that sizes the grains and is the
/// rate probe: 96 KiB in all, from L2 as the long grains.
pub(super) const SERIAL_ELEMENTS: usize = 4096;

/// A grain's batch in a round is timed as this many sub-batches (fewer when
/// the batch has fewer segments), and the round keeps their median (see the
/// module doc, "Hand-overs with two modes").
pub const SUB_BATCHES: usize = 7;

/// The sub-batches of a batch of `reps` segments: how many, and the segments
/// of each (`reps` rounded down to a multiple of their number, at least one).
pub fn sub_batches(reps: u64) -> (usize, u64) {
    let n = (SUB_BATCHES as u64).min(reps).max(1);
    (n as usize, (reps / n).max(1))
}

/// The sub-batches of a batch of `reps` segments of `grain` (a grain with
/// the asleep bit, `team_batch::ASLEEP`, in the asleep regime): an awake
/// batch as [`sub_batches`]; an asleep one a segment a sub-batch, `reps` of
/// them (at least one), so that each asleep segment begins with both sides
/// awake at the gate and its time holds just the wake-ups on its critical
/// path (see the module doc, "Two regimes").
pub fn grain_sub_batches(grain: usize, reps: u64) -> (usize, u64) {
    match grain & ASLEEP {
        0 => sub_batches(reps),
        _ => (reps.max(1) as usize, 1),
    }
}

/// The bit of a batch's grain that asks for its segments in the asleep
/// regime ([`Regime::Asleep`](crate::sync::team_method::Regime::Asleep): every post a waiter waits for is held back
/// [`crate::sync::team_method::ASLEEP_HOLD`], so every blocking wait
/// sleeps); without it a waiter is kept polling ([`Regime::Awake`](crate::sync::team_method::Regime::Awake)).
/// Grains are far below it (a segment's vectors fill half an L2).
pub(crate) const ASLEEP: usize = 1 << 48;

/// The run's plan on `cpus` for `parts` processors: grains chosen per
/// method, the vectors half of each processor's L2 (that of `cpus[0]`).
pub(super) fn run_plan(ctx: &RunContext<'_>, cpus: Vec<usize>, parts: usize) -> SyncPlan {
    let max_grain = max_grain(ctx.topology, cpus[0], parts);
    SyncPlan {
        cpus,
        parts,
        grains: None,
        points: ctx.config.effort().sync_points,
        max_grain,
        trials: ctx.config.trials().max(ROUNDS_AT_LEAST),
        target: ctx.config.batch_target(ctx.clock),
        wait_timeout: ctx.config.wait_timeout,
        oversubscribe: ctx.config.oversubscribe,
        skip_part: None,
    }
}

/// The vectors' length, flop, on `parts` processors whose first is `cpu`:
/// half of each processor's L2 (1 MiB where the topology does not say) for
/// its share of A, B and C, a multiple of `8 parts`.
pub(super) fn max_grain(topology: &crate::platform::Topology, cpu: usize, parts: usize) -> usize {
    let l2 = topology
        .data_cache_sizes(cpu)
        .iter()
        .find(|c| c.0 == 2)
        .map_or(1 << 20, |c| c.1);
    (parts * (l2 as usize / 2) / 24) / (8 * parts) * (8 * parts)
}

/// Rounds at least, whatever the trials: the bootstrap needs several.
pub(crate) const ROUNDS_AT_LEAST: usize = 9;
