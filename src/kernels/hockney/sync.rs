//! `hockney-sync`: Hockney's `(r_inf, s_1/2)` for work split between processors
//! (section 3.2, Figs. 3-6, Table II), one row per synchronisation method.
//!
//! A work segment is the dyadic multiply `A = B * C` of length `s` (`s` flop),
//! split evenly between `P` processors (`P = 2` unless `--cpus` names more); the
//! master (processor 0, the only one that times) starts the others, does its own
//! part, and waits until all are done, and the time of a segment as the master sees
//! it is fitted to eq. (10b), `t = t_0 + s / r_inf`, giving `s_1/2 = t_0 r_inf`
//! and `pi_0 = 1 / t_0` (eq. (13)), and the grains for 50% and 91% of `r_inf`.
//!
//! The methods ([`Method`]) are those of [`crate::sync`]: TASKS as new threads
//! (Fig. 3) and as a persistent pool's fork/join, LOCKS (Fig. 4), EVENTS on a
//! condition variable and on park/unpark (Fig. 5), the spin flag of Fig. 6 with and
//! without the spin-loop hint, and two barriers (barrier-spin, the dissemination
//! barrier of [`crate::sync::barrier`], polled bare: a hinted waiter sees the flag
//! up to a pause late). The same segment loop is timed for every method, the
//! clock's cost subtracted (Fig. 1); the vectors fill half of each L2.
//!
//! Grains: the paper swept `s = 2 .. 400`; here the overheads span 100 ns to
//! 50 µs, so each method first estimates `s_1/2` from a pilot, then measures
//! short grains (up to `s_1/2 / 2`, mostly overhead, four near zero for most
//! methods) and three long ones up to 32 `s_1/2` (mostly work).
//!
//! Two regimes: a blocking hand-over (LOCKS, EVENTS, the std barrier) costs a
//! line transfer to an awake waiter and a wake-up to a sleeping one, each its own
//! parameter in a regime built by construction (`crate::sync::team_method`'s
//! `Regime`): the grains timed with the waiter kept polling (`t_0`, `s_1/2`,
//! `r_inf`: awake), the two shortest again with every post held back 100 µs
//! (`t0_asleep_ns`, `t_wake_ns`), each with its share of waits that slept.
//! The pool (tasks-pool) too: asleep, each fork is held back, outside the
//! segment's clock, until every worker has announced its sleep and 100 µs more
//! (`Pool::hold_until_asleep`). An asleep segment is timed alone, one a
//! sub-batch, begun with both sides awake: in a run of them a wake-up after the
//! master's clock stops is paid inside the next segment, or hidden by the other
//! side's hold, and `t_wake` would move with the batch's length.
//!
//! Design and invariants:
//! - Every grain is calibrated once, then all grains are timed once per round,
//!   the methods interleaved ([`super::sweep_methods`]), each visit on a fresh
//!   team: a change of the machine's state lands on every grain and method
//!   alike. Each grain's time is its median over the rounds.
//! - `r_inf` is the slope of the long grains (the rate probe's where they
//!   slept), `t_0` the shortest grains' median less their work at `r_inf`
//!   ([`crate::model::hockney::fit_split`]), with percentile bootstraps over
//!   the rounds; the goodness is that line's through every grain.
//! - A batch in a round is up to [`SUB_BATCHES`] sub-batches and the round keeps
//!   their median: one stray sleep in a batch moves no point.
//! - The CPU pair's two-flag round trip is probed around the sweep and at the start
//!   of every round; a round whose probe lies more than 20 % from the method's
//!   median is left out of the fit, with a warning.
//! - Every round ends with a rate probe (one serial batch on every processor at
//!   once, timed to the last: [`crate::results::RATE_PROBE_PARAM`]), which sees the
//!   processors compute more slowly where the round trip cannot, and a batch of
//!   system calls that wake nobody ([`crate::platform::futex_wakes`]), which a
//!   blocking hand-over's `t_0` follows.
//!
//! Verification: before every batch the first `s` elements of `A` are set to NaN,
//! and after it each must equal `B * C` exactly: a method that skips a part, or
//! lets the master go on early, fails the kernel instead of posting a low time.

use super::pick_cpu_set;
use super::rate_probe::tasks_rate_probe;
use super::simd::{Simd, dyadic_f64};
use super::sync_sweep::sweep_methods;
use super::team_batch::{Batch, RATE_GRAIN, drive_team, regime_of};
use crate::control::{Placement, RankError};
use crate::kernels::harness::probe::{pair_round_trips_ns, probe_warning};
use crate::kernels::harness::timing::Timer;
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::interval;
use crate::platform::LineAligned;
use crate::results::KernelResult;
use crate::sync::Poll;
use crate::sync::barrier::SpinBarrier;
use crate::sync::events::{Event, ParkEvent};
use crate::sync::spin::SpinFlag;
use crate::sync::tasks::{Pool, spawn_join};
use crate::sync::team_method::{
    ASLEEP_HOLD, Events, Locks, Regime, Spin, SpinBarrierMethod, StdBarrier, TeamMethod,
};
use crate::team::{Team, TeamSpec};
use crossbeam_utils::CachePadded;
use std::time::Duration;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "hockney-sync";

pub(super) use super::sync_result::method_result;

pub(super) const SYNC: KernelSpec = KernelSpec {
    name: NAME,
    method: "hockney",
    paper: "Hockney 1985, (r_inf, n_1/2, s_1/2) on the Cray X-MP, section 3.2, Figs. 3-6, Table II",
    about: "r_inf, s_1/2, t_0 and pi_0 of a dyadic segment split over P CPUs, per synchronisation method",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::PAIR,
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::SyncMethods,
    )],
    run,
};

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

/// The result vector, written by every processor in disjoint ranges.
struct SharedOut {
    ptr: *mut f64,
    len: usize,
}

// SAFETY: processors only ever form slices of disjoint ranges at the same time
// (see `Work::share`), and the master touches the whole vector only while the
// others are idle; every hand-over between them is a release/acquire pair.
unsafe impl Sync for SharedOut {}
// SAFETY: as above.
unsafe impl Send for SharedOut {}

impl SharedOut {
    /// # Safety
    /// No other thread may access `lo..hi` while the slice lives.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    unsafe fn range(&self, lo: usize, hi: usize) -> &mut [f64] {
        debug_assert!(lo <= hi && hi <= self.len);
        // SAFETY: in bounds (asserted above; callers keep hi <= len) and, by the
        // caller's promise, not aliased.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(lo), hi - lo) }
    }
}

/// The segment's data and how it is split.
pub(super) struct Work<'a> {
    out: SharedOut,
    b: &'a [f64],
    c: &'a [f64],
    parts: usize,
    simd: Simd,
    skip: Option<usize>,
}

impl Work<'_> {
    /// Processor `part`'s share of a segment of `grain` flop.
    #[inline]
    pub(super) fn share(&self, grain: usize, part: usize) {
        if self.skip == Some(part) {
            return;
        }
        // This part's flop: its share of the segment.
        let mut left = (part + 1) * grain / self.parts - part * grain / self.parts;
        // Its elements: its share of the segment, or of the whole vector when the
        // segment is longer than the vector (then it makes repeated passes).
        let (lo, hi) = self.part_range(grain, part);
        // SAFETY: the ranges of different parts are disjoint, and the master
        // touches the whole vector only between batches.
        let a = unsafe { self.out.range(lo, hi) };
        while left > 0 {
            let n = left.min(hi - lo);
            // SAFETY: `self.simd` comes from `Simd::detect` (in `with_method`).
            unsafe {
                dyadic_f64(
                    self.simd,
                    &mut a[..n],
                    &self.b[lo..lo + n],
                    &self.c[lo..lo + n],
                )
            };
            left -= n;
        }
    }

    /// Marks the first `grain` results as not computed. Only while the others idle.
    pub(super) fn prefill(&self, grain: usize) {
        // SAFETY: called by the master between batches, when no other processor
        // runs a segment.
        unsafe { self.out.range(0, grain.min(self.out.len)) }.fill(f64::NAN);
    }

    /// The elements processor `part` writes in a segment of `grain` flop.
    fn part_range(&self, grain: usize, part: usize) -> (usize, usize) {
        let span = grain.min(self.out.len);
        (part * span / self.parts, (part + 1) * span / self.parts)
    }

    /// Checks processor `part`'s results of a segment of `grain` flop: a
    /// process of a team over MPI has its own vectors and checks its own
    /// part. Only while no other processor writes them.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(super) fn verify_part(
        &self,
        grain: usize,
        part: usize,
        method: Method,
    ) -> Result<(), RankError> {
        let (lo, hi) = self.part_range(grain, part);
        // SAFETY: as in `prefill`.
        let a = unsafe { self.out.range(lo, hi) };
        match (lo..hi).find(|&i| a[i - lo] != self.b[i] * self.c[i]) {
            None => Ok(()),
            Some(i) => Err(RankError::Failed(format!(
                "verification failed for {}: element {i} of processor {part}'s part was not computed; the method skipped work",
                method.name()
            ))),
        }
    }

    /// Checks the first `grain` results. Only while the others idle.
    pub(super) fn verify(&self, grain: usize, method: Method) -> Result<(), RankError> {
        let grain = grain.min(self.out.len);
        // SAFETY: as in `prefill`.
        let a = unsafe { self.out.range(0, grain) };
        match (0..grain).find(|&i| a[i] != self.b[i] * self.c[i]) {
            None => Ok(()),
            Some(i) => Err(RankError::Failed(format!(
                "verification failed for {}: element {i} of {grain} (part {} of the segment) was not computed; the method skipped work",
                method.name(),
                i * self.parts / grain.max(1)
            ))),
        }
    }
}

/// Runs `f` on the segment's vectors for `plan` (filled, on 128-byte
/// boundaries) split between its processors.
pub(super) fn with_work<R>(plan: &SyncPlan, f: impl FnOnce(&Work<'_>) -> R) -> R {
    let len = plan.max_grain.max(plan.parts * 8);
    let mut a = LineAligned::from_fn_on(ALIGN_BYTES, len, |_| f64::NAN);
    let b = LineAligned::from_fn_on(ALIGN_BYTES, len, |i| 1.0 + (i % 7) as f64 * 0.25);
    let c = LineAligned::from_fn_on(ALIGN_BYTES, len, |i| 1.5 - (i % 5) as f64 * 0.125);
    let (b, c) = (&b[..], &c[..]);
    let simd = Simd::detect();
    let work = Work {
        out: SharedOut {
            ptr: a.as_mut_ptr(),
            len,
        },
        b,
        c,
        parts: plan.parts,
        simd,
        skip: plan.skip_part,
    };
    f(&work)
}

/// Runs `driver` with the batch function of `method` on `plan`'s CPUs: the
/// vectors, the team or pool, and the method's state live for the call.
pub(crate) fn with_method<R: Send>(
    method: Method,
    plan: &SyncPlan,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    with_work(plan, |work| with_work_method(method, plan, work, driver))
}

fn with_work_method<R: Send>(
    method: Method,
    plan: &SyncPlan,
    work: &Work<'_>,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    let shared = plan.shared_cpus();
    let spin_poll = |hint: bool| match (shared, hint) {
        (true, _) => Poll::Yield,
        (false, true) => Poll::Hint,
        (false, false) => Poll::Bare,
    };
    let spec = |ranks: usize| TeamSpec {
        cpus: plan.cpus.clone(),
        ranks,
        virtual_ok: false,
        oversubscribe: plan.oversubscribe,
        wait_timeout: plan.wait_timeout,
    };
    let workers = plan.parts - 1;
    let result = match method {
        Method::TasksSpawn | Method::TasksPool => {
            return with_tasks(method, plan, work, &spec, driver);
        }
        Method::Locks => {
            let m = Locks::new(workers, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::EventsCondvar => {
            let m = Events::<Event>::new(workers, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::EventsPark => {
            let m = Events::<ParkEvent>::new(workers, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::SpinHint | Method::SpinBare => {
            let m = Spin {
                flags: (0..workers).map(|_| SpinFlag::new()).collect(),
                poll: spin_poll(method == Method::SpinHint),
            };
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::BarrierStd => {
            let m = StdBarrier::new(plan.parts, spin_poll(false));
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::BarrierSpin => {
            let m = SpinBarrierMethod {
                barrier: SpinBarrier::new(plan.parts),
                // Bare: a waiter with the hint sees its partner's flag up to
                // a pause late, and how late holds for seconds (module doc).
                poll: spin_poll(false),
            };
            on_team(&spec(plan.parts), &m, work, method, driver)?
        }
        Method::MpiBarrier
        | Method::MpiAllreduce
        | Method::MpiDissemination
        | Method::MpiLinear => {
            return Err(KernelError::NotRunnable {
                kernel: NAME.into(),
                reason: format!(
                    "{} synchronises MPI processes: run it with --transport mpi",
                    method.name()
                ),
            });
        }
    };
    Ok(result)
}

/// The TASKS methods: rank 0 alone on the plan's first CPU forks the work
/// to tasks (a pool of pinned workers, or threads spawned a segment), on
/// the placement a team of the plan's parts would have.
fn with_tasks<R: Send>(
    method: Method,
    plan: &SyncPlan,
    work: &Work<'_>,
    spec: &dyn Fn(usize) -> TeamSpec,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    let shared = plan.shared_cpus();
    let team = Team::new(&TeamSpec {
        cpus: vec![plan.cpus[0]],
        ..spec(1)
    })?;
    let placement = Team::new(&spec(plan.parts))?.placement();
    let worker_cpus: Vec<usize> = (1..plan.parts)
        .map(|p| plan.cpus[p % plan.cpus.len()])
        .collect();
    let mut out = team.run(method.name(), vec![()], |_, _| {
        let pool = match method {
            Method::TasksPool => Some(
                Pool::new(&worker_cpus, if shared { 0 } else { 4096 })
                    .map_err(|e| RankError::Failed(e.to_string()))?,
            ),
            _ => None,
        };
        let mut batch = |grain: usize, reps: u64| -> Result<Duration, RankError> {
            if grain == RATE_GRAIN {
                return tasks_rate_probe(pool.as_ref(), plan, reps);
            }
            let (regime, grain) = regime_of(grain);
            work.prefill(grain);
            // The job the tasks read, on lines of its own: beside the
            // master's locals, some builds paid a line transfer more.
            let w = work;
            let share = CachePadded::new(move |p: usize| w.share(grain, p));
            let fork = |pool: &Pool| {
                pool.fork_join(&*share)
                    .map_err(|e| RankError::Failed(e.to_string()))
            };
            let start = Timer::start();
            let took = match (&pool, regime) {
                (Some(pool), Regime::Awake) => {
                    for _ in 0..reps {
                        fork(pool)?;
                    }
                    start.elapsed()
                }
                // Each fork timed alone, after an untimed hold until
                // every worker has parked (`Pool::hold_until_asleep`).
                (Some(pool), Regime::Asleep) => {
                    let mut took = Duration::ZERO;
                    for _ in 0..reps {
                        if !pool.hold_until_asleep(ASLEEP_HOLD, plan.wait_timeout) {
                            return Err(RankError::Failed(format!(
                                "{}: the pool's workers did not park within {:?}",
                                method.name(),
                                plan.wait_timeout
                            )));
                        }
                        let start = Timer::start();
                        fork(pool)?;
                        took += start.elapsed();
                    }
                    took
                }
                (None, _) => {
                    for _ in 0..reps {
                        spawn_join(&plan.cpus, plan.parts, &*share);
                    }
                    start.elapsed()
                }
            };
            work.verify(grain, method)?;
            Ok(took)
        };
        driver(&mut batch)
    })?;
    Ok((out.swap_remove(0), placement))
}

/// `m` on a team of `spec`: the driver's result and the team's placement.
fn on_team<M: TeamMethod, R: Send>(
    spec: &TeamSpec,
    m: &M,
    work: &Work<'_>,
    method: Method,
    driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
) -> Result<(R, Placement), KernelError> {
    let team = Team::new(spec)?;
    Ok((
        drive_team(&team, m, work, method, driver)?,
        team.placement(),
    ))
}

/// Where the vectors start: on a 128-byte boundary (two 64-byte lines, the
/// unit some CPUs' adjacent-line prefetch moves together). With `P` parts
/// every share of a segment starts a multiple of 64 bytes from the vector's
/// start (grains are multiples of `8 P` elements), so with the start aligned
/// no two processors write one line. Left to the allocator (16-byte
/// alignment), the start's offset in its line varied between processes, and
/// with it whether the master and a worker wrote the same line at every
/// segment: one more line transfer in some processes' `t_0` and not in
/// others'.
const ALIGN_BYTES: usize = 128;

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
    match grain & super::team_batch::ASLEEP {
        0 => sub_batches(reps),
        _ => (reps.max(1) as usize, 1),
    }
}

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

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    #[cfg(feature = "mpi")]
    if let Some(procs) = ctx.processes {
        return super::sync_mpi::run(ctx, procs.get());
    }
    let cpus = pick_cpu_set(ctx, NAME)?;
    let parts = cpus.len().max(2);
    let plan = run_plan(ctx, cpus.clone(), parts);
    ctx.progress
        .begin(NAME, (Method::ALL.len() * (plan.trials + 1)) as u64);
    let cancelled = || ctx.cancelled();
    let hint_ns = Poll::hint_pause_ns();
    let before = pair_round_trips_ns(ctx, &cpus)?;
    let step = |m: Method| ctx.progress.step(m.name());
    let sweeps = sweep_methods(&Method::ALL, &plan, ctx.clock, &cancelled, &step)?;
    let after = pair_round_trips_ns(ctx, &cpus)?;
    // The machine's state round by round: the median of the round's probes
    // (each method's visit one), and the probes before and after the sweep.
    let rounds = sweeps
        .iter()
        .map(|s| s.pair_rounds.len())
        .max()
        .unwrap_or(0);
    let mut states: Vec<f64> = (0..rounds)
        .filter_map(|r| {
            let mut of_round: Vec<f64> = sweeps
                .iter()
                .filter_map(|s| s.pair_rounds.get(r).copied())
                .collect();
            interval::median_in_place(&mut of_round)
        })
        .collect();
    // Each round's probe for the TASKS, which take none of their own.
    let round_states = states.clone();
    for mut p in [before.clone(), after.clone()] {
        states.extend(interval::median_in_place(&mut p));
    }
    let around: Vec<f64> = before.iter().chain(&after).copied().collect();
    let mut results = Vec::new();
    for sweep in &sweeps {
        let round_probes = match sweep.pair_rounds.is_empty() {
            true => &round_states,
            false => &sweep.pair_rounds,
        };
        let mut r = method_result(
            sweep,
            &plan,
            ctx.clock.read_overhead_ns,
            round_probes,
            &around,
        );
        if let Some(f) = r.fits.first_mut() {
            f.params.insert(HINT_PARAM.into(), hint_ns);
        }
        r.distance_class = (cpus.len() >= 2)
            .then(|| ctx.topology.distance(cpus[0], cpus[1]))
            .flatten();
        results.push(r);
    }
    if let Some(w) = probe_warning(&states) {
        results.iter_mut().for_each(|r| r.warnings.push(w.clone()));
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(results)
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

/// A fit parameter: what one spin-loop hint took on the master's CPU, ns
/// ([`Poll::hint_pause_ns`]), the granularity at which spin-hint's waiter
/// (and parking_lot's spinning lock) sees a flag change.
const HINT_PARAM: &str = "spin_hint_pause_ns";

/// Rounds at least, whatever the trials: the bootstrap needs several.
pub(crate) const ROUNDS_AT_LEAST: usize = 9;

#[cfg(test)]
#[path = "sync_tests.rs"]
mod tests;
