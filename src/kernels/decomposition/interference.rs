//! `interference`: Krumme & Greenfield section 5.2. Rank 0 times a fixed
//! computation while 1, 2 and 3 neighbours stream 2000-byte messages through it to
//! a sink each, and the slowdown is compared with the one predicted from the
//! computation a message costs the node it passes through.
//!
//! Twelve hosted virtual nodes ([`crate::team::hosted`]) on two spinning workers:
//! rank 0 on the first (the other even ranks there are never given anything to do
//! and cost nothing), sources 1, 5, 9 and sinks 3, 7, 11 on the second, so every
//! message crosses a CPU into and out of rank 0. As on the NCUBE, rank 0's system
//! forwards the messages, not its program: rank 0 runs `Q` in chunks of about 2 µs,
//! and between chunks its mailroom takes in what has arrived from an active source
//! and hands it on to that source's sink (`R + S` a message, taken from `Q`). Each
//! sink acknowledges every message to its source with 4 bytes, and each source
//! keeps three messages in flight, as Appendix A's test 8. Each stream keeps two
//! channels of rank 0 busy (in and out): 1, 2 and 3 streams are the paper's 2, 4
//! and 6 active channels.
//!
//! Prediction (section 5.2): a stream whose messages pass every `P` ns and cost
//! rank 0 `c` ns each leaves `1 − k c / P` of the time to the computation, so it
//! should take `1 / (1 − k c / P)` times as long, with `c = R + S` measured first
//! at 2000 bytes as in `decomposition` (test 5 of Appendix A with ranks 1 and 3).
//! Observed beyond it is interference a message's own cost does not account for
//! (the caches and the memory shared with the streams). With `--transport mpi`
//! the nodes are dealt over two MPI processes in the same layout (`over_mpi`).

use super::background::{Background, QKind};
use super::parameters::{SENDTIME, rank0_rs, script_of, store_and_forward};
use super::protocol::{
    Block, CHUNK, Node, Nodes, Op, cpu_pair, hosted_team, interrupted, ns, q, read, write,
};
use crate::control::{Placement, RankError};
use crate::kernels::harness::timing::Timer;
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::stats::summarize;
use crate::platform::LineAligned;
use crate::results::{KernelResult, Point, num};
use crate::team::TeamError;
use crate::team::hosted::HostedTeam;
use crate::transport::{Transport, TransportConfig};
use std::time::Duration;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "interference";

pub(super) const INTERFERENCE: KernelSpec = KernelSpec {
    name: NAME,
    method: "krumme-greenfield",
    paper: "Krumme & Greenfield 1988, section 5.2 and Appendix A test 8",
    about: "slowdown of a computation on a rank that 1, 2, 3 streams of 2000-byte messages pass through, against R + S per message",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(over_mpi::run)),
    card: &[],
    run,
    plan: |b| super::estimate::interference(b, &STREAM_COUNTS, SENDTIME),
};

/// The streamed message size (Appendix A's BIGSIZE).
pub(crate) const BIGSIZE: usize = 2000;
/// Messages each source keeps in flight.
const WINDOW: u32 = 3;
/// Transport slots per lane: the mailbox's ring is a power of two, and a source's
/// lane to rank 0 holds its whole window.
const SLOTS: usize = 4;
/// Sources and their sinks, all on the second CPU.
const SOURCES: [usize; 3] = [1, 5, 9];
const SINKS: [usize; 3] = [3, 7, 11];
const RANKS: usize = 12;
/// The stream counts of one trial, in order: the baseline again at the end (the
/// faster of the two stands: other processes only ever add time).
pub(crate) const STREAM_COUNTS: [usize; 5] = [0, 1, 2, 3, 0];

/// One timed computation.
#[derive(Debug, Clone, Copy, Default)]
struct Run {
    /// Its time, ns.
    time_ns: f64,
    /// Messages forwarded during it.
    messages: u64,
}

/// What rank 0 measured.
/// How a result says that test 5 gave no `R + S`.
const RS_NOT_RESOLVED: &str = "R + S not resolved";

#[derive(Debug, Clone)]
struct Measured {
    r_plus_s_ns: f64,
    /// Test 5's iterations, and those whose forward fell outside the timed
    /// `Q(COMPTIME)` (left out of `R + S`).
    r_plus_s_reps: u64,
    r_plus_s_late: u64,
    /// Per trial, per stream count `k = 0..=3`.
    trials: Vec<[Run; 4]>,
}

struct Plan {
    bg: Background,
    chunks: u64,
    trials: usize,
    reps: u64,
}

/// Every rank's script: test 5 at the streamed size, then each trial's runs.
fn scripts(plan: &Plan) -> Vec<Vec<Block>> {
    (0..RANKS)
        .map(|rank| {
            if rank == 0 {
                return Vec::new();
            }
            let mut s = script_of(
                rank,
                super::parameters::Experiment::RPlusS,
                plan.reps,
                &plan.bg,
            );
            for _ in 0..plan.trials {
                for k in STREAM_COUNTS {
                    for i in 0..k {
                        if rank == SOURCES[i] {
                            s.push(Block::once(vec![
                                Op::Read(0),
                                Op::Source {
                                    sink: SINKS[i],
                                    window: WINDOW,
                                    len: BIGSIZE,
                                },
                            ]));
                        } else if rank == SINKS[i] {
                            s.push(Block::once(vec![Op::Sink { source: SOURCES[i] }]));
                        }
                    }
                }
            }
            s
        })
        .collect()
}

/// One timed computation on rank 0 with `k` streams through it.
#[inline(never)]
fn rank0_run<H: Nodes>(
    host: &mut H,
    plan: &Plan,
    k: usize,
    buf: &mut [u8],
) -> Result<Run, RankError> {
    for i in 0..k {
        host.parts().0.room.route(SOURCES[i], SINKS[i], u64::MAX)?;
        write(host, SOURCES[i], &[1u8])?; // go
    }
    let before = host.parts().0.room.forwarded();
    let t0 = Timer::start();
    q(host, &plan.bg, plan.chunks)?;
    let t1 = Timer::start();
    let messages = host.parts().0.room.forwarded() - before;
    for &source in &SOURCES[..k] {
        write(host, source, &[0u8])?; // stop
    }
    for i in 0..k {
        read(host, SINKS[i], buf)?; // the sink has the end marker
        host.parts().0.room.unroute(SOURCES[i]);
    }
    Ok(Run {
        time_ns: ns(t0, t1),
        messages,
    })
}

fn rank0<H: Nodes>(host: &mut H, plan: &Plan) -> Result<Measured, RankError> {
    let mut buf = LineAligned::filled(BIGSIZE.max(32), 0u8);
    let out = LineAligned::from_fn(BIGSIZE, |i| (i % 251) as u8);
    let rs = rank0_rs(host, &plan.bg, &out, plan.reps)?;
    let mut trials = Vec::with_capacity(plan.trials);
    for _ in 0..plan.trials {
        let mut t = [Run::default(); 4];
        for (j, k) in STREAM_COUNTS.into_iter().enumerate() {
            let r = rank0_run(host, plan, k, &mut buf)?;
            if j < 4 {
                t[k] = r;
            } else if r.time_ns < t[0].time_ns {
                t[0] = r;
            }
        }
        trials.push(t);
    }
    Ok(Measured {
        r_plus_s_ns: rs.r_plus_s_ns,
        r_plus_s_reps: plan.reps,
        r_plus_s_late: rs.late,
        trials,
    })
}

fn run_on<T: Transport>(
    team: &HostedTeam,
    config: &TransportConfig,
    plan: &Plan,
) -> Result<Measured, TeamError> {
    let nodes = scripts(plan)
        .into_iter()
        .enumerate()
        .map(|(rank, script)| Node::new(rank, RANKS, BIGSIZE, plan.bg, script))
        .collect();
    let eps = T::endpoints(team.control(), config);
    team.run(NAME, eps, nodes, |host| rank0(host, plan))
}

/// `1 / (1 − k c / P)`, infinite when the messages would need all the time.
fn predicted_slowdown(streams: usize, cost_ns: f64, period_ns: f64) -> f64 {
    let busy = streams as f64 * cost_ns / period_ns;
    if busy < 1.0 {
        1.0 / (1.0 - busy)
    } else {
        f64::INFINITY
    }
}

/// The plan of a run with `Q` as `bg`.
fn plan(ctx: &RunContext<'_>, bg: Background) -> Plan {
    let effort = ctx.config.effort();
    let duration = Duration::from_millis(effort.interference_duration_ms);
    let chunk_ns = bg.chunk_units as f64 * bg.unit_ns;
    Plan {
        bg,
        chunks: ((duration.as_nanos() as f64 / chunk_ns).ceil() as u64).max(1),
        trials: ctx.config.trials.unwrap_or(effort.interference_trials),
        reps: effort.interference_reps,
    }
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let kernel = NAME;
    let cpus = cpu_pair(ctx, kernel)?;
    let team = hosted_team(ctx, &cpus, RANKS, 0)?;
    let tconfig = store_and_forward(BIGSIZE, SLOTS);
    let plan = plan(ctx, Background::calibrate(QKind::Integer, SENDTIME, CHUNK));
    ctx.progress
        .begin(kernel, ctx.config.transports.len() as u64);
    let mut out = Vec::new();
    for &transport in &ctx.config.transports {
        if ctx.cancelled() {
            break;
        }
        let m = crate::with_transport!(transport, run_on(&team, &tconfig, &plan))
            .map_err(interrupted)?;
        ctx.progress.step(transport.name());
        let note = format!(
            "{} processors: {RANKS} virtual nodes round-robin on spinning workers pinned to CPUs {cpus:?}; rank 0's system forwards the streams between 2 us chunks of Q (polling instead of interrupts); the 3 sources and 3 sinks share the second CPU",
            team.placement()
        );
        out.push(
            result(team.placement(), &cpus, transport.name(), &m, note)
                .with_pair_distance(ctx.topology),
        );
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(out)
}

/// The points and warnings of `m`, with `note` (where the nodes ran) last.
fn result(
    placement: Placement,
    cpus: &[usize],
    transport: &str,
    m: &Measured,
    note: String,
) -> KernelResult {
    let mut points = Vec::new();
    let mut warnings = Vec::new();
    let resolved = m.r_plus_s_ns.is_finite();
    if !resolved {
        warnings.push(format!(
            "{RS_NOT_RESOLVED}: {} of test 5's {} forwards fell outside the timed Q(COMPTIME) (done during Q(SENDTIME), or after), so no slowdown is predicted from it; the times, messages and periods measured stand",
            m.r_plus_s_late, m.r_plus_s_reps
        ));
    }
    for k in 0..=3usize {
        let runs: Vec<Run> = m.trials.iter().map(|t| t[k]).collect();
        let times: Vec<f64> = runs.iter().map(|r| r.time_ns).collect();
        let slowdowns: Vec<f64> = m
            .trials
            .iter()
            .map(|t| t[k].time_ns / t[0].time_ns)
            .collect();
        let messages: Vec<f64> = runs.iter().map(|r| r.messages as f64).collect();
        let mut point = Point::new()
            .with("streams", k as f64)
            .with("channels_active", 2.0 * k as f64)
            .with("message_bytes", BIGSIZE as f64)
            .with("r_plus_s_ns", m.r_plus_s_ns);
        if let Ok(s) = summarize(&times) {
            point = point.with_stats("time_ns", s);
        }
        if let Ok(s) = summarize(&slowdowns) {
            point = point.with_stats("slowdown", s);
        }
        // Other processes only ever add time: the ratio of the fastest runs is the
        // figure least disturbed by them.
        let fastest = |k: usize| {
            m.trials
                .iter()
                .map(|t| t[k].time_ns)
                .fold(f64::INFINITY, f64::min)
        };
        point = point.with("slowdown_of_fastest", fastest(k) / fastest(0));
        if let Ok(s) = summarize(&messages) {
            point = point.with("messages", s.mean);
        }
        if k > 0 {
            // Per stream: one message every T / (messages / k).
            let periods: Vec<f64> = runs
                .iter()
                .filter(|r| r.messages > 0)
                .map(|r| r.time_ns * k as f64 / r.messages as f64)
                .collect();
            match summarize(&periods) {
                Ok(p) if !resolved => point = point.with_stats("period_ns", p),
                Ok(p) => {
                    let predicted = predicted_slowdown(k, m.r_plus_s_ns.max(0.0), p.mean);
                    // JSON has no infinity: a saturated prediction is said in words.
                    if predicted.is_finite() {
                        point = point.with("predicted_slowdown_r_plus_s", predicted);
                    } else {
                        warnings.push(format!(
                            "{k} streams: {k} x (R + S) = {} ns exceeds the period of {} ns, so the model predicts saturation (no finite slowdown)",
                            num(k as f64 * m.r_plus_s_ns),
                            num(p.mean)
                        ));
                    }
                    point = point.with_stats("period_ns", p);
                }
                Err(_) => warnings.push(format!(
                    "{k} streams: no message was forwarded during the computation"
                )),
            }
        }
        points.push(point);
    }
    warnings.push(note);
    KernelResult::new(NAME, "krumme-greenfield", placement, cpus.to_vec())
        .with_transport(Some(transport))
        .with_ranks(RANKS)
        .with_points(points)
        .with_warnings(warnings)
}

/// Section 5.2 between MPI processes (`--transport mpi`): the twelve nodes
/// multiplexed over two processes by message tags as between the two
/// threads, the even ones (rank 0 alone active) on the first and the
/// sources and sinks on the second, so that every stream crosses processes
/// into and out of rank 0; its `R + S` is measured over MPI as the
/// decomposition measures it.
#[cfg(feature = "mpi")]
mod over_mpi {
    use super::super::parameters::{
        Layout, Ran, backgrounds, go_on, hosting_processes, library_yields, run_nodes,
    };
    use super::*;
    use crate::team::mpi::Processes;

    /// The transport the results carry.
    const TRANSPORT: &str = "mpi";

    /// The processes that host nodes: rank 0's and the streams'.
    const PROCESSES: usize = 2;

    pub(super) fn run(
        ctx: &RunContext<'_>,
        procs: &Processes,
    ) -> Result<Vec<KernelResult>, KernelError> {
        let (processes, on_shared) = hosting_processes(procs, PROCESSES);
        let layout = Layout::new(RANKS, processes, on_shared, 0, &ctx.cancel);
        let bg = backgrounds(procs)?
            .into_iter()
            .find(|b| b.kind == QKind::Integer)
            .ok_or_else(|| KernelError::NotRunnable {
                kernel: NAME.into(),
                reason: "no integer Q calibrated".into(),
            })?;
        let plan = plan(ctx, bg);
        let scripts = scripts(&plan);
        let config = store_and_forward(BIGSIZE, SLOTS);
        ctx.progress.begin(NAME, 1);
        let node = |rank: usize| Node::new(rank, RANKS, BIGSIZE, plan.bg, scripts[rank].clone());
        let ran = run_nodes(
            procs,
            NAME,
            &layout,
            &config,
            node,
            || ctx.cancelled(),
            |here| rank0(here, &plan),
        )?;
        let stop = ran.as_ref().is_some_and(Ran::cancelled);
        let go = go_on(procs, stop)?;
        ctx.progress.step(TRANSPORT);
        ctx.progress.end();
        if !go || ctx.cancelled() {
            return Err(KernelError::Interrupted);
        }
        let Some(Ran::Rank0(m, _)) = ran else {
            return Ok(Vec::new());
        };
        let placement = if on_shared {
            Placement::Oversubscribed
        } else {
            Placement::Hosted
        };
        let mut result = result(
            placement,
            &procs.cpus()[..processes],
            TRANSPORT,
            &m,
            note(procs.size(), processes, on_shared),
        )
        .with_distance_class(Some(procs.distance(0, 1)));
        if library_yields() {
            result.warnings.push(YIELDING.into());
        }
        Ok(vec![result])
    }

    /// Why `R + S` and the slowdown predicted from it are not resolved where
    /// the library yields.
    const YIELDING: &str = "not resolved: the MPI library yields the CPU in every progress pass that finds nothing (Open MPI's mpi_yield_when_idle, on for an oversubscribed node), so the computation a message takes rank 0's process cannot be told from the yields it saves: R + S and the slowdowns predicted from it are not resolved; the times and periods measured stand";

    /// Where the nodes ran, for the result's warnings.
    pub(super) fn note(world: usize, processes: usize, shared: bool) -> String {
        format!(
            "over MPI: the {RANKS} nodes are virtual nodes multiplexed over {processes} MPI processes by message tags (rank 0 and the idle even nodes on process 0, the 3 sources and 3 sinks on process 1), so every stream crosses processes into and out of rank 0; rank 0's system forwards the streams between 2 us chunks of Q (MPI_Iprobe, MPI_Irecv, MPI_Isend){}{}",
            if shared {
                "; the two processes share a CPU and wait by yielding: the times include the scheduler's"
            } else {
                ""
            },
            if world > processes {
                format!("; processes {processes} to {} host no node", world - 1)
            } else {
                String::new()
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Section 5.2's own arithmetic: 440 µs every 2800 µs leaves 0.84 of the time,
    /// 880 every 2830 leaves 0.69, 1320 every 3070 leaves 0.57, so 1.19, 1.45, 1.75.
    #[test]
    fn prediction_reproduces_the_papers_figures() {
        for (k, period, want) in [(1, 2800.0, 1.19), (2, 2830.0, 1.45), (3, 3070.0, 1.75)] {
            let got = predicted_slowdown(k, 440.0, period);
            assert!((got - want).abs() < 0.01, "{k}: {got} vs {want}");
        }
        assert!(predicted_slowdown(3, 1000.0, 2000.0).is_infinite());
    }
}
