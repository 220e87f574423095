//! `overheads`: Krumme & Greenfield's per-message CPU costs `S` (send) and `R`
//! (receive) measured on a pinned pair of processors, one rank a CPU, the
//! placement a replay of a GOAL schedule uses, with their lines
//! `S = S0 + S1 n`, `R = R0 + R1 n` (Table 3's form), and `C = C0 + C1 n`, the
//! one-way time of a message sent after an idle wait.
//!
//! # Why these are Krumme & Greenfield's S and R
//! Section 2 splits what a message costs a sending processor into the write
//! call `F` and the computation it loses after the call returns, `S`; and what
//! it costs the receiver into the computation lost while the message arrives,
//! `R`, and the read call, `A + U`. Section 3.4's first two experiments time
//! the read call on a message that has already arrived (`A + U`) and the
//! write call with the time it takes from a computation after it (`F + S`).
//! The thread transports have no interrupt routines and no DMA: nothing runs
//! for a message on the sender after `send` returns, nor on the receiver
//! before its `recv` (the data waits in its region or queue), so the send
//! call is all of `F + S` and the receive call on an arrived message all of
//! `R + A + U`. This kernel runs those two experiments on two pinned ranks;
//! the `decomposition` runs them on hosted virtual nodes, whose CPUs also
//! carry other nodes' work. `s0_ns`/`s1_ns_per_byte` are the send's line,
//! `r0_ns`/`r1_ns_per_byte` the receive's: a message's CPU time at each end,
//! LogGOPS's `o` and `O` (the mapping is `predict`'s).
//!
//! # The experiments (rank 0 times; rank 1 serves)
//! - send: rank 0 times a burst of `k` sends of `n` bytes while rank 1 polls
//!   and drains them; `k` fits the lane's credit, so no send waits for the
//!   receiver; rank 1 then acknowledges, untimed.
//! - receive: rank 1 sends a burst of `k`; rank 0 computes for a delay (at
//!   least [`RECV_DELAY_MIN`] and four times its last send burst of that size),
//!   so the burst has arrived and its lines lie in the sender's cache, then
//!   times its `k` receives.
//! - cold: rank 0 computes for [`COLD_IDLE`] while rank 1 polls, then times
//!   one round trip of `n` bytes (rank 1 echoes); half of it is `C`. Against
//!   the ping-pong's `t_startup`, a stream of round trips, `C0` says what the
//!   first message after a wait costs more.
//!
//! Each burst is timed whole (the clock's read overhead taken out, divided by
//! `k`). A round times one batch of every size and experiment (bursts until
//! the run's batch target is reached, at least [`BURSTS_MIN`]; the batch's
//! sample is its median burst), rounds repeat [`RunConfig::trials`](crate::kernels::RunConfig)
//! times, and the lines are fitted relative to the times to every round's
//! sample. Their standard errors give the card's 95 % intervals (with the
//! degrees of freedom of one line's samples less the six parameters). The
//! transport is built as a replay builds it, buffered for the longest size.
//! The two-flag probe of the pair is timed before and after.

use super::protocol::cpu_pair;
use crate::control::{Placement, RankError};
use crate::kernels::harness::probe::{between, record};
use crate::kernels::harness::timing::Timer;
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::fit::{FitError, LineFit, fit_line, fit_line_relative};
use crate::model::stats::summarize;
use crate::platform::ClockInfo;
use crate::results::{FitResult, KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport, TransportConfig};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "overheads";

/// The fit's model, which the card's rows name.
pub const MODEL: &str = "S = S0 + S1 n, R = R0 + R1 n, C = C0 + C1 n (pinned pair)";

pub(super) const OVERHEADS: KernelSpec = KernelSpec {
    name: NAME,
    method: "krumme-greenfield",
    paper: "Krumme & Greenfield 1988, sections 2 and 3.4 (S, R), on a pinned pair",
    about: "send and receive CPU overheads S, R and the cold one-way time C per transport, lines X0 + X1 n, one rank a CPU",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::No(
        "it times the thread transports' calls between two pinned threads",
    ),
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::FitParams {
            line: "pinned send S, receive R, cold one-way C",
            model: MODEL,
            names: &[
                "s0_ns",
                "s1_ns_per_byte",
                "r0_ns",
                "r1_ns_per_byte",
                "c0_ns",
                "c1_ns_per_byte",
            ],
        },
    )],
    run,
    plan: |b| super::estimate::overheads(b, &SIZES),
};

/// The message sizes, bytes: from one mailbox flag word to the replay's
/// 32 KiB ring steps and beyond.
pub const SIZES: [usize; 5] = [8, 1024, 4096, 16384, 65536];

/// Most messages in a burst.
const BURST_MAX: usize = 8;

/// The least delay before the timed receives.
pub(crate) const RECV_DELAY_MIN: Duration = Duration::from_micros(2);

/// The idle wait before a cold round trip.
pub(crate) const COLD_IDLE: Duration = Duration::from_micros(10);

/// Most bursts a batch holds (a batch also ends at its target).
const BURSTS_MAX: usize = 4096;

/// Fewest bursts a batch holds, so that its median stands when a few of its
/// bursts lost their CPU (one preempted burst alone would reach the target).
const BURSTS_MIN: usize = 16;

/// Below this R^2 (the worst of the three lines) the fit is flagged.
const R2_THRESHOLD: f64 = 0.9;

/// The experiments, as rank 0's command names them.
const END: u64 = 0;
const SEND: u64 = 1;
const RECV: u64 = 2;
const COLD: u64 = 3;

/// Messages of `size` bytes in a burst that fits `config`'s credit without
/// a wait: a quarter of the lane's slots (the mailbox's receiver returns
/// credit in halves, so up to half the ring may be read and not yet returned)
/// over the slots one message fills, between 1 and [`BURST_MAX`].
pub(crate) fn burst_of(config: &TransportConfig, size: usize) -> usize {
    let per_message = size.div_ceil(config.slot_bytes).max(1);
    (config.slots / 4 / per_message).clamp(1, BURST_MAX)
}

/// What rank 0 measured: per size, one sample a round of each experiment, ns
/// a message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverheadSamples {
    /// The sizes, bytes.
    pub sizes: Vec<usize>,
    /// Messages a burst, per size.
    pub burst: Vec<usize>,
    /// Send call, per size, per round.
    pub send_ns: Vec<Vec<f64>>,
    /// Receive call on an arrived message, per size, per round.
    pub recv_ns: Vec<Vec<f64>>,
    /// Half a round trip after an idle wait, per size, per round.
    pub cold_ns: Vec<Vec<f64>>,
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = cpu_pair(ctx, NAME)?;
    let team = Team::new(&ctx.team_spec(cpus.clone(), 2, false))?;
    let sizes: Vec<usize> = ctx.config.sizes.clone().unwrap_or_else(|| SIZES.to_vec());
    let config = TransportConfig::buffered(sizes.iter().copied().max().unwrap_or(8).max(16));
    let plan = Plan {
        sizes: &sizes,
        trials: ctx.config.trials(),
        target: ctx.config.batch_target(ctx.clock),
        clock: ctx.clock,
        config,
    };
    ctx.progress
        .begin(NAME, (sizes.len() * ctx.config.transports.len()) as u64);
    let mut out = Vec::new();
    for &transport in &ctx.config.transports {
        if ctx.cancelled() {
            break;
        }
        let (samples, probes) = between(ctx, &cpus, || {
            Ok(crate::with_transport!(
                transport,
                run_on(&team, &plan, &|| ctx.cancelled())
            )?)
        })?;
        sizes
            .iter()
            .for_each(|s| ctx.progress.step(&format!("{transport} {s} B")));
        let mut r = overheads_result(Some(transport.name()), team.placement(), &cpus, &samples)
            .with_pair_distance(ctx.topology);
        record(&mut r, &probes);
        out.push(r);
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(out)
}

/// The settings of one transport's measurement.
struct Plan<'a> {
    sizes: &'a [usize],
    trials: usize,
    target: Duration,
    clock: &'a ClockInfo,
    config: TransportConfig,
}

fn run_on<T: Transport>(
    team: &Team,
    plan: &Plan<'_>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<OverheadSamples, crate::team::TeamError> {
    let eps = T::endpoints(team.control(), &plan.config);
    let mut per_rank = team.run(NAME, eps, |ctx, ep| body(ctx, ep, plan, cancelled))?;
    Ok(per_rank.swap_remove(0))
}

fn command(experiment: u64, size: usize, k: usize) -> [u8; 24] {
    let mut c = [0u8; 24];
    c[..8].copy_from_slice(&experiment.to_le_bytes());
    c[8..16].copy_from_slice(&(size as u64).to_le_bytes());
    c[16..].copy_from_slice(&(k as u64).to_le_bytes());
    c
}

fn check_len(got: usize, want: usize) -> Result<(), RankError> {
    match got == want {
        true => Ok(()),
        false => Err(RankError::Failed(format!(
            "overheads: received {got} bytes, expected {want}"
        ))),
    }
}

/// Computes (a dependent chain of multiply-adds) until `d` has passed.
#[inline(never)]
fn compute_for(d: Duration) {
    let start = Timer::start();
    let mut x = 1.0f64;
    while start.elapsed() < d {
        for _ in 0..64 {
            x = black_box(x * 0.999_999 + 1e-9);
        }
    }
    black_box(x);
}

/// Rank 1: serves rank 0's commands until the end.
fn serve<E: Endpoint>(ep: &mut E, out: &[u8], inbuf: &mut [u8]) -> Result<(), RankError> {
    let mut cmd = [0u8; 24];
    loop {
        check_len(ep.recv(0, &mut cmd)?, 24)?;
        let word = |i: usize| u64::from_le_bytes(cmd[8 * i..8 * i + 8].try_into().expect("8 B"));
        let (experiment, size, k) = (word(0), word(1) as usize, word(2) as usize);
        match experiment {
            SEND => {
                for _ in 0..k {
                    check_len(ep.recv(0, inbuf)?, size)?;
                }
                ep.send(0, &out[..1])?;
            }
            RECV => {
                for _ in 0..k {
                    ep.send(0, &out[..size])?;
                }
            }
            COLD => {
                check_len(ep.recv(0, inbuf)?, size)?;
                ep.send(0, &out[..size])?;
            }
            _ => return Ok(()),
        }
    }
}

/// Rank 0's timed burst of `experiment` at `size`, ns a message, the clock's
/// read overhead taken out; `delay` is the receive experiment's wait.
#[inline(never)]
fn burst<E: Endpoint>(
    ep: &mut E,
    experiment: u64,
    (size, k): (usize, usize),
    delay: Duration,
    (out, inbuf): (&[u8], &mut [u8]),
    clock: &ClockInfo,
) -> Result<f64, RankError> {
    ep.send(1, &command(experiment, size, k))?;
    let (took, messages) = match experiment {
        SEND => {
            let t = Timer::start();
            for _ in 0..k {
                ep.send(1, &out[..size])?;
            }
            let took = t.elapsed();
            check_len(ep.recv(1, inbuf)?, 1)?;
            (took, k)
        }
        RECV => {
            compute_for(delay);
            let t = Timer::start();
            for _ in 0..k {
                let n = ep.recv(1, inbuf)?;
                check_len(n, size)?;
            }
            (t.elapsed(), k)
        }
        _ => {
            compute_for(COLD_IDLE);
            let t = Timer::start();
            ep.send(1, &out[..size])?;
            let n = ep.recv(1, inbuf)?;
            let took = t.elapsed();
            check_len(n, size)?;
            (took, 2)
        }
    };
    Ok(((took.as_nanos() as f64 - clock.read_overhead_ns).max(0.0)) / messages as f64)
}

/// Both ranks: rank 0 returns its samples, rank 1 nothing.
fn body<E: Endpoint>(
    ctx: &RankCtx<'_>,
    ep: &mut E,
    plan: &Plan<'_>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<OverheadSamples, RankError> {
    let max = plan.sizes.iter().copied().max().unwrap_or(8).max(24);
    let out: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
    let mut inbuf = vec![0u8; max];
    if ctx.rank != 0 {
        serve(ep, &out, &mut inbuf)?;
        return Ok(OverheadSamples::default());
    }
    let n = plan.sizes.len();
    let mut s = OverheadSamples {
        sizes: plan.sizes.to_vec(),
        burst: plan
            .sizes
            .iter()
            .map(|&z| burst_of(&plan.config, z))
            .collect(),
        send_ns: vec![Vec::with_capacity(plan.trials); n],
        recv_ns: vec![Vec::with_capacity(plan.trials); n],
        cold_ns: vec![Vec::with_capacity(plan.trials); n],
    };
    let mut bursts = Vec::with_capacity(BURSTS_MAX);
    // One warm-up round, untimed: every lane's slots written once.
    for round in 0..=plan.trials {
        for i in 0..n {
            if cancelled() {
                ep.send(1, &command(END, 0, 0))?;
                return Ok(OverheadSamples::default());
            }
            let sk = (s.sizes[i], s.burst[i]);
            let mut batch = |experiment: u64, delay: Duration| -> Result<f64, RankError> {
                bursts.clear();
                let start = Timer::start();
                while bursts.len() < BURSTS_MIN
                    || (bursts.len() < BURSTS_MAX && start.elapsed() < plan.target)
                {
                    let bufs = (&out[..], &mut inbuf[..]);
                    bursts.push(burst(&mut *ep, experiment, sk, delay, bufs, plan.clock)?);
                }
                Ok(median(&mut bursts))
            };
            let send = batch(SEND, Duration::ZERO)?;
            let delay = RECV_DELAY_MIN.max(Duration::from_nanos((4.0 * send * sk.1 as f64) as u64));
            let recv = batch(RECV, delay)?;
            let cold = batch(COLD, Duration::ZERO)?;
            if round > 0 {
                s.send_ns[i].push(send);
                s.recv_ns[i].push(recv);
                s.cold_ns[i].push(cold);
            }
        }
    }
    ep.send(1, &command(END, 0, 0))?;
    Ok(s)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    match v.len() % 2 {
        1 => v[m],
        _ => (v[m - 1] + v[m]) / 2.0,
    }
}

/// A line through every round's sample of every size, relative to the times;
/// by ordinary least squares where a sample is zero.
fn line(sizes: &[usize], per_size: &[Vec<f64>]) -> Result<LineFit, FitError> {
    let (x, y): (Vec<f64>, Vec<f64>) = sizes
        .iter()
        .zip(per_size)
        .flat_map(|(&n, ys)| ys.iter().map(move |&t| (n as f64, t)))
        .filter(|(_, t)| t.is_finite())
        .unzip();
    match fit_line_relative(&x, &y) {
        Err(FitError::NonPositive { .. }) => fit_line(&x, &y),
        other => other,
    }
}

/// The result of one transport: a point per size (each experiment's rounds),
/// the three lines as one fit ([`MODEL`]) and the warnings.
pub fn overheads_result(
    transport: Option<&str>,
    placement: Placement,
    cpus: &[usize],
    s: &OverheadSamples,
) -> KernelResult {
    let mut warnings = Vec::new();
    let mut points = Vec::new();
    for (i, &size) in s.sizes.iter().enumerate() {
        let mut p = Point::new()
            .with("size_bytes", size as f64)
            .with("burst_messages", s.burst[i] as f64);
        for (name, v) in [
            ("send_ns", &s.send_ns[i]),
            ("recv_ns", &s.recv_ns[i]),
            ("cold_one_way_ns", &s.cold_ns[i]),
        ] {
            if let Ok(sum) = summarize(v) {
                p = p.with_stats(name, sum);
            }
        }
        points.push(p);
    }
    let lines = [
        ("s", line(&s.sizes, &s.send_ns)),
        ("r", line(&s.sizes, &s.recv_ns)),
        ("c", line(&s.sizes, &s.cold_ns)),
    ];
    let mut fits = Vec::new();
    if lines.iter().all(|(_, l)| l.is_ok()) {
        let mut params = BTreeMap::new();
        let mut std_errors = BTreeMap::new();
        let (mut r2, mut n_points) = (1.0f64, usize::MAX);
        for (letter, l) in &lines {
            let l = l.as_ref().expect("checked");
            params.insert(format!("{letter}0_ns"), l.intercept);
            params.insert(format!("{letter}1_ns_per_byte"), l.slope);
            std_errors.insert(format!("{letter}0_ns"), l.se_intercept);
            std_errors.insert(format!("{letter}1_ns_per_byte"), l.se_slope);
            r2 = r2.min(l.r2);
            n_points = n_points.min(l.n_points);
        }
        let flagged = r2 < R2_THRESHOLD;
        if flagged {
            warnings.push(format!(
                "a line of {MODEL} has R^2 = {r2:.3} < {R2_THRESHOLD}: it does not describe these times"
            ));
        }
        fits.push(FitResult {
            model: MODEL.into(),
            x: "size_bytes".into(),
            y: "send_ns, recv_ns, cold_one_way_ns (every round)".into(),
            params,
            std_errors,
            r2,
            n_points,
            flagged,
        });
    } else {
        for (letter, l) in &lines {
            if let Err(e) = l {
                warnings.push(format!("no line {}: {e}", letter.to_uppercase()));
            }
        }
    }
    if placement != Placement::Pinned {
        warnings.push(format!(
            "ranks share a CPU ({placement}): the calls' times include the other rank's turns"
        ));
    }
    KernelResult::new(NAME, "krumme-greenfield", placement, cpus.to_vec())
        .with_transport(transport)
        .with_ranks(2)
        .with_points(points)
        .with_fits(fits)
        .with_warnings(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bursts fit a quarter of the ring: 64 slots of 2 KiB give 8 (at most)
    /// up to 2 KiB, 8 at 4 KiB (16 / 2), 1 at 32 KiB (16 / 16) and beyond.
    #[test]
    fn a_burst_fits_a_quarter_of_the_credit() {
        let c = TransportConfig::default();
        assert_eq!(burst_of(&c, 8), 8);
        assert_eq!(burst_of(&c, 4096), 8);
        assert_eq!(burst_of(&c, 8192), 4);
        assert_eq!(burst_of(&c, 32 * 1024), 1);
        assert_eq!(burst_of(&c, 64 * 1024), 1);
        assert_eq!(burst_of(&c, 1 << 20), 1);
        // The replay's buffered lanes for 64 KiB: 128 slots, 4 at 16 KiB.
        let b = TransportConfig::buffered(65536);
        assert_eq!((burst_of(&b, 16384), burst_of(&b, 65536)), (4, 1));
    }

    /// Samples on S = 20 + 0.05 n, R = 60 + 0.1 n, C = 80 + 0.12 n, each
    /// round 2 % above or below alternately: the lines come back within
    /// 2 % at the ends, with intervals, and the fit names the six parameters.
    #[test]
    fn the_three_lines_come_back_from_their_samples() {
        let sizes = SIZES.to_vec();
        let rounds = |a: f64, b: f64| -> Vec<Vec<f64>> {
            sizes
                .iter()
                .map(|&n| {
                    (0..6)
                        .map(|k| (a + b * n as f64) * if k % 2 == 0 { 1.02 } else { 0.98 })
                        .collect()
                })
                .collect()
        };
        let s = OverheadSamples {
            burst: vec![8; sizes.len()],
            send_ns: rounds(20.0, 0.05),
            recv_ns: rounds(60.0, 0.1),
            cold_ns: rounds(80.0, 0.12),
            sizes,
        };
        let r = overheads_result(Some("mailbox"), Placement::Pinned, &[0, 1], &s);
        let f = &r.fits[0];
        let near = |name: &str, want: f64| {
            let got = f.params[name];
            assert!((got / want - 1.0).abs() < 0.02, "{name}: {got} vs {want}");
            assert!(f.std_errors[name] > 0.0, "{name}");
        };
        near("s0_ns", 20.0);
        near("s1_ns_per_byte", 0.05);
        near("r0_ns", 60.0);
        near("r1_ns_per_byte", 0.1);
        near("c0_ns", 80.0);
        near("c1_ns_per_byte", 0.12);
        assert_eq!(f.n_points, 30);
        assert!(!f.flagged && r.warnings.is_empty(), "{:?}", r.warnings);
        assert_eq!(r.points.len(), 5);
        let p = &r.points[4];
        assert_eq!(p.number("size_bytes"), Some(65536.0));
        let send = p.stats("send_ns").unwrap();
        assert!((send.median - (20.0 + 0.05 * 65536.0)).abs() < 0.03 * send.median);
    }

    /// Too few samples for a line: no fit, a warning per line.
    #[test]
    fn without_lines_the_result_says_why() {
        let s = OverheadSamples {
            sizes: vec![8],
            burst: vec![8],
            send_ns: vec![vec![10.0]],
            recv_ns: vec![vec![20.0]],
            cold_ns: vec![vec![30.0]],
        };
        let r = overheads_result(Some("channel"), Placement::Pinned, &[0, 1], &s);
        assert!(r.fits.is_empty());
        assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
        assert!(r.warnings[0].starts_with("no line S"), "{:?}", r.warnings);
    }
}
