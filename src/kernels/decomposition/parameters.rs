//! `decomposition`: Krumme & Greenfield's six times F, S, R, A, U, E per transport,
//! message size and version of the background computation `Q` (sections 2 to 4,
//! 5.1 and Appendix A's program).
//!
//! Six virtual processors on two CPUs (ranks dealt round-robin, so rank `r` and
//! `r + 1` always sit on different CPUs, and ranks sharing a CPU park while they
//! wait). Rank 0 is the paper's node 0 and the only one that times; rank 1 is its
//! neighbour; ranks 2 to 5 extend the chain so that rank `d` lies `d` hops from rank
//! 0. `Q(SENDTIME)` lasts about 25 µs (long enough for a parked neighbour to wake and
//! take a message) and `Q(COMPTIME)` five times that, as Appendix A's 5 and 25
//! units. Each experiment is one block of `reps + 1` iterations (100, or 10 with
//! `--quick`; the first is a warm-up and is dropped, as Appendix A does), every event
//! timed on rank 0 with the clock around it. A block's figure is the median of its
//! iterations, not the paper's mean, so that the odd iteration another process
//! preempts does not decide it; the `Q` times subtracted are timed in the same block
//! with nothing in flight.
//!
//! 1. echo at distance `d = 1..5` (3.2): rank 0 sends, runs `Q(SENDTIME)`, reads the
//!    echo; forwarders receive and send on; rank `d` runs `Q(SENDTIME)` (the delay
//!    `X`) and sends back, then runs `Q(SENDTIME)`. `T_d` is the time from before
//!    the send to after the read, less `Q(SENDTIME)`. Again with no `Q` around the
//!    sends (section 5.1, processors idle).
//! 2. tests 2 to 4 of Appendix A, one loop: rank 0 sends, runs `Q(SENDTIME)` so the
//!    message clears, then a timed `Q(COMPTIME)` during which rank 1's echo arrives:
//!    its excess over `Q(COMPTIME)` alone is `R`; the timed read of that arrived
//!    message is `A + U`; a timed send followed by `Q(SENDTIME)`, less
//!    `Q(SENDTIME)`, is `F + S` (the send call alone is kept too). Iterations whose
//!    echo had not arrived when `Q(COMPTIME)` ended are left out of `R` and `A + U`
//!    and counted in the warnings.
//! 3. test 5, `R + S`: rank 0 sends and at once starts a timed `Q(COMPTIME)`, during
//!    which rank 1 takes the message out of rank 0's memory and writes its echo in.
//!    On the NCUBE the message passed through node 0 and its operating system
//!    received it (`R`) and sent it on (`S`) in interrupt routines; on a multicore
//!    nothing forwards for rank 0 while it computes, so the two halves of a passage
//!    are taken as they happen in memory: an outgoing message pulled out of rank 0's
//!    cache (what `S` is in the `F + S` experiment) and an incoming one written into
//!    the memory rank 0 polls (what `R` is), both while `Q` runs.
//! 4. test 6, `2(F + E + U)`: rank 0 sends, runs `Q(SENDTIME)` and reads early;
//!    rank 1, reading already, runs `X` and echoes; the time less `X`. Here `X` is
//!    `Q(SENDTIME)`, as in the echo, not Appendix A's `Q(COMPTIME)`: on a virtual
//!    machine a CPU whose ranks have all parked wakes more slowly the longer it has
//!    idled, and a longer `X` would put that difference into `U`.
//!
//! Forwarders here are user code: each intermediate hop also costs the forwarder a
//! receive and a send, which the NCUBE's operating system did not do (its
//! intermediate nodes have no `F`, `A`, `U`). That forwarding work `W` is measured
//! on rank 0 as the timed read of an arrived message plus the timed send call of the
//! same size to the same neighbour, and `2 (d − 1) W` is taken from `T_d` before
//! `E = (T_{d+1} − T_d) / 2` is solved; the raw `T_d` and `W` are in the points.
//! Mailbox slots hold a whole message, so that a hop is store-and-forward as `W`
//! assumes. Then `E, R, S, F, U, A` are solved in the paper's order
//! ([`crate::model::decomposition::solve`]). The whole experiment is repeated five
//! times (`--trials`); the points give mean and standard deviation per parameter
//! and size (Tables 1 and 2; their medians are there too) and the fits the lines
//! `X0 + X1 n` with R^2 over the paper's sizes (Table 3) and over all sizes, fitted
//! to the medians over repetitions so that one disturbed repetition does not tilt
//! them (on a quiet machine median and mean agree).

use super::background::{Background, QKind};
use super::protocol::{Command, OP_END, Samples, check_len, cpu_pair, ns};
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::decomposition::{ExperimentTimes, ParameterLines, Parameters, fit_lines, solve};
use crate::model::fit::LineFit;
use crate::model::stats::summarize;
use crate::results::{FitResult, KernelResult, Point};
use crate::team::{Placement, RankCtx, RankError, Team};
use crate::text::num;
use crate::transport::channel::Channel;
use crate::transport::mailbox::Mailbox;
use crate::transport::{Endpoint, Transport, TransportConfig, TransportKind};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::hint::black_box;
use std::time::{Duration, Instant};

pub(super) const DECOMPOSITION: KernelSpec = KernelSpec {
    name: "decomposition",
    method: "krumme-greenfield",
    paper: "Krumme & Greenfield 1988, sections 2-4 and 5.1, Tables 1-3, Appendix A",
    about: "the six message-cost times F S R A U E per transport, size and integer/floating-point Q, with lines X0 + X1 n",
    in_quick_suite: true,
    run,
};

/// The paper's message sizes (Tables 1 to 3), bytes.
pub const PAPER_SIZES: [usize; 5] = [16, 500, 1000, 1500, 2000];
/// The longer sweep beyond the paper's sizes.
const LONG_SIZES: [usize; 3] = [4096, 16_384, 65_536];
/// The longest echo distance: `d = 1..=MAX_DISTANCE` hops.
const MAX_DISTANCE: usize = 5;
/// Ranks: rank 0 and one per hop.
const RANKS: usize = MAX_DISTANCE + 1;
/// Target length of `Q(SENDTIME)`: long enough for a parked neighbour to wake and
/// take a message, so that output clears during it (section 3.1).
pub(super) const SENDTIME: Duration = Duration::from_micros(25);
/// Repetitions of the whole experiment (section 4: "repeated five times").
const REPETITIONS: usize = 5;

const OP_ECHO: u64 = 1;
const OP_NEIGHBOUR: u64 = 2;
const OP_RS: u64 = 3;
const OP_EFU: u64 = 4;

/// Below this R^2 a line of E, F or U is flagged.
const R2_THRESHOLD: f64 = 0.9;

/// Iterations per timed block (Appendix A's NOTIMES).
fn notimes(quick: bool) -> u64 {
    if quick { 10 } else { 100 }
}

/// The sizes a run sweeps.
fn sizes(ctx: &RunContext<'_>) -> Vec<usize> {
    if let Some(s) = &ctx.config.sizes {
        return s.clone();
    }
    let mut s = PAPER_SIZES.to_vec();
    if ctx.config.quick {
        s.push(65_536);
    } else {
        s.extend(LONG_SIZES);
    }
    s
}

/// Rank 0's times of `Q` with no communication, ns: the subtrahends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct QTimes {
    /// `Q(SENDTIME)`.
    pub(super) send_ns: f64,
    /// `Q(COMPTIME)` followed by a probe of the neighbour (as in the experiments).
    pub(super) comp_ns: f64,
}

/// Rank 0's means of tests 2 to 4 (Appendix A) for one size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct NeighbourTimes {
    /// Excess of `Q(COMPTIME)` while the echo arrives: `R`.
    pub(super) r_ns: f64,
    /// Timed read of the arrived echo: `A + U`.
    pub(super) a_plus_u_ns: f64,
    /// The send call alone.
    pub(super) send_call_ns: f64,
    /// Send then `Q(SENDTIME)`, less `Q(SENDTIME)`: `F + S`.
    pub(super) f_plus_s_ns: f64,
    /// Iterations whose echo had not arrived when `Q(COMPTIME)` ended (dropped
    /// from `R` and `A + U`).
    pub(super) late: u64,
}

/// Measures `Q(SENDTIME)` and `Q(COMPTIME)` on rank 0 with nothing in flight
/// (medians of `reps`).
#[inline(never)]
pub(super) fn rank0_qtimes<E: Endpoint>(ep: &E, bg: &Background, reps: u64) -> QTimes {
    let (mut send, mut comp) = (Samples::new(reps), Samples::new(reps));
    for a in 0..=reps {
        let t0 = Instant::now();
        bg.comp();
        black_box(ep.probe(1));
        let t1 = Instant::now();
        bg.send();
        let t2 = Instant::now();
        if a > 0 {
            comp.push(ns(t0, t1));
            send.push(ns(t1, t2));
        }
    }
    QTimes {
        send_ns: send.median(),
        comp_ns: comp.median(),
    }
}

/// Tests 2 to 4 on rank 0, neighbour rank 1. Each iteration ends with `Q(COMPTIME)`
/// and `Q(SENDTIME)` timed with nothing in flight, the baselines of that block.
#[inline(never)]
pub(super) fn rank0_neighbour<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
) -> Result<NeighbourTimes, RankError> {
    let mut r = Samples::new(reps);
    let mut au = Samples::new(reps);
    let mut call = Samples::new(reps);
    let mut fs = Samples::new(reps);
    let mut comp = Samples::new(reps);
    let mut send = Samples::new(reps);
    let mut late = 0u64;
    for a in 0..=reps {
        ep.send(1, out)?;
        bg.send();
        let t0 = Instant::now();
        bg.comp();
        let arrived = ep.probe(1);
        let t1 = Instant::now();
        let n = ep.recv(1, inbuf)?;
        let t2 = Instant::now();
        ep.send(1, out)?;
        let t3 = Instant::now();
        bg.send();
        let t4 = Instant::now();
        check_len(n, out.len())?;
        check_len(ep.recv(1, inbuf)?, out.len())?;
        bg.send();
        // Baselines: nothing is in flight now (rank 1 waits for the next message).
        let b0 = Instant::now();
        bg.comp();
        black_box(ep.probe(1));
        let b1 = Instant::now();
        bg.send();
        let b2 = Instant::now();
        if a > 0 {
            if arrived {
                r.push(ns(t0, t1));
                au.push(ns(t1, t2));
            } else {
                late += 1;
            }
            call.push(ns(t2, t3));
            fs.push(ns(t2, t4));
            comp.push(ns(b0, b1));
            send.push(ns(b1, b2));
        }
    }
    Ok(NeighbourTimes {
        r_ns: r.median() - comp.median(),
        a_plus_u_ns: au.median(),
        send_call_ns: call.median(),
        f_plus_s_ns: fs.median() - send.median(),
        late,
    })
}

/// Tests 2 to 4 on rank 1 (the paper's node 2).
#[inline(never)]
pub(super) fn rank1_neighbour<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    size: usize,
    inbuf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..=reps {
        let n = ep.recv(0, inbuf)?;
        check_len(n, size)?;
        bg.send();
        bg.send(); // the echo lands inside rank 0's Q(COMPTIME)
        ep.send(0, &inbuf[..n])?;
        bg.send();
        let n = ep.recv(0, inbuf)?;
        bg.send();
        bg.send();
        ep.send(0, &inbuf[..n])?;
    }
    Ok(())
}

/// Test 5 on rank 0: `R + S`, and the iterations whose echo came late. Each
/// iteration ends with a baseline `Q(COMPTIME)` with nothing in flight.
#[inline(never)]
pub(super) fn rank0_rs<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
) -> Result<(f64, u64), RankError> {
    let (mut rs, mut comp, mut late) = (Samples::new(reps), Samples::new(reps), 0u64);
    for a in 0..=reps {
        ep.send(1, out)?;
        let t0 = Instant::now();
        bg.comp();
        let arrived = ep.probe(1);
        let t1 = Instant::now();
        check_len(ep.recv(1, inbuf)?, out.len())?;
        bg.send();
        let b0 = Instant::now();
        bg.comp();
        black_box(ep.probe(1));
        let b1 = Instant::now();
        if a > 0 {
            if arrived {
                rs.push(ns(t0, t1));
            } else {
                late += 1;
            }
            comp.push(ns(b0, b1));
        }
    }
    Ok((rs.median() - comp.median(), late))
}

/// Test 5 on rank 1.
#[inline(never)]
pub(super) fn rank1_rs<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    size: usize,
    inbuf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..=reps {
        let n = ep.recv(0, inbuf)?;
        check_len(n, size)?;
        bg.send();
        ep.send(0, &inbuf[..n])?;
    }
    Ok(())
}

/// Test 6 on rank 0: `2 (F + E + U)`, less rank 1's delay `X = Q(COMPTIME)` as
/// rank 0 times it in the same block with nothing in flight.
#[inline(never)]
fn rank0_efu<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
) -> Result<f64, RankError> {
    let (mut efu, mut x) = (Samples::new(reps), Samples::new(reps));
    for a in 0..=reps {
        let t0 = Instant::now();
        ep.send(1, out)?;
        bg.send();
        let n = ep.recv(1, inbuf)?;
        let t1 = Instant::now();
        check_len(n, out.len())?;
        bg.send();
        let b0 = Instant::now();
        bg.send();
        let b1 = Instant::now();
        if a > 0 {
            efu.push(ns(t0, t1));
            x.push(ns(b0, b1));
        }
    }
    Ok(efu.median() - x.median())
}

/// Test 6 on rank 1.
#[inline(never)]
fn rank1_efu<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    size: usize,
    inbuf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..=reps {
        let n = ep.recv(0, inbuf)?;
        check_len(n, size)?;
        bg.send(); // X, as in the echo
        ep.send(0, &inbuf[..n])?;
        bg.send();
    }
    Ok(())
}

/// The echo on rank 0 at the distance its command set: median `T_d`, ns, less
/// `Q(SENDTIME)` when busy.
#[inline(never)]
fn rank0_echo<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    q: &QTimes,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    busy: bool,
) -> Result<f64, RankError> {
    let mut t = Samples::new(reps);
    for a in 0..=reps {
        let t0 = Instant::now();
        ep.send(1, out)?;
        if busy {
            bg.send();
        }
        let n = ep.recv(1, inbuf)?;
        let t1 = Instant::now();
        check_len(n, out.len())?;
        bg.send();
        if a > 0 {
            t.push(ns(t0, t1));
        }
    }
    Ok(t.median() - if busy { q.send_ns } else { 0.0 })
}

/// Rank `r`'s part of an echo at distance `d`: forward both ways (`r < d`), or
/// echo after `X = Q(SENDTIME)` (`r == d`).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn echo_role<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    rank: usize,
    d: usize,
    busy: bool,
    size: usize,
    inbuf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    if rank < d {
        for _ in 0..=reps {
            let n = ep.recv(rank - 1, inbuf)?;
            ep.send(rank + 1, &inbuf[..n])?;
            let n = ep.recv(rank + 1, inbuf)?;
            ep.send(rank - 1, &inbuf[..n])?;
        }
    } else if rank == d {
        for _ in 0..=reps {
            let n = ep.recv(rank - 1, inbuf)?;
            check_len(n, size)?;
            bg.send();
            ep.send(rank - 1, &inbuf[..n])?;
            if busy {
                bg.send();
            }
        }
    }
    Ok(())
}

/// The echoes at distances `1..=MAX_DISTANCE` on rank 0, each after its command
/// to every other rank.
fn echo_all<E: Endpoint>(
    ep: &mut E,
    bg: &Background,
    q: &QTimes,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    busy: bool,
) -> Result<Vec<f64>, RankError> {
    let size = ep.size();
    (1..=MAX_DISTANCE)
        .map(|d| {
            Command {
                op: OP_ECHO,
                size: out.len(),
                reps,
                arg: d as u64 | u64::from(busy) << 8,
            }
            .send_to(ep, 1..size)?;
            rank0_echo(ep, bg, q, out, inbuf, reps, busy)
        })
        .collect()
}

/// Everything rank 0 measured at one size in one repetition.
#[derive(Debug, Clone)]
struct SizeTimes {
    size: usize,
    /// `T_1 .. T_5` with `Q` around the sends, raw (forwarding work included).
    echo_busy: Vec<f64>,
    /// The same with the processors idle (section 5.1).
    echo_idle: Vec<f64>,
    neighbour: NeighbourTimes,
    r_plus_s: f64,
    late_rs: u64,
    twice_f_e_u: f64,
}

/// One repetition of the whole experiment.
#[derive(Debug, Clone)]
struct Repetition {
    q: QTimes,
    sizes: Vec<SizeTimes>,
}

/// Settings of one run of the experiment on one transport and `Q`.
struct Plan<'a> {
    bg: Background,
    sizes: &'a [usize],
    reps: u64,
    repetitions: usize,
    on_size: &'a (dyn Fn(usize) + Sync),
    cancelled: &'a (dyn Fn() -> bool + Sync),
}

fn body<E: Endpoint>(
    ctx: &RankCtx<'_>,
    ep: &mut E,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, RankError> {
    let max = plan.sizes.iter().copied().max().unwrap_or(0);
    let out: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
    let mut inbuf = vec![0u8; max.max(32)];
    let bg = &plan.bg;
    if ctx.rank != 0 {
        loop {
            let c = Command::recv(ep, &mut inbuf)?;
            let (rank, size, reps) = (ctx.rank, c.size, c.reps);
            match c.op {
                OP_END => return Ok(Vec::new()),
                OP_ECHO => {
                    let d = (c.arg & 0xff) as usize;
                    let busy = c.arg >> 8 != 0;
                    echo_role(ep, bg, rank, d, busy, size, &mut inbuf, reps)?;
                }
                OP_NEIGHBOUR if rank == 1 => rank1_neighbour(ep, bg, size, &mut inbuf, reps)?,
                OP_RS if rank == 1 => rank1_rs(ep, bg, size, &mut inbuf, reps)?,
                OP_EFU if rank == 1 => rank1_efu(ep, bg, size, &mut inbuf, reps)?,
                _ => {}
            }
        }
    }
    let others = 1..ctx.size;
    let reps = plan.reps;
    let mut repetitions = Vec::with_capacity(plan.repetitions);
    'outer: for _ in 0..plan.repetitions {
        let q = rank0_qtimes(ep, bg, reps);
        let mut sizes = Vec::with_capacity(plan.sizes.len());
        for &size in plan.sizes {
            if (plan.cancelled)() {
                break 'outer;
            }
            let out = &out[..size];
            let command = |op| Command {
                op,
                size,
                reps,
                arg: 0,
            };
            let echo_busy = echo_all(ep, bg, &q, out, &mut inbuf, reps, true)?;
            command(OP_NEIGHBOUR).send_to(ep, [1])?;
            let neighbour = rank0_neighbour(ep, bg, out, &mut inbuf, reps)?;
            command(OP_RS).send_to(ep, [1])?;
            let (r_plus_s, late_rs) = rank0_rs(ep, bg, out, &mut inbuf, reps)?;
            command(OP_EFU).send_to(ep, [1])?;
            let twice_f_e_u = rank0_efu(ep, bg, out, &mut inbuf, reps)?;
            let echo_idle = echo_all(ep, bg, &q, out, &mut inbuf, reps, false)?;
            sizes.push(SizeTimes {
                size,
                echo_busy,
                echo_idle,
                neighbour,
                r_plus_s,
                late_rs,
                twice_f_e_u,
            });
            (plan.on_size)(size);
        }
        repetitions.push(Repetition { q, sizes });
    }
    Command {
        op: OP_END,
        size: 0,
        reps: 0,
        arg: 0,
    }
    .send_to(ep, others)?;
    Ok(repetitions)
}

fn run_on<T: Transport>(
    team: &Team,
    config: &TransportConfig,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, KernelError> {
    let eps = T::endpoints(team.control(), config);
    let mut per_rank = team.run("decomposition", eps, |ctx, ep| body(ctx, ep, plan))?;
    Ok(per_rank.swap_remove(0))
}

/// Transport buffers for messages up to `max` bytes, with mailbox slots that hold a
/// whole message: a message is then published whole (store and forward, as the
/// NCUBE's system buffers), where smaller slots would let a forwarder copy one
/// chunk out while the next arrives, a pipelining that the forwarding work taken
/// out of each echo step does not describe.
fn store_and_forward(max: usize) -> TransportConfig {
    let max = max.max(32);
    TransportConfig {
        max_message_bytes: max,
        slots: 4,
        slot_bytes: max.div_ceil(128) * 128,
    }
}

/// The echo times with the user-level forwarding work taken out: `T_d − 2 (d − 1) W`.
fn without_forwarding(echo: &[f64], forward_ns: f64) -> Vec<f64> {
    echo.iter()
        .enumerate()
        .map(|(i, t)| t - 2.0 * i as f64 * forward_ns)
        .collect()
}

/// One repetition at one size, solved: the parameters, `E` idle, and `W`.
fn solve_size(s: &SizeTimes) -> Option<(Parameters, f64, f64)> {
    let n = &s.neighbour;
    let forward_ns = n.a_plus_u_ns + n.send_call_ns;
    let times = ExperimentTimes {
        size_bytes: s.size as f64,
        echo_ns: without_forwarding(&s.echo_busy, forward_ns),
        r_ns: n.r_ns,
        a_plus_u_ns: n.a_plus_u_ns,
        f_plus_s_ns: n.f_plus_s_ns,
        r_plus_s_ns: s.r_plus_s,
        twice_f_e_u_ns: s.twice_f_e_u,
    };
    let p = solve(&times).ok()?;
    let idle = solve(&ExperimentTimes {
        echo_ns: without_forwarding(&s.echo_idle, forward_ns),
        ..times
    })
    .ok()?;
    Some((p, idle.e_ns, forward_ns))
}

/// Reads one parameter.
type Getter = fn(&Parameters) -> f64;

/// The parameters by name, in the paper's order.
const PARAMS: [(&str, Getter); 6] = [
    ("e", |p| p.e_ns),
    ("r", |p| p.r_ns),
    ("s", |p| p.s_ns),
    ("f", |p| p.f_ns),
    ("u", |p| p.u_ns),
    ("a", |p| p.a_ns),
];

/// Adds the points, fits and warnings of one `Q` to `result`.
fn add_q(result: &mut KernelResult, kind: QKind, reps: &[Repetition]) {
    let sizes: Vec<usize> = reps
        .first()
        .map(|r| r.sizes.iter().map(|s| s.size).collect())
        .unwrap_or_default();
    // The lines are fitted to the medians over repetitions: on a machine shared
    // with other work one disturbed repetition would otherwise tilt them.
    let mut medians: Vec<Parameters> = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        let at: Vec<&SizeTimes> = reps.iter().filter_map(|r| r.sizes.get(i)).collect();
        let solved: Vec<(Parameters, f64, f64)> = at.iter().filter_map(|s| solve_size(s)).collect();
        let mut point = Point::new()
            .with("q_float", f64::from(u8::from(kind == QKind::Float)))
            .with("size_bytes", size as f64)
            .with("repetitions", solved.len() as f64);
        // (point, (mean, standard deviation, median)) of the finite values.
        type Central = Option<(f64, f64, f64)>;
        let stat = |point: Point, name: &str, values: Vec<f64>| -> (Point, Central) {
            let finite: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
            match summarize(&finite) {
                Ok(s) => {
                    let c = (s.mean, s.std_dev, s.median);
                    (point.with_stats(name, s), Some(c))
                }
                Err(_) => (point, None),
            }
        };
        let mut median_of = BTreeMap::new();
        for (name, get) in PARAMS {
            let (p, ms) = stat(
                point,
                &format!("{name}_ns"),
                solved.iter().map(|s| get(&s.0)).collect(),
            );
            point = p;
            if let Some((m, sd, median)) = ms {
                median_of.insert(name, median);
                if m + sd < 0.0 {
                    result.warnings.push(format!(
                        "{} Q, {size} B: {} = {} ns is below zero by more than its standard deviation {}",
                        kind.name(),
                        name.to_uppercase(),
                        num(m),
                        num(sd)
                    ));
                }
            }
        }
        let raw: [(&str, Vec<f64>); 10] = [
            ("e_idle_ns", solved.iter().map(|s| s.1).collect()),
            ("forward_ns", solved.iter().map(|s| s.2).collect()),
            ("echo_d1_ns", at.iter().map(|s| s.echo_busy[0]).collect()),
            (
                "echo_d5_ns",
                at.iter().map(|s| s.echo_busy[MAX_DISTANCE - 1]).collect(),
            ),
            ("r_plus_s_ns", at.iter().map(|s| s.r_plus_s).collect()),
            (
                "a_plus_u_ns",
                at.iter().map(|s| s.neighbour.a_plus_u_ns).collect(),
            ),
            (
                "f_plus_s_ns",
                at.iter().map(|s| s.neighbour.f_plus_s_ns).collect(),
            ),
            (
                "send_call_ns",
                at.iter().map(|s| s.neighbour.send_call_ns).collect(),
            ),
            ("twice_f_e_u_ns", at.iter().map(|s| s.twice_f_e_u).collect()),
            ("q_comptime_ns", reps.iter().map(|r| r.q.comp_ns).collect()),
        ];
        for (name, values) in raw {
            point = stat(point, name, values).0;
        }
        let late: u64 = at.iter().map(|s| s.neighbour.late + s.late_rs).sum();
        point = point.with("late_echoes", late as f64);
        if late > 0 {
            result.warnings.push(format!(
                "{} Q, {size} B: {late} echoes arrived after Q(COMPTIME) ended and were left out of R, A + U and R + S (the neighbour woke late)",
                kind.name()
            ));
        }
        if median_of.len() == PARAMS.len() {
            medians.push(Parameters {
                size_bytes: size as f64,
                e_ns: median_of["e"],
                r_ns: median_of["r"],
                s_ns: median_of["s"],
                f_ns: median_of["f"],
                u_ns: median_of["u"],
                a_ns: median_of["a"],
            });
        }
        result.points.push(point);
    }
    let paper: Vec<Parameters> = medians
        .iter()
        .filter(|p| p.size_bytes <= 2000.0)
        .cloned()
        .collect();
    if let Ok(lines) = fit_lines(&paper) {
        push_fits(result, kind, &lines, "16-2000 B, Table 3", "");
    }
    if medians.len() > paper.len()
        && let Ok(lines) = fit_lines(&medians)
    {
        push_fits(result, kind, &lines, "all sizes", "_all_sizes");
    }
}

fn push_fits(
    result: &mut KernelResult,
    kind: QKind,
    lines: &ParameterLines,
    over: &str,
    suffix: &str,
) {
    let each: [(&str, &LineFit); 6] = [
        ("e", &lines.e),
        ("r", &lines.r),
        ("s", &lines.s),
        ("f", &lines.f),
        ("u", &lines.u),
        ("a", &lines.a),
    ];
    for (name, line) in each {
        let sized = matches!(name, "e" | "f" | "u");
        let flagged = sized && line.r2 < R2_THRESHOLD;
        let upper = name.to_uppercase();
        if flagged {
            result.warnings.push(format!(
                "{} Q, {over}: the line of {upper} has R^2 = {:.3} < {R2_THRESHOLD}",
                kind.name(),
                line.r2
            ));
        }
        let p0 = format!("{}_{name}0_ns{suffix}", kind.prefix());
        let p1 = format!("{}_{name}1_ns_per_byte{suffix}", kind.prefix());
        let mut params = BTreeMap::new();
        params.insert(p0.clone(), line.intercept);
        params.insert(p1.clone(), line.slope);
        let mut std_errors = BTreeMap::new();
        std_errors.insert(p0, line.se_intercept);
        std_errors.insert(p1, line.se_slope);
        result.fits.push(FitResult {
            model: format!(
                "{upper} = {upper}0 + {upper}1 n ({} Q, {over}{})",
                kind.name(),
                if sized { "" } else { "; flat, R^2 not a test" }
            ),
            x: "size_bytes".into(),
            y: format!("{name}_ns.median"),
            params,
            std_errors,
            r2: line.r2,
            n_points: line.n_points,
            flagged,
        });
    }
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let kernel = "decomposition";
    let cpus = cpu_pair(ctx, kernel)?;
    let team = Team::new(&ctx.team_spec(cpus.clone(), RANKS, true))?;
    let sizes = sizes(ctx);
    if sizes.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: kernel.into(),
            reason: "no message sizes given".into(),
        });
    }
    let tconfig = store_and_forward(sizes.iter().copied().max().unwrap_or(0));
    let repetitions = ctx.config.trials.unwrap_or(REPETITIONS);
    let reps = notimes(ctx.config.quick);
    let backgrounds: Vec<Background> = QKind::ALL
        .iter()
        .map(|&k| Background::calibrate(k, SENDTIME))
        .collect();
    ctx.progress.begin(
        kernel,
        (ctx.config.transports.len() * backgrounds.len() * repetitions * sizes.len()) as u64,
    );
    let mut out = Vec::new();
    for &transport in &ctx.config.transports {
        let mut result = KernelResult {
            kernel: kernel.into(),
            method: "krumme-greenfield".into(),
            transport: Some(transport.name().into()),
            cpus: cpus.clone(),
            distance_class: (cpus.len() == 2)
                .then(|| ctx.topology.distance(cpus[0], cpus[1]))
                .flatten(),
            placement: team.placement(),
            ranks: team.size(),
            points: Vec::new(),
            fits: Vec::new(),
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
        };
        for bg in &backgrounds {
            if ctx.cancelled() {
                break;
            }
            let on_size = |size: usize| {
                ctx.progress
                    .step(&format!("{transport} {} Q {size} B", bg.kind.name()))
            };
            let cancelled = || ctx.cancelled();
            let plan = Plan {
                bg: *bg,
                sizes: &sizes,
                reps,
                repetitions,
                on_size: &on_size,
                cancelled: &cancelled,
            };
            let reps = match transport {
                TransportKind::Mailbox => run_on::<Mailbox>(&team, &tconfig, &plan)?,
                TransportKind::Channel => run_on::<Channel>(&team, &tconfig, &plan)?,
            };
            add_q(&mut result, bg.kind, &reps);
        }
        result
            .warnings
            .push(placement_note(team.placement(), &cpus));
        out.push(result);
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(out)
}

fn placement_note(placement: Placement, cpus: &[usize]) -> String {
    format!(
        "{placement} processors: {RANKS} ranks dealt round-robin on CPUs {cpus:?}{}; waits park, so E includes thread wake-ups; forwarding ranks are user code and their receive + send (forward_ns) is taken out of each echo step",
        if cpus.len() < 2 {
            " (one CPU: hops do not cross CPUs)"
        } else {
            " (every hop crosses a CPU)"
        }
    )
}

/// The paper-shaped tables of a `decomposition` or `interference` result (Tables
/// 1 to 3; section 5.2), or `None` for other kernels.
pub fn paper_table(r: &KernelResult) -> Option<String> {
    match r.kernel.as_str() {
        "decomposition" => Some(tables(r)),
        "interference" => Some(super::interference::table(r)),
        _ => None,
    }
}

fn tables(r: &KernelResult) -> String {
    let mut s = String::new();
    for kind in QKind::ALL {
        let flag = f64::from(u8::from(kind == QKind::Float));
        let points: Vec<&Point> = r
            .points
            .iter()
            .filter(|p| p.number("q_float") == Some(flag))
            .collect();
        if points.is_empty() {
            continue;
        }
        let table = if kind == QKind::Integer { 1 } else { 2 };
        let _ = writeln!(
            s,
            "   Table {table} shape: {} Q, ns, mean ± standard deviation over repetitions",
            kind.name()
        );
        let _ = write!(s, "   {:<8}", "Size");
        for p in &points {
            let _ = write!(s, " {:>16}", p.number("size_bytes").map_or("?".into(), num));
        }
        s.push('\n');
        let rows = [
            ("E", "e_ns"),
            ("R", "r_ns"),
            ("S", "s_ns"),
            ("F", "f_ns"),
            ("U", "u_ns"),
            ("A", "a_ns"),
            ("E idle", "e_idle_ns"),
            ("W fwd", "forward_ns"),
        ];
        for (label, key) in rows {
            let _ = write!(s, "   {label:<8}");
            for p in &points {
                let cell = p.stats(key).map_or("-".into(), |x| {
                    format!("{} ± {}", num(x.mean), num(x.std_dev))
                });
                let _ = write!(s, " {cell:>16}");
            }
            s.push('\n');
        }
        let _ = writeln!(
            s,
            "   Table 3 shape: {} Q, lines X0 + X1 n (fitted to the medians)",
            kind.name()
        );
        for f in r.fits.iter().filter(|f| f.model.contains(kind.name())) {
            let get = |part: &str| {
                f.params
                    .iter()
                    .find(|(k, _)| k.contains(part))
                    .map_or(f64::NAN, |(_, v)| *v)
            };
            let name = &f.model[..1];
            let letter = name.to_lowercase();
            let over = if f.model.contains("all sizes") {
                "all sizes"
            } else {
                "16-2000 B"
            };
            let _ = writeln!(
                s,
                "   {name:<8} {:>10} + {:>8} n ns   R^2 = {:.3}  ({over}){}",
                num(get(&format!("_{letter}0_"))),
                num(get(&format!("_{letter}1_"))),
                f.r2,
                if f.flagged { "  FLAGGED" } else { "" }
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 1 (integer Q), µs: rows 16, 500, 1000, 1500, 2000 bytes; E R S F U A.
    const TABLE_1_US: [[f64; 6]; 5] = [
        [242.0, 178.0, 152.0, 169.0, 137.0, 122.0],
        [864.0, 200.0, 157.0, 465.0, 429.0, 124.0],
        [1506.0, 219.0, 167.0, 762.0, 748.0, 111.0],
        [2149.0, 249.0, 167.0, 1036.0, 1072.0, 97.0],
        [2792.0, 261.0, 175.0, 1372.0, 1343.0, 126.0],
    ];

    /// What this kernel's experiments would measure on a machine with Table 1's
    /// parameters whose forwarders spend `w` ns per hop in user code.
    fn measured(size: usize, [e, r, s, f, u, a]: [f64; 6], w: f64) -> SizeTimes {
        let [e, r, s, f, u, a] = [e, r, s, f, u, a].map(|v| v * 1e3);
        let echo = |x: f64| {
            (1..=MAX_DISTANCE)
                .map(|d| 2.0 * f + 2.0 * d as f64 * e + 2.0 * u + x + 2.0 * (d - 1) as f64 * w)
                .collect()
        };
        SizeTimes {
            size,
            echo_busy: echo(0.0),
            echo_idle: echo(5_000.0),
            neighbour: NeighbourTimes {
                r_ns: r,
                a_plus_u_ns: a + u,
                send_call_ns: w - (a + u),
                f_plus_s_ns: f + s,
                late: 0,
            },
            r_plus_s: r + s,
            late_rs: 0,
            twice_f_e_u: 2.0 * (f + e + u),
        }
    }

    fn empty_result() -> KernelResult {
        KernelResult {
            kernel: "decomposition".into(),
            method: "krumme-greenfield".into(),
            transport: Some("mailbox".into()),
            cpus: vec![0, 1],
            distance_class: None,
            placement: Placement::Virtual,
            ranks: RANKS,
            points: Vec::new(),
            fits: Vec::new(),
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
        }
    }

    /// The whole analysis (forwarding work out of the echo, solve in the paper's
    /// order, mean and deviation over repetitions, lines) on the experiments that
    /// Table 1's parameters would produce with 3 ms of forwarding work per hop gives
    /// back Table 1 and the paper's Table 3: E = 220 + 1.285n, R = 180 + .04n,
    /// S = 150 + .01n, F = 160 + .60n, U = 130 + .61n, A = 120 + 0.0n µs (intercepts
    /// to the paper's two figures, slopes to its printed decimals).
    #[test]
    fn table_1_experiments_give_table_1_and_table_3() {
        let sizes: Vec<SizeTimes> = PAPER_SIZES
            .iter()
            .zip(TABLE_1_US)
            .map(|(&n, row)| measured(n, row, 3_000_000.0))
            .collect();
        let q = QTimes {
            send_ns: 1.0,
            comp_ns: 5.0,
        };
        let reps: Vec<Repetition> = (0..REPETITIONS)
            .map(|_| Repetition {
                q,
                sizes: sizes.clone(),
            })
            .collect();
        let mut result = empty_result();
        add_q(&mut result, QKind::Integer, &reps);
        assert_eq!(result.points.len(), 5);
        let p = &result.points[2];
        assert_eq!(p.number("size_bytes"), Some(1000.0));
        for (name, want_us) in [
            ("e_ns", 1506.0),
            ("r_ns", 219.0),
            ("s_ns", 167.0),
            ("f_ns", 762.0),
            ("u_ns", 748.0),
            ("a_ns", 111.0),
            ("e_idle_ns", 1506.0),
        ] {
            let s = p.stats(name).unwrap();
            assert!((s.mean - want_us * 1e3).abs() < 1e-3, "{name} = {}", s.mean);
            assert_eq!(s.std_dev, 0.0);
        }
        let printed = [
            ("e", 220.0, 1.285, 3),
            ("r", 180.0, 0.04, 2),
            ("s", 150.0, 0.01, 2),
            ("f", 160.0, 0.60, 2),
            ("u", 130.0, 0.61, 2),
            ("a", 120.0, 0.0, 1),
        ];
        assert_eq!(result.fits.len(), 6);
        for (name, x0_us, x1_us, decimals) in printed {
            let fit = result
                .fits
                .iter()
                .find(|f| f.y == format!("{name}_ns.median"))
                .unwrap();
            let x0 = fit.params[&format!("int_{name}0_ns")] / 1e3;
            let x1 = fit.params[&format!("int_{name}1_ns_per_byte")] / 1e3;
            let scale = 10f64.powi(decimals);
            assert_eq!((x0 / 10.0).round() * 10.0, x0_us, "{name}0 = {x0}");
            assert_eq!((x1 * scale).round() / scale, x1_us, "{name}1 = {x1}");
            assert!(!fit.flagged, "{name}");
        }
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);
        let text = tables(&result);
        assert!(text.contains("Table 1 shape") && text.contains("Table 3 shape"));
    }

    /// Forwarding work comes off each step: with W = 100, raw T = 1000, 1500, 2000
    /// become 1000, 1300, 1600, so E = 150 instead of 250.
    #[test]
    fn forwarding_work_is_taken_out_of_each_echo_step() {
        assert_eq!(
            without_forwarding(&[1000.0, 1500.0, 2000.0], 100.0),
            vec![1000.0, 1300.0, 1600.0]
        );
    }
}
