//! The decomposition's experiments, what every rank does in each, and their
//! schedule: the sizes, the rounds, and the blocks of iterations within a round.

use super::super::background::Background;
use super::super::protocol::{Block, Op};
use super::lanes::Probe;
use crate::kernels::{KernelError, RunContext, effort};
use std::time::Duration;

/// The paper's message sizes (Tables 1 to 3), bytes.
pub const PAPER_SIZES: [usize; 5] = [16, 500, 1000, 1500, 2000];
/// The longest echo distance: `d = 1..=MAX_DISTANCE` hops.
pub(super) const MAX_DISTANCE: usize = 5;
/// Ranks: rank 0 and one per hop.
pub(super) const RANKS: usize = MAX_DISTANCE + 1;
/// Target length of `Q(SENDTIME)`: long enough for a 64 KiB message to clear and
/// for the neighbour's echo to land inside the `Q(COMPTIME)` that follows.
pub(crate) const SENDTIME: Duration = Duration::from_micros(20);
/// Repetitions of the whole experiment (section 4: "repeated five times").
#[cfg(test)]
pub(super) const REPETITIONS: usize = effort::FULL.decomposition_repetitions;

/// Repetitions of the whole experiment unless `--trials` says: the effort
/// policy's (five; three with `--quick`, the points' medians over three, for
/// a quick suite within its time; every parameter and line is still solved
/// and fitted).
pub(super) fn repetitions(quick: bool) -> usize {
    effort::of(quick).decomposition_repetitions
}

/// Rounds of the experiments at a size: each runs its share of its
/// iterations in each (25 rounds of 4; with `--quick` 10 of 5), in turn with
/// the others, and its figure is the median of all its iterations (see the
/// module doc).
pub(crate) fn rounds(quick: bool) -> usize {
    effort::of(quick).decomposition_rounds
}

/// The full run's rounds.
#[cfg(test)]
pub(super) const ROUNDS: usize = effort::FULL.decomposition_rounds;

/// Timed iterations of each experiment, over all rounds (Appendix A's NOTIMES).
pub(super) fn notimes(quick: bool) -> u64 {
    effort::of(quick).decomposition_notimes
}

/// The sizes a run sweeps: the effort policy's (the paper's and the longer
/// sweep; with `--quick` Table 1's first, middle and last rows and 64 KiB,
/// enough for every line `X0 + X1 n`).
pub(super) fn sizes(ctx: &RunContext<'_>) -> Vec<usize> {
    if let Some(s) = &ctx.config.sizes {
        return s.clone();
    }
    ctx.config.effort().decomposition_sizes.to_vec()
}

/// One experiment of the plan, as both rank 0 and the scripts see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::kernels::decomposition) enum Experiment {
    /// Echo at distance `d`, with `Q` after the writes or idle.
    Echo { d: usize, busy: bool },
    /// Tests 2 to 4.
    Neighbour,
    /// Test 5.
    RPlusS,
    /// Test 6.
    Efu,
    /// Test 6 with rank 1 returning the message in its system.
    EfuSystem,
}

/// The experiments at one size, in rank 0's order.
pub(super) fn experiments_at_size() -> Vec<Experiment> {
    let echo = |busy| (1..=MAX_DISTANCE).map(move |d| Experiment::Echo { d, busy });
    echo(true)
        .chain([
            Experiment::Neighbour,
            Experiment::RPlusS,
            Experiment::Efu,
            Experiment::EfuSystem,
        ])
        .chain(echo(false))
        .collect()
}

/// Rank `rank`'s part of `e` at `reps + 1` iterations; `bg` gives the lengths.
pub(in crate::kernels::decomposition) fn script_of(
    rank: usize,
    e: Experiment,
    reps: u64,
    bg: &Background,
) -> Vec<Block> {
    let (st, times) = (bg.send_chunks, reps + 1);
    let each = |ops: Vec<Op>| vec![Block { ops, times }];
    match e {
        Experiment::Echo { d, .. } if rank < d && rank > 0 => vec![Block::once(vec![
            Op::Route {
                from: rank - 1,
                to: rank + 1,
                count: times,
            },
            Op::Route {
                from: rank + 1,
                to: rank - 1,
                count: times,
            },
            Op::AwaitRoutes,
        ])],
        Experiment::Echo { d, busy: true } if rank == d => each(vec![
            Op::Read(rank - 1),
            Op::Compute(st),
            Op::Write(rank - 1),
            Op::Compute(st),
        ]),
        Experiment::Echo { d, busy: false } if rank == d => {
            each(vec![Op::Read(rank - 1), Op::Write(rank - 1)])
        }
        Experiment::Neighbour if rank == 1 => each(vec![
            Op::Read(0),
            Op::Compute(st),
            Op::Compute(st), // the echo lands inside rank 0's Q(COMPTIME)
            Op::Write(0),
        ]),
        Experiment::Neighbour if rank == 3 => each(vec![Op::Read(0)]),
        Experiment::RPlusS if rank == 1 => each(vec![
            Op::Read(0),
            Op::Compute(st),
            Op::Compute(st), // passes through rank 0 inside its Q(COMPTIME)
            Op::Write(0),
        ]),
        Experiment::RPlusS if rank == 3 => each(vec![Op::Read(0)]),
        Experiment::Efu if rank == 1 => each(vec![Op::Read(0), Op::Write(0)]),
        Experiment::EfuSystem if rank == 1 => vec![Block::once(vec![
            Op::Route {
                from: 0,
                to: 0,
                count: times,
            },
            Op::AwaitRoutes,
        ])],
        _ => Vec::new(),
    }
}

/// Settings of one run of the experiment on one transport and `Q`.
#[derive(Clone, Copy)]
pub(super) struct Plan<'a> {
    pub(super) bg: Background,
    pub(super) sizes: &'a [usize],
    pub(super) reps: u64,
    /// The clock's read overhead, ns, taken from every interval timed directly.
    pub(super) clock_ns: f64,
    pub(super) repetitions: usize,
    /// Rounds of the experiments at each size; each experiment's iterations are
    /// split evenly between them and pooled.
    pub(super) rounds: usize,
    /// What a lane's slots span for longer messages ([`lane_span`]).
    pub(super) lane_span: usize,
    /// The two CPUs' round trips now ([`probe`]).
    pub(super) probe: &'a (dyn Fn() -> Result<Probe, KernelError> + Sync),
    pub(super) on_size: &'a (dyn Fn(usize) + Sync),
    pub(super) cancelled: &'a (dyn Fn() -> bool + Sync),
}

impl Plan<'_> {
    /// Timed iterations of each experiment in one round.
    pub(super) fn per_round(&self) -> u64 {
        self.reps.div_ceil(self.rounds.max(1) as u64)
    }
}

/// The whole plan in order: (repetition, size, experiment), each experiment
/// once a round.
/// What `rank` does over the whole schedule `steps` ([`plan_steps`]):
/// its script of every step in turn; rank 0 has none (it runs its own
/// program).
pub(super) fn script_over(
    rank: usize,
    steps: &[(usize, usize, Experiment)],
    plan: &Plan<'_>,
) -> Vec<Block> {
    if rank == 0 {
        return Vec::new();
    }
    steps
        .iter()
        .flat_map(|&(_, _, e)| script_of(rank, e, plan.per_round(), &plan.bg))
        .collect()
}

pub(super) fn plan_steps(plan: &Plan<'_>) -> Vec<(usize, usize, Experiment)> {
    let mut steps = Vec::new();
    for rep in 0..plan.repetitions {
        for &size in plan.sizes {
            for _ in 0..plan.rounds {
                for e in experiments_at_size() {
                    steps.push((rep, size, e));
                }
            }
        }
    }
    steps
}
