//! What a kernel does, counted from the budgets it runs with, for the run
//! plan ([`super::plan`]): every kernel's [`KernelSpec`](super::KernelSpec)
//! carries its own estimate, a function of the [`Budgets`] that returns its
//! [`Estimate`] (processor counts, points, pairs and [`Work`]). The
//! estimates count what the kernel does, in the terms it is written in, from
//! the effort policy ([`super::effort`]) and the machine's shape, not
//! calibrated per kernel:
//! - batches: every batched point is calibrated once (about
//!   [`CALIBRATION_TARGETS`] targets: `timing::calibrate` grows its batch
//!   until it lasts the target) and timed `trials` times, each batch about
//!   [`BATCH_OVERRUN`] targets long (the calibration aims 20 % over, the
//!   batches after it are trimmed to about the target), the first of them
//!   the calibration's last batch where the kernel times in rounds
//!   (`timing::RoundBatch`); probes count as fractions of a point (a
//!   quarter-target batch is 0.25);
//! - scheduled seconds, which the method sets itself: the decomposition's
//!   `Q(SENDTIME)` and `Q(COMPTIME)` per iteration, the interference's
//!   computations, ping-pong's single round trips, the vectors' first touch,
//!   the speedup's matrix products;
//! - team starts ([`TEAM_START_S`] each).
//!
//! The few rates a scheduled time needs (a round trip, a copy, a flop, a
//! first touch) are constants of the harness ([`Rates::REFERENCE`]), not of
//! any one kernel.

use super::RunConfig;
use super::effort::Effort;
use crate::platform::{ClockInfo, Topology};
use serde::Serialize;

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

/// What a kernel does, counted from its budgets.
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
    pub fn batched(points: f64, trials: usize, target_s: f64) -> Work {
        Work::of_batches(points, points * trials.saturating_sub(1) as f64, target_s)
    }

    /// `points` calibrated points and `batches` timed batches in all, each
    /// [`BATCH_OVERRUN`] targets of `target_s` long.
    pub fn of_batches(points: f64, batches: f64, target_s: f64) -> Work {
        Work {
            batches,
            batch_targets: batches * BATCH_OVERRUN,
            calibrations: points,
            target_s,
            ..Work::default()
        }
    }

    /// The same batches run `overrun` targets long each.
    pub fn overrun(mut self, overrun: f64) -> Work {
        self.batch_targets = self.batches * overrun;
        self
    }

    /// The same points on ranks that share CPUs: [`SHARED_OVERRUN`] batches
    /// and the commands of `trials` rounds ([`SHARED_COMMAND_S`]).
    pub fn shared(self, trials: usize) -> Work {
        let commands = self.calibrations * (3 * trials + 3) as f64;
        self.overrun(SHARED_OVERRUN)
            .plus(commands * SHARED_COMMAND_S, 0)
    }

    /// `points` batched points calibrated apart from their `trials`
    /// batches (the pair sweeps' and the sync grains' calibration pass).
    pub fn calibrated_apart(points: f64, trials: usize, target_s: f64) -> Work {
        Work::of_batches(points, points * trials as f64, target_s)
    }

    /// This work and `other` (on the same target).
    pub fn and(mut self, other: Work) -> Work {
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
    pub fn times(mut self, n: f64) -> Work {
        self.batches *= n;
        self.batch_targets *= n;
        self.calibrations *= n;
        self.scheduled_s *= n;
        self.teams = (self.teams as f64 * n).round() as usize;
        self
    }

    /// With `s` scheduled seconds and `teams` team starts more.
    pub fn plus(mut self, s: f64, teams: usize) -> Work {
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

/// What every kernel's estimate reads: the run's settings and effort, the
/// reference rates, trials, the batch target, the transports, the CPUs, and
/// the plan's sampling (c2c's pairs per kind, the collectives' largest
/// processor count).
#[derive(Debug, Clone)]
pub struct Budgets<'a> {
    /// The machine and the run.
    pub shape: &'a Shape<'a>,
    /// The run's settings.
    pub config: &'a RunConfig,
    /// The effort policy the run reads.
    pub effort: &'static Effort,
    /// The reference rates.
    pub r: &'static Rates,
    /// Trials (rounds) per point.
    pub trials: usize,
    /// The batch target, s.
    pub tgt: f64,
    /// The transports, at least one.
    pub t: f64,
    /// The CPUs, at least one.
    pub cpus: usize,
    /// The CPUs in the order a sweep takes them.
    pub order: Vec<usize>,
    /// c2c's pairs per kind (distance class and core types; `None`: all).
    pub per_kind: Option<usize>,
    /// The largest processor count of the collectives.
    pub max_p: usize,
}

impl<'a> Budgets<'a> {
    /// The budgets on `shape`, sampled to `per_kind` and `max_p`.
    pub fn of(shape: &'a Shape<'a>, per_kind: Option<usize>, max_p: usize) -> Self {
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
            order: shape.topology.sweep_order(shape.cpus),
            per_kind,
            max_p,
        }
    }

    /// The user's sizes, else `default`.
    pub fn user(&self, default: &[usize]) -> Vec<usize> {
        self.config
            .sizes
            .clone()
            .unwrap_or_else(|| default.to_vec())
    }

    /// `points` batched points of the run's trials.
    pub fn batched(&self, points: f64) -> Work {
        Work::batched(points, self.trials, self.tgt)
    }

    /// The pair probe around a kernel.
    pub fn around(&self) -> Work {
        probed_around(self.trials, self.tgt)
    }

    /// The CPUs a sweep of up to `max_p` processors may use.
    pub fn processors_up_to(&self) -> usize {
        self.order.len().min(self.max_p)
    }
}

/// A kernel's part of the plan: what it sweeps and what it does.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The processor counts it sweeps (2 for a pair kernel).
    pub processors: Vec<usize>,
    /// Its points.
    pub points: usize,
    /// The CPU pairs it measures (c2c), of how many.
    pub pairs: Option<(usize, usize)>,
    /// Whether it runs on every CPU of the sweep order (c2c), else on as
    /// many as its largest processor count.
    pub every_cpu: bool,
    /// What it does.
    pub work: Work,
}

impl Estimate {
    /// A kernel of one point on a pair of CPUs.
    pub fn pair(work: Work) -> Estimate {
        Estimate {
            processors: vec![2],
            points: 1,
            pairs: None,
            every_cpu: false,
            work,
        }
    }

    /// A kernel of a point per processor count of `processors`.
    pub fn over(processors: Vec<usize>, work: Work) -> Estimate {
        Estimate {
            points: processors.len(),
            processors,
            pairs: None,
            every_cpu: false,
            work,
        }
    }
}

/// The pair probe around a kernel (`probe::around`): two batched points on
/// a team of their own.
pub fn probed_around(trials: usize, target_s: f64) -> Work {
    Work::batched(2.0, trials, target_s).plus(0.0, 2)
}

/// The work `at(p)` of every processor count in `ps`, [`Work::shared`] on
/// more ranks than `cpus`.
pub fn per_p_teams(ps: &[usize], cpus: usize, trials: usize, at: impl Fn(usize) -> Work) -> Work {
    ps.iter().fold(Work::default(), |w, &p| {
        let one = at(p);
        w.and(if p > cpus { one.shared(trials) } else { one })
    })
}

/// Single round trips of `sizes`, `count` each.
pub fn single_round_trips(sizes: &[usize], count: u64, r: &Rates) -> f64 {
    sizes
        .iter()
        .map(|&b| count as f64 * (r.round_trip_s + 2.0 * b as f64 / r.copy_bytes_per_s))
        .sum()
}
