//! The run plan: for this machine and these options, which kernels run, on
//! which processors and pairs, and how long each takes, before anything is
//! timed (`halfperf run --plan`, and the head of every run); and the sampling
//! that keeps a plan within its budget (`--max-minutes`; by default a minute
//! for `--quick`, twenty for a full run, each repetition).
//!
//! Each kernel's estimate is computed from the budgets it runs with (the
//! effort policy, [`super::effort`], and the machine's shape), not
//! calibrated per kernel: [`work`] counts what the kernel does, in the same
//! terms the kernel is written in:
//! - batches: every batched point is calibrated once (about
//!   [`CALIBRATION_TARGETS`] targets: `timing::calibrate` grows its batch
//!   until it lasts the target) and timed `trials` times, each batch about
//!   [`BATCH_OVERRUN`] targets long (the calibration aims 20 % over, the
//!   batches after it are trimmed to about the target), the
//!   first of them the calibration's last batch where the kernel times in
//!   rounds (`timing::RoundBatch`); probes count as fractions of a point (a
//!   quarter-target batch is 0.25);
//! - scheduled seconds, which the method sets itself: the decomposition's
//!   `Q(SENDTIME)` and `Q(COMPTIME)` per iteration, the interference's
//!   computations, ping-pong's single round trips, the vectors' first touch,
//!   the speedup's matrix products;
//! - team starts ([`TEAM_START_S`] each).
//!
//! The few rates a scheduled time needs (a round trip, a copy, a flop, a
//! first touch) are constants of the harness ([`Rates::REFERENCE`]), not
//! of any one kernel. A plan of `--repeat K` repeats every kernel K times.
//! The total adds the run's own costs outside its kernels ([`fixed_costs`]:
//! the preheat, the clock measurements, the load check's idle samples).
//! `scripts/plan-check.sh` sets the plan beside a timed quick run, kernel by
//! kernel.
//!
//! Sampling, in order, until the plan fits: c2c's pairs per kind (distance
//! class and core types) down to one; the CoMet collectives' processor
//! counts down to their base list. A plan whose smallest form does not fit is
//! refused. Invariants: sampling never removes a kernel or a distance class;
//! the plan's c2c pairs are the kernel's ([`c2c_pairs`] serves both).

pub use super::effort::{C2C_QUICK_PER_KIND, collective_processors};
pub use super::harness::pair::c2c_pairs;
use super::{KernelSpec, RunConfig};
use crate::platform::{ClockInfo, Topology};
use serde::Serialize;
use std::time::Duration;

/// A timed batch's length over its target on CPUs of its own: the
/// calibration's last batch aims 20 % past the target (`timing::next_reps`),
/// and the batches after it are trimmed to `timing::TRIM_AIM` (1.08) at
/// the calibration's fastest batch's speed; a few stray beyond it.
pub const BATCH_OVERRUN: f64 = 1.1;

/// The same for ranks that share CPUs (virtual processors): a hand-over
/// that waits for its rank's turn stretches some batches up to the four
/// targets `timing::resized_reps` allows (1.4 to 1.8).
pub const SHARED_OVERRUN: f64 = 1.6;

/// A command from rank 0 (CoMet's sweep: check, batch, check each round,
/// and about three batches to calibrate) to ranks that share CPUs and
/// sleep between commands: their wake-ups, s.
pub const SHARED_COMMAND_S: f64 = 0.0005;

/// The same for a pair timed beside a load on the same CPUs (comet-contention
/// under 50 % and 90 % load).
pub const LOADED_OVERRUN: f64 = 2.0;

/// A command from rank 0 to a rank whose CPU also runs a spinning load
/// (comet-contention on fewer than four CPUs): it waits for the scheduler
/// to give that rank its CPU, about a time slice, s. A loaded point takes
/// three such commands a round (check, batch, check) and about three to
/// calibrate.
pub const LOADED_HANDOVER_S: f64 = 0.007;

/// A point's calibration, in targets: the batches that grow to the target
/// (the last about 1.2 targets long, the ones before it a fraction), and
/// the second look a batch of under a thousand repetitions takes where the
/// batch before it did not predict it.
pub const CALIBRATION_TARGETS: f64 = 1.5;

/// Starting a team of threads (spawn, pin, first handshake), s.
pub const TEAM_START_S: f64 = 0.002;

/// Why no plan fits.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The budget is not a positive number of minutes.
    #[error("--max-minutes must be above 0 (got {0})")]
    BadBudget(f64),
    /// Even the smallest sampling takes longer than the budget.
    #[error(
        "the plan cannot fit in {budget_min} min: its smallest form (one c2c pair per kind, the base processor counts) takes {smallest_min:.1} min"
    )]
    TooSmall {
        /// The budget, minutes.
        budget_min: f64,
        /// The smallest plan, minutes.
        smallest_min: f64,
    },
}

/// One kernel in the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelPlan {
    /// The kernel.
    pub kernel: &'static str,
    /// The processor counts it sweeps (2 for a pair kernel).
    pub processors: Vec<usize>,
    /// The CPUs it runs on, in the order it takes them.
    pub cpus: Vec<usize>,
    /// The CPU pairs it measures (c2c), of how many.
    pub pairs: Option<(usize, usize)>,
    /// Its points.
    pub points: usize,
    /// What it does, counted from its budgets.
    pub work: Work,
    /// Estimated time of one repetition, s.
    pub estimate_s: f64,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunPlan {
    /// The kernels in order.
    pub kernels: Vec<KernelPlan>,
    /// The budget, s.
    pub budget_s: f64,
    /// Repetitions of the whole suite (`--repeat`).
    pub repeat: u32,
    /// The run's own costs around the kernels ([`fixed_costs`]).
    pub fixed: Vec<FixedCost>,
    /// The kernels' estimates times the repetitions, and the fixed costs, s.
    pub total_s: f64,
    /// What was sampled to fit, one line each.
    pub sampled: Vec<String>,
    /// c2c's pairs per kind (`None`: every pair).
    pub c2c_per_kind: Option<usize>,
    /// The largest processor count of the CoMet collectives.
    pub max_processors: usize,
}

/// One of a run's costs outside its kernels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixedCost {
    /// What it is.
    pub what: &'static str,
    /// How long it takes, s.
    pub seconds: f64,
}

/// Clock reads of one [`crate::platform::measure_clock`] (20 batches of
/// 10,000 for the overhead, 100,000 for the resolution); a run measures the
/// clock twice (for the plan, then for the kernels).
const CLOCK_READS: f64 = 300_000.0;

/// The run's costs outside its kernels, for kernels estimated at
/// `kernels_s` each, in the order they run (every repetition): the preheat
/// (`config.preheat_ms`), the two clock measurements, and the idle samples
/// of the load check (one before the first kernel, and one before every
/// kernel that starts [`super::IDLE_SAMPLE_REUSE`] or more after the last
/// sample; on a quiet machine the check reuses its sample that long).
pub fn fixed_costs(shape: &Shape<'_>, kernels_s: &[f64]) -> Vec<FixedCost> {
    let reuse = super::IDLE_SAMPLE_REUSE.as_secs_f64();
    let (mut samples, mut age) = (0.0, f64::INFINITY);
    for &k in kernels_s {
        if age >= reuse {
            samples += 1.0;
            age = 0.0;
        }
        age += k;
    }
    vec![
        FixedCost {
            what: "preheat",
            seconds: shape.config.preheat_ms.unwrap_or(0.0) / 1e3,
        },
        FixedCost {
            what: "clock measurement (twice)",
            seconds: 2.0 * CLOCK_READS * shape.clock.read_overhead_ns * 1e-9,
        },
        FixedCost {
            what: "load check's idle samples",
            seconds: samples * super::IDLE_SAMPLE.as_secs_f64(),
        },
    ]
}

/// What a kernel does, counted from its budgets ([`work`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Work {
    /// Timed batches of the target (a quarter-target probe counts 0.25).
    pub batches: f64,
    /// Their length in targets ([`BATCH_OVERRUN`], [`SHARED_OVERRUN`] or
    /// [`LOADED_OVERRUN`] each).
    pub batch_targets: f64,
    /// Calibrations of a batch to the target.
    pub calibrations: f64,
    /// The batch target, s.
    pub target_s: f64,
    /// Seconds the method schedules itself (computations of a set length,
    /// single round trips, first touch of its vectors).
    pub scheduled_s: f64,
    /// Teams started.
    pub teams: usize,
}

impl Work {
    /// `points` batched points of `trials` batches each, on `target_s`, the
    /// first batch of each its calibration's last (`timing::RoundBatch`,
    /// `timing::measure`).
    fn batched(points: f64, trials: usize, target_s: f64) -> Work {
        Work::of_batches(points, points * trials.saturating_sub(1) as f64, target_s)
    }

    /// `points` calibrated points and `batches` timed batches in all, each
    /// [`BATCH_OVERRUN`] targets of `target_s` long.
    fn of_batches(points: f64, batches: f64, target_s: f64) -> Work {
        Work {
            batches,
            batch_targets: batches * BATCH_OVERRUN,
            calibrations: points,
            target_s,
            ..Work::default()
        }
    }

    /// The same batches run `overrun` targets long each.
    fn overrun(mut self, overrun: f64) -> Work {
        self.batch_targets = self.batches * overrun;
        self
    }

    /// The same points on ranks that share CPUs: [`SHARED_OVERRUN`] batches
    /// and the commands of `trials` rounds ([`SHARED_COMMAND_S`]).
    fn shared(self, trials: usize) -> Work {
        let commands = self.calibrations * (3 * trials + 3) as f64;
        self.overrun(SHARED_OVERRUN)
            .plus(commands * SHARED_COMMAND_S, 0)
    }

    /// `points` batched points calibrated apart from their `trials`
    /// batches (the pair sweeps' and the sync grains' calibration pass).
    fn calibrated_apart(points: f64, trials: usize, target_s: f64) -> Work {
        Work::of_batches(points, points * trials as f64, target_s)
    }

    /// This work and `other` (on the same target).
    fn and(mut self, other: Work) -> Work {
        self.batches += other.batches;
        self.batch_targets += other.batch_targets;
        self.calibrations += other.calibrations;
        self.scheduled_s += other.scheduled_s;
        self.teams += other.teams;
        if self.target_s == 0.0 {
            self.target_s = other.target_s;
        }
        self
    }

    /// This work `n` times.
    fn times(mut self, n: f64) -> Work {
        self.batches *= n;
        self.batch_targets *= n;
        self.calibrations *= n;
        self.scheduled_s *= n;
        self.teams = (self.teams as f64 * n).round() as usize;
        self
    }

    /// With `s` scheduled seconds and `teams` team starts more.
    fn plus(mut self, s: f64, teams: usize) -> Work {
        self.scheduled_s += s;
        self.teams += teams;
        self
    }

    /// Its time, s.
    pub fn seconds(&self) -> f64 {
        (self.batch_targets + self.calibrations * CALIBRATION_TARGETS) * self.target_s
            + self.scheduled_s
            + self.teams as f64 * TEAM_START_S
    }
}

/// The rates a scheduled time needs: constants of the harness on the
/// reference machine (a 2-vCPU x86 VM), shared by every kernel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// One small round trip between two CPUs, with its clock reads, s.
    pub round_trip_s: f64,
    /// Bytes a second a message copy moves between two CPUs.
    pub copy_bytes_per_s: f64,
    /// Bytes a second a first touch and fill of fresh memory writes.
    pub fill_bytes_per_s: f64,
    /// Bytes a second a pass over vectors in memory moves.
    pub stream_bytes_per_s: f64,
    /// Flop a second of the speedup's block product on one CPU.
    pub flop_per_s: f64,
    /// A decomposition iteration's cost beyond its `Q`s (messages through
    /// the hosted nodes, polls, the cache wash), s.
    pub hosted_iteration_s: f64,
    /// How much one stream through a hosted node stretches its computation.
    pub stream_slowdown: f64,
    /// A transport's 8-byte round trip over the two flags' round trip.
    pub over_flags: f64,
}

impl Rates {
    /// The reference machine's.
    pub const REFERENCE: Rates = Rates {
        round_trip_s: 0.4e-6,
        copy_bytes_per_s: 10e9,
        fill_bytes_per_s: 2e9,
        stream_bytes_per_s: 10e9,
        flop_per_s: 6e9,
        hosted_iteration_s: 35e-6,
        stream_slowdown: 0.3,
        over_flags: 4.0,
    };
}

/// What a plan is computed for.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// The machine.
    pub topology: &'a Topology,
    /// The CPUs the run may use.
    pub cpus: &'a [usize],
    /// The run's settings.
    pub config: &'a RunConfig,
    /// The clock (for the batch target's floor).
    pub clock: &'a ClockInfo,
    /// Repetitions of the whole suite (`--repeat`, 1 by default).
    pub repeat: u32,
}

/// Rank 0's `Q(SENDTIME)`s in one iteration of each experiment at a size
/// (`rank0.rs`): five busy echoes of three, five idle echoes of two, tests
/// 2 to 4 with three and two `Q(COMPTIME)`s (13), test 5 with two and two
/// (12), test 6 and its system variant one each.
const DECOMPOSITION_SENDTIMES: [u64; 14] = [3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 13, 12, 1, 1];

/// The pair probe around a kernel (`probe::around`): two batched points on
/// a team of their own.
fn probed_around(trials: usize, target_s: f64) -> Work {
    Work::batched(2.0, trials, target_s).plus(0.0, 2)
}

/// The work `at(p)` of every processor count in `ps`, [`Work::shared`] on
/// more ranks than `cpus`.
fn per_p_teams(ps: &[usize], cpus: usize, trials: usize, at: impl Fn(usize) -> Work) -> Work {
    ps.iter().fold(Work::default(), |w, &p| {
        let one = at(p);
        w.and(if p > cpus { one.shared(trials) } else { one })
    })
}

/// Single round trips of `sizes`, `count` each.
fn single_round_trips(sizes: &[usize], count: u64, r: &Rates) -> f64 {
    sizes
        .iter()
        .map(|&b| count as f64 * (r.round_trip_s + 2.0 * b as f64 / r.copy_bytes_per_s))
        .sum()
}

/// What `kernel` does on `shape`, with c2c's `pairs` (and `homes` per
/// pair) and the collectives' processor counts `ps`: counted from the
/// effort policy as the kernel reads it, by method.
pub fn work(kernel: &str, shape: &Shape<'_>, pairs: usize, ps: &[usize]) -> Work {
    let b = &Budgets::of(shape);
    match kernel {
        "pingpong" | "oneway" | "c2c" | "sci-topology" => scibench(kernel, b, pairs),
        "hockney-vector" | "hockney-sync" | "hockney-program" => hockney(kernel, b),
        "decomposition" | "interference" | "overheads" => krumme_greenfield(kernel, b),
        k if k.starts_with("comet-") => comet(kernel, b, ps),
        _ => others(kernel, b, ps),
    }
}

/// What every kernel's count reads: the run's settings and effort, the
/// reference rates, trials, the batch target (s), the transports and the
/// CPUs.
#[derive(Clone, Copy)]
struct Budgets<'a> {
    shape: &'a Shape<'a>,
    config: &'a RunConfig,
    effort: &'static super::effort::Effort,
    r: &'static Rates,
    trials: usize,
    tgt: f64,
    t: f64,
    cpus: usize,
}

impl<'a> Budgets<'a> {
    fn of(shape: &'a Shape<'a>) -> Self {
        let config = shape.config;
        Budgets {
            shape,
            config,
            effort: config.effort(),
            r: &Rates::REFERENCE,
            trials: config.trials(),
            tgt: config.batch_target(shape.clock).as_secs_f64(),
            t: config.transports.len().max(1) as f64,
            cpus: shape.cpus.len().max(1),
        }
    }

    /// The user's sizes, else `default`.
    fn user(&self, default: &[usize]) -> Vec<usize> {
        self.config
            .sizes
            .clone()
            .unwrap_or_else(|| default.to_vec())
    }

    /// `points` batched points of the run's trials.
    fn batched(&self, points: f64) -> Work {
        Work::batched(points, self.trials, self.tgt)
    }

    /// The pair probe around a kernel.
    fn around(&self) -> Work {
        probed_around(self.trials, self.tgt)
    }
}

/// scibench's pair kernels and SCI topology.
fn scibench(kernel: &str, b: &Budgets<'_>, pairs: usize) -> Work {
    match kernel {
        "pingpong" | "oneway" => {
            let sizes = b.user(&super::scibench::default_sizes());
            // Per transport: every size, the pair probe, the copy probe (a
            // quarter target), all in one team.
            let apart = |points: f64| Work::calibrated_apart(points, b.trials, b.tgt);
            let mut w = apart(sizes.len() as f64 + 1.25).times(b.t).plus(0.0, 1);
            if kernel == "pingpong" {
                let singles = single_round_trips(&sizes, b.effort.single_round_trips, b.r);
                // The two-flag baseline: its point, then per transport a
                // transport batch and a flags batch each trial, both of the
                // flags' repetitions (the transport's batch the longer by
                // its round trip over the flags').
                let paired = 2.0 * b.t * b.trials as f64;
                let base = b.batched(1.0).and(Work {
                    batches: paired,
                    batch_targets: paired / 2.0 * (1.0 + b.r.over_flags) * BATCH_OVERRUN,
                    ..Work::default()
                });
                w = w.plus(singles * b.t, 1).and(base);
            }
            w
        }
        "c2c" => Work::calibrated_apart(2.25, b.trials, b.tgt)
            .plus(single_round_trips(&[8], 1_000, b.r), 1)
            .times(pairs as f64),
        "sci-topology" => {
            let sizes = b.user(b.effort.sci_sizes);
            let experiments = super::scibench::size_sweep_experiments().len() as f64;
            // l_p, an untimed first experiment, the size sweep, the rings.
            b.batched(
                1.0 + (1.0 + experiments) * sizes.len() as f64
                    + super::scibench::RING_SIZES.count() as f64,
            )
            .plus(0.0, 1)
        }
        _ => b.batched(1.0),
    }
}

/// Hockney's vector, sync and program kernels.
fn hockney(kernel: &str, b: &Budgets<'_>) -> Work {
    match kernel {
        "hockney-vector" => {
            let cpu = b.shape.cpus.first().copied().unwrap_or(0);
            let caches = b.shape.topology.data_cache_sizes(cpu);
            let plan = super::hockney::VectorPlan::for_run(
                b.config.quick,
                &caches,
                b.trials,
                b.config.batch_target(b.shape.clock),
            );
            let ops = super::hockney::Operation::ALL;
            let mut w = Work::default();
            for bytes in [8usize, 4] {
                let lengths: usize = ops
                    .iter()
                    .map(|op| plan.lengths(op.arrays() * bytes, &caches).0.len())
                    .sum();
                // Every length, and each operation's rate probe (a
                // quarter target, calibrated apart) once a round.
                let probes = 0.25 * ops.len() as f64;
                w = w
                    .and(b.batched(lengths as f64))
                    .and(Work::calibrated_apart(probes, b.trials, b.tgt));
            }
            // Four vectors of a third of the largest working set each, in
            // both precisions, written once; the STREAM triad over them.
            let ws = plan.max_working_set as f64;
            let fill = 2.0 * 4.0 / 3.0 * ws / b.r.fill_bytes_per_s;
            let stream = b.trials.max(3) as f64 * ws / b.r.stream_bytes_per_s;
            w.plus(fill + stream, 1)
        }
        "hockney-sync" | "hockney-program" => {
            let rounds = b.trials.max(super::hockney::sync::ROUNDS_AT_LEAST);
            let methods = super::hockney::Method::ALL;
            let mut w = Work::default();
            for m in methods {
                let grains = (b.effort.sync_points + super::hockney::sync::LONG_GRAINS) as f64;
                let asleep = if m.two_regimes() {
                    super::hockney::ASLEEP_GRAINS as f64
                } else {
                    0.0
                };
                // A round: every grain, the asleep grains, the pair probe
                // (a quarter), the system-call probe (an eighth), the rate
                // probe (a quarter), calibrated apart; first two pilots of
                // three batches.
                let per_round = grains + asleep + 0.625;
                w = w
                    .and(Work::calibrated_apart(per_round, rounds, b.tgt))
                    .and(Work::batched(2.0, 3, b.tgt));
            }
            w.plus(0.0, 1)
        }
        _ => b.batched(1.0),
    }
}

/// Krumme & Greenfield's decomposition, interference and overheads.
fn krumme_greenfield(kernel: &str, b: &Budgets<'_>) -> Work {
    match kernel {
        "decomposition" => {
            let sizes = b.user(b.effort.decomposition_sizes);
            let reps = b
                .config
                .trials
                .unwrap_or(b.effort.decomposition_repetitions) as f64;
            let per_round = b
                .effort
                .decomposition_notimes
                .div_ceil(b.effort.decomposition_rounds as u64)
                + 1;
            let iterations = (DECOMPOSITION_SENDTIMES.len() as u64 * per_round) as f64;
            let q: f64 = DECOMPOSITION_SENDTIMES.iter().sum::<u64>() as f64
                * per_round as f64
                * super::decomposition::SENDTIME.as_secs_f64();
            let per_size =
                b.effort.decomposition_rounds as f64 * (q + iterations * b.r.hosted_iteration_s);
            // Per transport, both Q loops, every repetition and size; a
            // pair probe after each (3 batches of 500 flag round trips and
            // 10 of 64 KiB: its `PROBE_*`).
            let runs = b.t * 2.0 * reps * sizes.len() as f64;
            let probe = 3.0 * single_round_trips(&[0], 500, b.r)
                + 3.0 * single_round_trips(&[65_536], 10, b.r);
            Work::default().plus(runs * (per_size + probe), 2 + runs as usize)
        }
        "interference" => {
            let trials = b.config.trials.unwrap_or(b.effort.interference_trials) as f64;
            // Each stream stretches the computation (what the kernel
            // measures; a third of its length a stream on the reference).
            let stretched: f64 = super::decomposition::INTERFERENCE_STREAMS
                .iter()
                .map(|&k| 1.0 + b.r.stream_slowdown * k as f64)
                .sum();
            let computations = trials * stretched;
            let test5 = (b.effort.interference_reps + 1) as f64
                * 12.0
                * super::decomposition::SENDTIME.as_secs_f64();
            let duration = b.effort.interference_duration_ms as f64 * 1e-3;
            Work::default().plus(b.t * (computations * duration + test5), 1 + b.t as usize)
        }
        "overheads" => {
            // Per transport, an untimed warm-up round and every trial: each
            // size's send, receive and cold batches, each bursts until the
            // target (no calibration), inside one probed team.
            let sizes = b.user(&super::decomposition::OVERHEADS_SIZES);
            let batches = b.t * (b.trials + 1) as f64 * sizes.len() as f64 * 3.0;
            Work::of_batches(0.0, batches, b.tgt)
                .plus(0.0, 1)
                .and(b.around().times(b.t))
        }
        _ => b.batched(1.0),
    }
}

/// CoMet's kernels, the collectives over the processor counts `ps`.
fn comet(kernel: &str, b: &Budgets<'_>, ps: &[usize]) -> Work {
    match kernel {
        "comet-echo" => {
            let hops = b.effort.comet_echo_hops;
            let (dense, coarse) = match &b.config.sizes {
                Some(s) => (s.len(), s.len()),
                None => (
                    b.effort.comet_echo_sizes.len(),
                    b.effort.comet_coarse_sizes.len(),
                ),
            };
            let classes = b.shape.topology.pairs_by_class(b.shape.cpus).len().max(1);
            // The pairs' curves, then the chain of `hops + 1` ranks.
            let chain = b.batched(b.t * (hops * coarse) as f64);
            b.batched(b.t * (classes * dense) as f64)
                .and(if hops + 1 > b.cpus {
                    chain.shared(b.trials)
                } else {
                    chain
                })
                .plus(0.0, classes + 1)
                .and(b.around())
        }
        "comet-exchange" => {
            let sizes = b.user(b.effort.comet_echo_sizes);
            b.batched(b.t * sizes.len() as f64)
                .plus(0.0, 1)
                .and(b.around())
        }
        "comet-contention" => {
            let sizes = b.user(b.effort.comet_coarse_sizes);
            let curve = b.effort.comet_echo_sizes.len();
            // The unloaded curve on a pair, then the sizes on a team of
            // four under no load, 50 % and 90 %.
            let shared = 4 > b.cpus;
            let sizes = sizes.len() as f64;
            let (unloaded, loaded) = (b.batched(b.t * sizes), b.batched(2.0 * b.t * sizes));
            let team = match shared {
                true => {
                    let handovers = loaded.calibrations * (3 * b.trials + 3) as f64;
                    unloaded
                        .shared(b.trials)
                        .and(loaded.overrun(LOADED_OVERRUN))
                        .plus(handovers * LOADED_HANDOVER_S, 0)
                }
                false => unloaded.and(loaded),
            };
            b.batched(b.t * curve as f64)
                .and(team)
                .plus(0.0, 2)
                .and(b.around())
        }
        "comet-overlap" => {
            let sizes = b.user(b.effort.comet_overlap_sizes);
            // Every size by every length, synchronous then asynchronous.
            let n = 2 * sizes.len() * b.effort.comet_overlap_lengths.len();
            b.batched(b.t * n as f64).plus(0.0, 1).and(b.around())
        }
        "comet-broadcast" | "comet-global-sum" => {
            let params = match (kernel, &b.config.sizes) {
                (_, Some(s)) => s.len(),
                ("comet-broadcast", None) => b.effort.comet_coarse_sizes.len(),
                _ => b.effort.comet_sum_lengths.len(),
            };
            // Two algorithms, a team per P.
            let teams = 2 * b.t as usize * ps.len();
            let per_p = 2.0 * b.t * params as f64;
            per_p_teams(ps, b.cpus, b.trials, |_| b.batched(per_p))
                .plus(0.0, teams)
                .and(b.around())
        }
        "comet-barrier" => {
            // Central, dissemination per transport, std: a point per P.
            let kinds = 2 + b.t as usize;
            per_p_teams(ps, b.cpus, b.trials, |_| b.batched(kinds as f64))
                .plus(0.0, kinds * ps.len())
                .and(b.around())
        }
        "comet-update-guard" | "comet-transpose" | "comet-shift" | "comet-row-col-broadcast" => {
            let ops = match kernel {
                "comet-shift" | "comet-row-col-broadcast" => 2,
                _ => 1,
            };
            let ps = b.effort.comet_matrix_processors;
            let teams = ops * b.t as usize * ps.len();
            let per_p = (ops * b.t as usize * b.effort.comet_local_orders.len()) as f64;
            per_p_teams(ps, b.cpus, b.trials, |_| b.batched(per_p))
                .plus(0.0, teams)
                .and(b.around())
        }
        _ => b.batched(1.0),
    }
}

/// The speedup (over its rank counts `ps`) and the soak.
fn others(kernel: &str, b: &Budgets<'_>, ps: &[usize]) -> Work {
    match kernel {
        "speedup" => {
            let m = b.effort.speedup_order as f64;
            let units: f64 = b.effort.speedup_loads.iter().map(|&x| f64::from(x)).sum();
            // Every rank count computes the product `load` times, split
            // over N ranks sharing the CPUs.
            let products: f64 = ps
                .iter()
                .map(|&n| units * 2.0 * m * m * m / b.r.flop_per_s / n.min(b.cpus) as f64)
                .sum();
            let computing = b.t * b.effort.speedup_runs as f64 * products;
            // T_ML: every round builds a chain per hop count and times a
            // batch of every size (the blocks of N > 1 and 64 B) on it;
            // around it, the pair and copy probes twice each.
            let sizes = ps.iter().filter(|&&n| n > 1).count() as f64 + 1.0;
            let chains = b
                .batched(super::speedup::MAX_HOPS as f64 * sizes)
                .plus(0.0, b.trials * super::speedup::MAX_HOPS)
                .and(b.around())
                .and(b.around());
            chains.times(b.t).plus(computing, (b.t as usize) * ps.len())
        }
        "soak" => {
            // Its messages (the soak sets no target), each sent, checked and
            // received.
            let messages = b
                .config
                .soak_messages
                .unwrap_or(super::reliability::DEFAULT_MESSAGES) as f64;
            Work::default().plus(messages * SOAK_MESSAGE_S, 1)
        }
        _ => b.batched(1.0),
    }
}

/// One soak message of its mixed sizes, s (a full soak took about a minute
/// on the reference machine).
const SOAK_MESSAGE_S: f64 = 5e-6;

/// The budget of `kernel` on `shape` with c2c's `per_kind` and the
/// collectives' `max_p`: one entry of the plan.
pub fn budget(
    kernel: &'static str,
    shape: &Shape<'_>,
    per_kind: Option<usize>,
    max_p: usize,
) -> KernelPlan {
    let order = shape.topology.sweep_order(shape.cpus);
    let (processors, points, pairs) = match kernel {
        "c2c" => {
            let all = order.len() * order.len().saturating_sub(1) / 2;
            let n = c2c_pairs(shape.topology, &order, per_kind).len();
            // With `--home third` every pair is timed twice.
            let homes = match shape.config.home {
                crate::platform::Home::Third => 2,
                _ => 1,
            };
            (vec![2], n * homes, Some((n, all)))
        }
        "comet-broadcast" | "comet-global-sum" | "comet-barrier" => {
            let ps = collective_processors(shape.config.quick, order.len().min(max_p));
            let n = ps.len();
            (ps, n, None)
        }
        "speedup" => {
            let ps = super::speedup::speedup_processors(shape.config.quick, order.len().min(max_p));
            let n = ps.len();
            (ps, n, None)
        }
        _ => (vec![2], 1, None),
    };
    let work = work(kernel, shape, points, &processors);
    let used = processors
        .iter()
        .copied()
        .max()
        .unwrap_or(2)
        .min(order.len());
    KernelPlan {
        kernel,
        cpus: match kernel {
            "c2c" => order.clone(),
            _ => order[..used].to_vec(),
        },
        processors,
        pairs,
        points,
        estimate_s: work.seconds(),
        work,
    }
}

/// The plan of `kernels` on `shape` within `max_minutes` (default: 1 for a
/// quick run, 20 otherwise, per repetition), sampling as the module says.
pub fn plan(
    kernels: &[&KernelSpec],
    shape: &Shape<'_>,
    max_minutes: Option<f64>,
) -> Result<RunPlan, PlanError> {
    // The default budget is per repetition; `--max-minutes` is the whole
    // run's.
    let per_repetition = if shape.config.quick { 1.0 } else { 20.0 };
    let budget_min = max_minutes.unwrap_or(per_repetition * f64::from(shape.repeat.max(1)));
    if !(budget_min > 0.0 && budget_min.is_finite()) {
        return Err(PlanError::BadBudget(budget_min));
    }
    let budget_s = budget_min * 60.0;
    let repeat = f64::from(shape.repeat.max(1));
    let build = |per_kind: Option<usize>, max_p: usize| {
        let ks: Vec<KernelPlan> = kernels
            .iter()
            .map(|k| budget(k.name, shape, per_kind, max_p))
            .collect();
        let total = repeat * ks.iter().map(|k| k.estimate_s).sum::<f64>();
        (ks, total)
    };
    let full_p = shape.cpus.len().max(2);
    let first = if shape.config.quick {
        Some(
            shape
                .config
                .c2c_pairs_per_kind
                .unwrap_or(C2C_QUICK_PER_KIND),
        )
    } else {
        shape.config.c2c_pairs_per_kind
    };
    // Candidate samplings, largest first.
    let mut candidates: Vec<(Option<usize>, usize)> = vec![(first, full_p)];
    let mut n = first.unwrap_or(usize::MAX / 2).min(4096);
    while n > 1 {
        n /= 2;
        candidates.push((Some(n.max(1)), full_p));
    }
    let mut p = full_p;
    while p > 16 {
        p /= 2;
        candidates.push((Some(1), p));
    }
    let mut smallest = f64::INFINITY;
    for (per_kind, max_p) in candidates {
        let (ks, kernels_s) = build(per_kind, max_p);
        let order: Vec<f64> = (0..shape.repeat.max(1))
            .flat_map(|_| ks.iter().map(|k| k.estimate_s))
            .collect();
        let fixed = fixed_costs(shape, &order);
        let total = kernels_s + fixed.iter().map(|f| f.seconds).sum::<f64>();
        smallest = smallest.min(total);
        if total <= budget_s {
            let sampled = describe_sampling(&ks, per_kind, first, max_p, full_p);
            return Ok(RunPlan {
                kernels: ks,
                budget_s,
                repeat: shape.repeat.max(1),
                fixed,
                total_s: total,
                sampled,
                c2c_per_kind: per_kind,
                max_processors: max_p,
            });
        }
    }
    Err(PlanError::TooSmall {
        budget_min,
        smallest_min: smallest / 60.0,
    })
}

fn describe_sampling(
    ks: &[KernelPlan],
    per_kind: Option<usize>,
    first: Option<usize>,
    max_p: usize,
    full_p: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c2c) = ks.iter().find(|k| k.kernel == "c2c")
        && let Some((n, all)) = c2c.pairs
        && n < all
    {
        let why = if per_kind == first {
            "quick mode"
        } else {
            "to fit the budget"
        };
        out.push(format!(
            "c2c: {n} of {all} pairs ({} per distance class and core types, spread over the machine; {why})",
            per_kind.unwrap_or(0)
        ));
    }
    if max_p < full_p {
        out.push(format!(
            "CoMet collectives: processor counts up to {max_p} of {full_p} CPUs (to fit the budget)"
        ));
    }
    out
}

/// `plan` as text: one line per kernel, the total and what was sampled.
pub fn plan_text(p: &RunPlan) -> String {
    use std::fmt::Write;
    let mut s = String::from("plan:\n");
    for k in &p.kernels {
        let pairs = k
            .pairs
            .map(|(n, all)| format!(", {n}/{all} pairs"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {:<24} {:>8}  P {:?}{pairs}, {} CPUs",
            k.kernel,
            fmt_secs(k.estimate_s),
            k.processors,
            k.cpus.len()
        );
    }
    if p.repeat > 1 {
        let each: f64 = p.kernels.iter().map(|k| k.estimate_s).sum();
        let _ = writeln!(
            s,
            "  {:<24} {:>8}  {} repetitions of {}",
            "kernels, repeated",
            fmt_secs(each * f64::from(p.repeat)),
            p.repeat,
            fmt_secs(each)
        );
    }
    for f in &p.fixed {
        let _ = writeln!(s, "  {:<24} {:>8}", f.what, fmt_secs(f.seconds));
    }
    let _ = writeln!(
        s,
        "  total {} of a {} budget",
        fmt_secs(p.total_s),
        fmt_secs(p.budget_s)
    );
    for line in &p.sampled {
        let _ = writeln!(s, "  sampled: {line}");
    }
    s
}

fn fmt_secs(s: f64) -> String {
    humantime_like(Duration::from_secs_f64(s.max(0.0)))
}

fn humantime_like(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}
