//! `replay`: a GOAL schedule run on real cores. Each rank of the schedule is a
//! rank of a [`Team`] (a thread pinned to one CPU), its messages go over a
//! thread transport (mailbox or channel), its `calc` operations do calibrated
//! work, and rank 0 times every trial, as every halfperf kernel does.
//!
//! What is measured: the schedule's time on rank 0's clock from the start
//! signal it sends to the last rank's report of completion (one message
//! latency more than the last finish), every rank's own finish time from the
//! start signal it received, over `trials` timed trials after an untimed
//! warm-up (`warmup`: until every lane's ring has turned over once);
//! minimum, median and the median's 95 % bootstrap interval. The result
//! names the schedule by its hash and records the placement.
//!
//! # Invariants
//! - Every message is received exactly once, matched as MPI and LogGOPSim match
//!   (per source and tag, in the order posted), and checked: its sequence number
//!   and length in every trial, every payload byte in the warm-up; the counts of
//!   received messages are checked against the schedule after the run.
//! - One rank a CPU ([`Placement::Pinned`]); more ranks than CPUs only when asked
//!   for, labelled [`Placement::Oversubscribed`], and then ranks that share a CPU
//!   yield instead of spinning.
//! - No hang: a rank that makes no progress for the deadline fails with the
//!   operations it waits at; a team whose rank failed stops at once. Static
//!   problems (a receive with no send, a cycle) are for
//!   [`crate::model::goal::check`] before the run.
//!
//! A `//@ sync` meeting runs its `hockney-sync` method on the members'
//! threads instead of its messages (`replay_sync`), which are then not counted.
//!
//! The engine of one rank is in `replay_engine`, the calibrated work in
//! `replay_calc`, the result document's entry in `replay_result`.

use super::replay_calc::CalcRate;
use super::replay_engine::{CONTROL_TAG, RankEngine, RankRecord, Warmup, wire_bytes};
use super::replay_sync::Meetings;
use crate::control::Placement;
use crate::model::goal::{OpKind, Schedule};
use crate::model::interval::{median_bootstrap, median_in_place};
use crate::team::{Team, TeamError, TeamSpec};
use crate::transport::{Transport, TransportConfig, TransportKind};
use serde::Serialize;
use std::time::Duration;

/// Largest message a replay carries, in bytes: every lane of the transport holds
/// four of them.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 20;

/// How to replay a schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayConfig {
    /// The transport between the ranks.
    pub transport: TransportKind,
    /// The CPUs, distinct; rank `r` runs on `cpus[r % cpus.len()]`.
    pub cpus: Vec<usize>,
    /// Allow more ranks than CPUs (labelled oversubscribed).
    pub oversubscribe: bool,
    /// Timed trials (an untimed warm-up, `warmup`, runs before them).
    pub trials: usize,
    /// The longest any rank may make no progress before the replay fails.
    pub deadline: Duration,
}

impl ReplayConfig {
    /// Ten trials with a 10 s deadline, no oversubscription.
    pub fn new(transport: TransportKind, cpus: Vec<usize>) -> ReplayConfig {
        ReplayConfig {
            transport,
            cpus,
            oversubscribe: false,
            trials: 10,
            deadline: Duration::from_secs(10),
        }
    }
}

/// One timed trial.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trial {
    /// Rank 0's time: start signal sent to the last rank's completion received.
    pub time_ns: u64,
    /// Each rank's own finish time from its start signal, rank order.
    pub finish_ns: Vec<u64>,
}

/// The trials summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplaySummary {
    /// Fastest trial's `time_ns`.
    pub min_ns: f64,
    /// Median `time_ns`.
    pub median_ns: f64,
    /// Slowest trial's `time_ns`.
    pub max_ns: f64,
    /// 95 % percentile-bootstrap interval of the median; none for one trial.
    pub ci95_ns: Option<[f64; 2]>,
    /// Each rank's fastest finish time, rank order.
    pub finish_min_ns: Vec<f64>,
    /// Each rank's median finish time, rank order.
    pub finish_median_ns: Vec<f64>,
}

/// What a replay measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayOutcome {
    /// The schedule's name (its file).
    pub schedule: String,
    /// The hash of the schedule's file.
    pub hash: String,
    /// Ranks.
    pub num_ranks: u32,
    /// The transport (unused when `over_mpi`).
    pub transport: TransportKind,
    /// The ranks were the processes of `mpirun`, their messages MPI's.
    pub over_mpi: bool,
    /// How the ranks sat on the CPUs.
    pub placement: Placement,
    /// The CPU of each rank, rank order.
    pub hosts: Vec<usize>,
    /// Untimed warm-up trials run before the timed ones.
    pub warmup_trials: usize,
    /// The timed trials, in order.
    pub trials: Vec<Trial>,
    /// Their summary.
    pub summary: ReplaySummary,
    /// Messages in the schedule, each received and checked once a trial.
    pub messages_per_trial: u64,
    /// Payload bytes in the schedule's messages, a trial.
    pub bytes_per_trial: u64,
    /// Payload bytes checked byte by byte in the warm-up.
    pub payload_bytes_checked: u64,
    /// The calibrated work's rate, chain steps per ns.
    pub calc_steps_per_ns: f64,
    /// Warm-up: the `calc` time the schedule asks for, all ranks, ns.
    pub calc_asked_ns: u64,
    /// Warm-up: what that work took by the clock, ns.
    pub calc_took_ns: u64,
}

/// Why a replay could not run or failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The schedule's rank blocks do not match its `num_ranks`.
    #[error("{schedule}: {blocks} rank schedules for num_ranks {num_ranks}")]
    Shape {
        /// The schedule.
        schedule: String,
        /// Rank schedules present.
        blocks: usize,
        /// Ranks declared.
        num_ranks: u32,
    },
    /// An operation the replay cannot carry out.
    #[error("{schedule}:{line}: rank {rank}, {label}: {what}")]
    Unsupported {
        /// The schedule.
        schedule: String,
        /// The rank.
        rank: u32,
        /// The operation's label.
        label: String,
        /// Its line.
        line: u32,
        /// Why not.
        what: String,
    },
    /// Zero trials asked for.
    #[error("a replay needs at least one trial")]
    NoTrials,
    /// Over MPI: the world's size is not the schedule's rank count.
    #[error("{schedule}: {num_ranks} ranks need as many MPI processes; this job has {processes}")]
    WorldSize {
        /// The schedule.
        schedule: String,
        /// Its ranks.
        num_ranks: u32,
        /// Processes of the job.
        processes: usize,
    },
    /// The team could not be formed, or a rank failed (a deadline, a check).
    #[error("replay of {schedule} over {transport}: {source}")]
    Team {
        /// The schedule.
        schedule: String,
        /// The transport.
        transport: TransportKind,
        /// The team's error (it names the rank).
        #[source]
        source: TeamError,
    },
    /// A count of received messages disagrees with the schedule.
    #[error("{schedule}: rank {rank} received {got} messages, the schedule has {want}")]
    Count {
        /// The schedule.
        schedule: String,
        /// The rank.
        rank: usize,
        /// Received over all trials.
        got: u64,
        /// Its receives times the trials.
        want: u64,
    },
}

/// Replays `schedule` as `config` says: a warm-up, then the timed trials.
///
/// The schedule should have passed [`crate::model::goal::check`]; one that
/// cannot complete anyway ends at the deadline with a [`ReplayError::Team`]
/// naming the rank and the operations it waited at.
pub fn replay(schedule: &Schedule, config: &ReplayConfig) -> Result<ReplayOutcome, ReplayError> {
    let max_wire = validate(schedule)?;
    if config.trials == 0 {
        return Err(ReplayError::NoTrials);
    }
    let team_error = |source| ReplayError::Team {
        schedule: schedule.name.clone(),
        transport: config.transport,
        source,
    };
    let team = Team::new(&TeamSpec {
        cpus: config.cpus.clone(),
        ranks: schedule.num_ranks as usize,
        virtual_ok: false,
        oversubscribe: config.oversubscribe,
        wait_timeout: config.deadline,
    })
    .map_err(team_error)?;
    let rate = CalcRate::calibrate();
    let transport = TransportConfig::buffered(max_wire);
    let shared = schedule.num_ranks as usize > config.cpus.len();
    let meetings = Meetings::new(schedule, shared);
    let records = crate::with_transport!(
        config.transport,
        run_on(
            &team,
            schedule,
            (&transport, &meetings),
            rate,
            config.trials,
            max_wire
        )
    )
    .map_err(team_error)?;
    outcome(
        schedule,
        config,
        (team.placement(), team.hosts().to_vec()),
        rate,
        &records,
    )
}

fn run_on<T: Transport>(
    team: &Team,
    schedule: &Schedule,
    (transport, meetings): (&TransportConfig, &Meetings),
    rate: CalcRate,
    trials: usize,
    max_wire: usize,
) -> Result<Vec<RankRecord>, TeamError> {
    let endpoints = T::endpoints(team.control(), transport);
    let warmup = warmup(schedule, transport);
    team.run(
        &format!("replay {}", schedule.name),
        endpoints,
        |ctx, ep| {
            let plan = (schedule, Some(meetings));
            run_rank(ctx, ep, plan, rate, max_wire, (trials, warmup))
        },
    )
}

/// The most time a warm-up may take beyond its first trial.
pub const WARMUP_BUDGET: Duration = Duration::from_millis(500);

/// The warm-up of `schedule` over a transport built as `transport`: enough
/// trials that every lane in use (every ordered pair of ranks with a message,
/// `go` and `done` included) has sent `slots` messages, so that it has gone
/// through the mailbox's whole ring (`slots` chunks, a message at least one)
/// and used every one of the channel's buffers (a message each, at most
/// `slots`), within [`WARMUP_BUDGET`]. A timed trial then writes lines the
/// receiver read before, as the ping-pong's thousands of messages do; with
/// one warm-up, a short schedule's 20 trials wrote fresh lines.
pub(super) fn warmup(schedule: &Schedule, transport: &TransportConfig) -> Warmup {
    Warmup {
        trials: warmup_trials(schedule, transport),
        budget: WARMUP_BUDGET,
    }
}

/// The warm-up trials `warmup` asks for: one, plus the most trials any lane
/// in use takes to send `transport.slots` messages.
pub fn warmup_trials(schedule: &Schedule, transport: &TransportConfig) -> usize {
    let n = schedule.num_ranks as usize;
    let mut messages = vec![0u64; n * n];
    for r in 1..n {
        messages[r] += 1; // go
        messages[r * n] += 1; // done
    }
    for (r, rank) in schedule.ranks.iter().enumerate() {
        for op in rank.ops.iter().filter(|op| op.sync.is_none()) {
            if let OpKind::Send { peer, .. } = op.kind {
                messages[r * n + peer as usize] += 1;
            }
        }
    }
    let slots = transport.slots.max(1) as u64;
    let trials = messages
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| slots.div_ceil(c))
        .max()
        .unwrap_or(0);
    trials as usize + 1
}

/// Runs rank `ctx.rank` of `schedule` over `ep`: `warmup`, then `trials`;
/// `meetings`: the schedule's `//@ sync` meetings, shared by the ranks.
pub(super) fn run_rank<E: crate::transport::Endpoint>(
    ctx: &crate::team::RankCtx<'_>,
    ep: &mut E,
    (schedule, meetings): (&Schedule, Option<&Meetings>),
    rate: CalcRate,
    max_wire: usize,
    (trials, warmup): (usize, Warmup),
) -> Result<RankRecord, crate::control::RankError> {
    RankEngine::new(
        ctx.rank,
        ctx.size,
        &schedule.ranks[ctx.rank],
        rate,
        max_wire,
        meetings,
    )
    .run(ctx, ep, trials, warmup)
}

/// The largest operands a `//@ vector` calc may have (four arrays), bytes.
pub const MAX_VECTOR_BYTES: u64 = 1 << 30;

/// The checks the replay itself needs; returns the largest message on the wire.
pub(super) fn validate(s: &Schedule) -> Result<usize, ReplayError> {
    if s.ranks.len() != s.num_ranks as usize {
        return Err(ReplayError::Shape {
            schedule: s.name.clone(),
            blocks: s.ranks.len(),
            num_ranks: s.num_ranks,
        });
    }
    let mut max_wire = 64;
    for (r, rank) in s.ranks.iter().enumerate() {
        for op in &rank.ops {
            let bad = |what: String| ReplayError::Unsupported {
                schedule: s.name.clone(),
                rank: r as u32,
                label: op.label.to_string(),
                line: op.line,
                what,
            };
            let (bytes, peer, tag) = match op.kind {
                OpKind::Send { bytes, peer, tag } | OpKind::Recv { bytes, peer, tag } => {
                    (bytes, peer, tag)
                }
                OpKind::Calc { .. } => {
                    let big = op.vector.as_ref().map_or(0, |v| v.elements() * 4 * 8);
                    if big > MAX_VECTOR_BYTES {
                        return Err(bad(format!(
                            "`//@ vector` operands of {big} bytes exceed the replay's {MAX_VECTOR_BYTES}"
                        )));
                    }
                    continue;
                }
            };
            if peer as usize == r || peer >= s.num_ranks {
                return Err(bad(format!(
                    "peer {peer} is not another rank of {}",
                    s.num_ranks
                )));
            }
            if tag == CONTROL_TAG {
                return Err(bad(format!(
                    "tag {tag} is reserved for the replay's control messages"
                )));
            }
            if bytes > MAX_MESSAGE_BYTES {
                return Err(bad(format!(
                    "{bytes} bytes exceed the replay's largest message, {MAX_MESSAGE_BYTES}"
                )));
            }
            max_wire = max_wire.max(wire_bytes(bytes));
        }
    }
    Ok(max_wire)
}

/// The outcome from every rank's record; `(placement, hosts)` of the ranks.
pub(super) fn outcome(
    schedule: &Schedule,
    config: &ReplayConfig,
    (placement, hosts): (Placement, Vec<usize>),
    rate: CalcRate,
    records: &[RankRecord],
) -> Result<ReplayOutcome, ReplayError> {
    let mut messages = 0;
    let mut bytes = 0;
    for (r, (rank, rec)) in schedule.ranks.iter().zip(records).enumerate() {
        // A meeting's receives carry no message in the replay.
        let recvs: Vec<u64> = rank
            .ops
            .iter()
            .filter(|op| op.sync.is_none())
            .filter_map(|op| match op.kind {
                OpKind::Recv { bytes, .. } => Some(bytes),
                _ => None,
            })
            .collect();
        let want = recvs.len() as u64 * (config.trials + rec.warmup_trials) as u64;
        if rec.messages != want {
            return Err(ReplayError::Count {
                schedule: schedule.name.clone(),
                rank: r,
                got: rec.messages,
                want,
            });
        }
        messages += recvs.len() as u64;
        bytes += recvs.iter().sum::<u64>();
    }
    let trials: Vec<Trial> = (0..config.trials)
        .map(|t| Trial {
            time_ns: records[0].time_ns[t],
            finish_ns: records.iter().map(|r| r.finish_ns[t]).collect(),
        })
        .collect();
    let times: Vec<f64> = trials.iter().map(|t| t.time_ns as f64).collect();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let median = |v: &[f64]| median_in_place(&mut v.to_vec()).unwrap_or(f64::NAN);
    let per_rank: Vec<Vec<f64>> = records
        .iter()
        .map(|r| r.finish_ns.iter().map(|&x| x as f64).collect())
        .collect();
    let summary = ReplaySummary {
        min_ns: min(&times),
        median_ns: median(&times),
        max_ns: times.iter().copied().fold(0.0, f64::max),
        ci95_ns: median_bootstrap(&times),
        finish_min_ns: per_rank.iter().map(|v| min(v)).collect(),
        finish_median_ns: per_rank.iter().map(|v| median(v)).collect(),
    };
    Ok(ReplayOutcome {
        schedule: schedule.name.clone(),
        hash: schedule.hash.clone(),
        num_ranks: schedule.num_ranks,
        transport: config.transport,
        over_mpi: false,
        placement,
        hosts,
        warmup_trials: records.first().map_or(0, |r| r.warmup_trials),
        trials,
        summary,
        messages_per_trial: messages,
        bytes_per_trial: bytes,
        payload_bytes_checked: records.iter().map(|r| r.bytes_checked).sum(),
        calc_steps_per_ns: rate.steps_per_ns,
        calc_asked_ns: records.iter().map(|r| r.calc_asked_ns).sum(),
        calc_took_ns: records.iter().map(|r| r.calc_took_ns).sum(),
    })
}
