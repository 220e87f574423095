//! The two-rank measurement shared by `pingpong` and `oneway`.
//!
//! Rank 0 is the server and the only one that times (no global clock). Before
//! each batch it sends the client a 16-byte command (repetitions, size); a command
//! of zero repetitions ends the kernel. The timed loops are monomorphic in the
//! endpoint type and marked `#[inline(never)]` so that they are the same code for
//! every size.

use super::super::convert;
use super::super::harness::flags::{CopyPair, FlagPair};
use super::super::harness::pair::{check_len, choose_pair, client_pingpong, server_pingpong};
use super::super::harness::probe::{copy_probe_param, over_probe, probe_param, probe_warning};
use super::super::harness::sweep::SweepPlan;
use super::super::harness::timing::{
    EventHistogram, Timer, calibrate, per_rep_ns, summarize_trials,
};
use super::super::harness::transports::per_transport;
use super::super::headline;
use super::super::{KernelError, RunContext};
use crate::control::{Placement, RankError};
use crate::model::fit::{FitError, fit_line, fit_line_relative};
use crate::model::stats::Summary;
use crate::platform::{ClockInfo, DistanceClass, Topology, first_touch, node_of_address};
use crate::results::{FitResult, KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::mailbox::MailboxEndpoint;
use crate::transport::{Endpoint, Transport, TransportConfig};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

/// Below this R^2 a fit is flagged as not to be trusted.
pub(crate) const R2_THRESHOLD: f64 = 0.9;

/// Which of scibench's two tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Fig. 7: alternate sends; latency = round trip / 2.
    PingPong,
    /// Fig. 6: stream, then one acknowledgement; latency = time / reps.
    OneWay,
}

/// The default message sizes: powers of two from 1 B to 64 KiB.
pub fn default_sizes() -> Vec<usize> {
    (0..=16).map(|p| 1usize << p).collect()
}

/// What rank 0 measured at one size.
#[derive(Debug, Clone)]
pub(crate) struct SizeSamples {
    pub(crate) size: usize,
    pub(crate) reps: u64,
    /// Per-message latency of each trial, ns (one-way for both patterns).
    pub(crate) samples_ns: Vec<f64>,
    /// Ping-pong only: single round trips timed one by one, ns.
    pub(crate) single_round_trip_ns: Option<Summary>,
}

fn command(reps: u64, size: usize) -> [u8; 16] {
    let mut c = [0u8; 16];
    c[..8].copy_from_slice(&reps.to_le_bytes());
    c[8..].copy_from_slice(&(size as u64).to_le_bytes());
    c
}

/// Times each of `reps` round trips on its own, into `hist` (clock overhead
/// subtracted): the distribution behind the batch minimum.
#[inline(never)]
fn server_pingpong_each<E: Endpoint>(
    ep: &mut E,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    clock: &ClockInfo,
    hist: &mut EventHistogram,
) -> Result<(), RankError> {
    for _ in 0..reps {
        let timer = Timer::start();
        ep.send(1, out)?;
        let n = ep.recv(1, inbuf)?;
        let took = timer.elapsed_net_ns(clock);
        check_len(n, out.len())?;
        hist.record(took);
    }
    Ok(())
}

#[inline(never)]
fn server_oneway<E: Endpoint>(
    ep: &mut E,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
) -> Result<Duration, RankError> {
    let timer = Timer::start();
    for _ in 0..reps {
        ep.send(1, out)?;
    }
    ep.recv(1, inbuf)?; // the acknowledgement of the final message
    Ok(timer.elapsed())
}

#[inline(never)]
fn client_oneway<E: Endpoint>(
    ep: &mut E,
    inbuf: &mut [u8],
    size: usize,
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..reps {
        let n = ep.recv(0, inbuf)?;
        check_len(n, size)?;
    }
    ep.send(0, &[1u8])
}

/// Why a measurement stopped early.
enum Stop {
    /// The user interrupted the run.
    Cancelled,
    /// A rank failed.
    Rank(RankError),
}

impl From<RankError> for Stop {
    fn from(e: RankError) -> Stop {
        Stop::Rank(e)
    }
}

/// The latency of one message from the time of one repetition of `pattern`: a
/// ping-pong repetition is a round trip (two messages), a one-way repetition one
/// message (its acknowledgement is shared by the whole batch).
pub(crate) fn per_message_ns(pattern: Pattern, per_rep_ns: f64) -> f64 {
    match pattern {
        Pattern::PingPong => convert::one_way_ns(per_rep_ns),
        Pattern::OneWay => per_rep_ns,
    }
}

/// Settings of one two-rank sweep: the harness's plan over the message
/// sizes, which of scibench's tests, and the ping-pong's single round trips.
pub(crate) struct PairPlan<'a> {
    /// The sizes (the points), trials, batch target, clock, fault, progress
    /// hook (after a size's last trial) and cancel check.
    pub(crate) sweep: SweepPlan<'a, usize>,
    pub(crate) pattern: Pattern,
    /// Ping-pong: how many round trips to time one by one per size.
    pub(crate) single_round_trips: u64,
}

/// What rank 0 measured in a sweep: every size, and the two-flag probe of
/// each round.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairSamples {
    pub(crate) sizes: Vec<SizeSamples>,
    /// The two-flag round trip timed at the start of each round, ns.
    pub(crate) probes_ns: Vec<f64>,
    /// The copy probe timed after it in each round, ns per byte one way
    /// ([`CopyPair`]); empty where the probe has none (over MPI).
    pub(crate) copy_ns_per_byte: Vec<f64>,
    /// Where the transport's lines were homed ([`run_on`]).
    pub(crate) home: Option<LineHome>,
}

/// Where a pair's transport lines were homed: the CPU that first touched
/// them and the NUMA node their memory is on ([`crate::platform::Home`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineHome {
    /// The CPU whose pinned thread allocated the transport.
    pub(crate) cpu: usize,
    /// The node of the page of the line rank 0 polls, as the kernel reported
    /// it (`get_mempolicy`); else the home CPU's node from the topology.
    pub(crate) node: Option<usize>,
    /// Whether `node` was read back from the page (else assumed).
    pub(crate) read_back: bool,
    /// The home CPU's node, from the topology.
    pub(crate) cpu_node: Option<usize>,
}

impl LineHome {
    /// The point quantities that record it: `home_cpu`, `home_node` (where
    /// known) and `home_node_read_back` (1 when read from the page).
    pub(crate) fn annotate(&self, point: Point) -> Point {
        let point = point
            .with("home_cpu", self.cpu as f64)
            .with("home_node_read_back", f64::from(u8::from(self.read_back)));
        match self.node {
            Some(n) => point.with("home_node", n as f64),
            None => point,
        }
    }

    /// A warning where the page landed elsewhere than the home CPU's node
    /// (an allocator reusing memory touched before).
    pub(crate) fn warning(&self) -> Option<String> {
        match (self.read_back, self.node, self.cpu_node) {
            (true, Some(got), Some(want)) if got != want => Some(format!(
                "the transport's lines were first touched on CPU {} (node {want}) but their page is on node {got}: memory the allocator reused stays where it was first touched",
                self.cpu
            )),
            _ => None,
        }
    }
}

/// A sweep's rounds: each size's repetitions a batch, each size's sample of
/// every round, and the probe and the copy probe of every round.
type Rounds = (Vec<u64>, Vec<Vec<f64>>, Vec<f64>, Vec<f64>);

/// The size a command names for a batch of the two-flag probe instead of messages.
const PROBE_SIZE: usize = usize::MAX;

/// The size a command names for a batch of the copy probe.
const COPY_SIZE: usize = usize::MAX - 1;

/// The round trip a sweep times once a round beside its messages, to see the
/// machine's state: two bare flags between threads ([`FlagPair`]), the plain
/// MPI ping-pong between processes.
pub(crate) trait Probe<E> {
    /// Rank `ctx.rank`'s side of round trips `done + 1 ..= done + reps` (both
    /// ranks count alike); returns its time.
    fn round_trips(
        &self,
        ctx: &RankCtx<'_>,
        ep: &mut E,
        done: u64,
        reps: u64,
    ) -> Result<Duration, RankError>;

    /// The copy probe beside the round trip, where there is one.
    fn copy(&self) -> Option<&CopyPair> {
        None
    }
}

/// The probes of a sweep between threads: the two bare flags and the copy.
#[derive(Default)]
pub(crate) struct PairProbes {
    flags: FlagPair,
    copy: CopyPair,
}

impl<E> Probe<E> for PairProbes {
    fn round_trips(
        &self,
        ctx: &RankCtx<'_>,
        _: &mut E,
        done: u64,
        reps: u64,
    ) -> Result<Duration, RankError> {
        self.flags.round_trips(ctx, done, reps)
    }

    fn copy(&self) -> Option<&CopyPair> {
        Some(&self.copy)
    }
}

/// Both ranks' side of a sweep; rank 0 returns the samples, rank 1 nothing.
///
/// Every size's batch is calibrated once; then every round times one batch of
/// the two-flag probe ([`FlagPair`]) and one batch of every size, round after
/// round, so that a change of the machine's state lands on every size alike and
/// the probe says which state each round saw.
pub(crate) fn pair_body<E: Endpoint, P: Probe<E>>(
    ctx: &RankCtx<'_>,
    ep: &mut E,
    flags: &P,
    plan: &PairPlan<'_>,
) -> Result<PairSamples, RankError> {
    let sweep = &plan.sweep;
    sweep.inject_fault(ctx)?;
    let max = sweep.points.iter().copied().max().unwrap_or(1).max(16);
    let out: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
    let mut inbuf = vec![0u8; max];
    // Round trips done on `flags` and on its copy probe, counted alike by
    // both ranks.
    let (mut probed, mut copied) = (0u64, 0u64);
    if ctx.rank == 1 {
        loop {
            let n = ep.recv(0, &mut inbuf)?;
            check_len(n, 16)?;
            let reps = u64::from_le_bytes(inbuf[..8].try_into().expect("8 bytes"));
            let size = u64::from_le_bytes(inbuf[8..16].try_into().expect("8 bytes")) as usize;
            if reps == 0 {
                return Ok(PairSamples::default());
            }
            match plan.pattern {
                _ if size == PROBE_SIZE => {
                    flags.round_trips(ctx, ep, probed, reps)?;
                    probed += reps;
                }
                _ if size == COPY_SIZE => {
                    if let Some(copy) = flags.copy() {
                        copy.round_trips(ctx, copied, reps)?;
                        copied += reps;
                    }
                }
                Pattern::PingPong => client_pingpong(ep, &out[..size], &mut inbuf, reps)?,
                Pattern::OneWay => client_oneway(ep, &mut inbuf, size, reps)?,
            }
        }
    }
    // The user's Ctrl-C is checked between batches, never inside the timed
    // loops; a sweep that was cut short returns nothing.
    let mut batch = |size: usize, reps: u64| -> Result<Duration, Stop> {
        if sweep.is_cancelled() {
            return Err(Stop::Cancelled);
        }
        ep.send(1, &command(reps, size))?;
        Ok(match plan.pattern {
            _ if size == PROBE_SIZE => {
                let took = flags.round_trips(ctx, ep, probed, reps)?;
                probed += reps;
                took
            }
            _ if size == COPY_SIZE => match flags.copy() {
                Some(copy) => {
                    let took = copy.round_trips(ctx, copied, reps)?;
                    copied += reps;
                    took
                }
                None => Duration::ZERO,
            },
            Pattern::PingPong => server_pingpong(ep, &out[..size], &mut inbuf, reps)?,
            Pattern::OneWay => server_oneway(ep, &out[..size], &mut inbuf, reps)?,
        })
    };
    let mut rounds = || -> Result<Rounds, Stop> {
        let reps = sweep
            .points
            .iter()
            .map(|&size| calibrate(sweep.target, |r| batch(size, r)))
            .collect::<Result<Vec<u64>, Stop>>()?;
        let probe_reps = calibrate(sweep.target, |r| batch(PROBE_SIZE, r))?;
        // The copy probe, a quarter of the target a round.
        let copy_reps = match flags.copy() {
            Some(_) => calibrate(sweep.target / 4, |r| batch(COPY_SIZE, r))?,
            None => 0,
        };
        let mut samples = vec![Vec::with_capacity(sweep.trials); sweep.points.len()];
        let mut probes = Vec::with_capacity(sweep.trials);
        let mut copies = Vec::with_capacity(sweep.trials);
        for round in 0..sweep.trials {
            let took = batch(PROBE_SIZE, probe_reps)?;
            probes.push(per_rep_ns(took, probe_reps, sweep.clock));
            if let Some(copy) = flags.copy().filter(|_| copy_reps > 0) {
                let took = batch(COPY_SIZE, copy_reps)?;
                copies.push(copy.ns_per_byte(per_rep_ns(took, copy_reps, sweep.clock)));
            }
            for ((&size, &r), out) in sweep.points.iter().zip(&reps).zip(&mut samples) {
                let per_rep = per_rep_ns(batch(size, r)?, r, sweep.clock);
                out.push(per_message_ns(plan.pattern, per_rep));
                if round + 1 == sweep.trials {
                    (sweep.on_point)(size);
                }
            }
        }
        Ok((reps, samples, probes, copies))
    };
    let (reps, samples, probes_ns, copy_ns_per_byte) = match rounds() {
        Ok(m) => m,
        Err(Stop::Cancelled) => {
            ep.send(1, &command(0, 0))?;
            return Ok(PairSamples::default());
        }
        Err(Stop::Rank(e)) => return Err(e),
    };
    let mut results = Vec::with_capacity(sweep.points.len());
    for ((&size, reps), samples_ns) in sweep.points.iter().zip(reps).zip(samples) {
        let single_round_trip_ns = match plan.pattern {
            Pattern::PingPong => {
                let mut hist = EventHistogram::new();
                let mut left = plan.single_round_trips;
                while left > 0 && !sweep.is_cancelled() {
                    let each = left.min(1000);
                    ep.send(1, &command(each, size))?;
                    server_pingpong_each(
                        ep,
                        &out[..size],
                        &mut inbuf,
                        each,
                        sweep.clock,
                        &mut hist,
                    )?;
                    left -= each;
                }
                if left > 0 {
                    break;
                }
                hist.summary()
            }
            Pattern::OneWay => None,
        };
        results.push(SizeSamples {
            size,
            reps,
            samples_ns,
            single_round_trip_ns,
        });
    }
    ep.send(1, &command(0, 0))?;
    black_box(&inbuf);
    Ok(PairSamples {
        sizes: results,
        probes_ns,
        copy_ns_per_byte,
        home: None,
    })
}

/// Runs a sweep on a team with endpoints of transport `T`, whose memory is
/// allocated (first touched) by a thread pinned to `home` on `topology`.
pub(crate) fn run_on<T: Transport>(
    team: &Team,
    kernel: &str,
    config: &TransportConfig,
    plan: &PairPlan<'_>,
    (home, topology): (usize, &Topology),
) -> Result<PairSamples, KernelError>
where
    T::Endpoint: 'static,
{
    let eps = first_touch(home, || T::endpoints(team.control(), config)).map_err(|e| {
        KernelError::Failed {
            kernel: kernel.into(),
            reason: format!("homing its transport's lines: {e}"),
        }
    })?;
    let read = (&eps[0] as &dyn std::any::Any)
        .downcast_ref::<MailboxEndpoint>()
        .and_then(|ep| node_of_address(ep.lane_line(1) as usize));
    let cpu_node = topology.cpu(home).and_then(|c| c.numa_node);
    let line = LineHome {
        cpu: home,
        node: read.or(cpu_node),
        read_back: read.is_some(),
        cpu_node,
    };
    let probes = PairProbes::default();
    let mut per_rank = team.run(kernel, eps, |ctx, ep| pair_body(ctx, ep, &probes, plan))?;
    let mut samples = per_rank.swap_remove(0);
    samples.home = Some(line);
    Ok(samples)
}

/// The CPU that homes the lines of a pair kernel on `cpus` (`--home`; the
/// first CPU for a team sharing one).
pub(crate) fn home_cpu(
    ctx: &RunContext<'_>,
    kernel: &str,
    cpus: &[usize],
) -> Result<usize, KernelError> {
    let pair = (cpus[0], *cpus.get(1).unwrap_or(&cpus[0]));
    ctx.config
        .home
        .cpu_for(ctx.topology, ctx.allowed, pair)
        .map_err(|e| KernelError::NotRunnable {
            kernel: kernel.into(),
            reason: e.to_string(),
        })
}

/// Runs `pattern` over every configured transport and returns one result each,
/// with points, the `t_startup + N t_per_byte` fit and warnings.
pub(crate) fn sweep(
    ctx: &RunContext<'_>,
    kernel: &str,
    pattern: Pattern,
) -> Result<Vec<KernelResult>, KernelError> {
    let cpus = choose_pair(ctx, kernel)?;
    let team = Team::new(&ctx.team_spec(cpus.clone(), 2, false))?;
    let layout = PairLayout {
        placement: team.placement(),
        ranks: team.size(),
        distance: match cpus[..] {
            [a, b] => ctx.topology.distance(a, b),
            _ => None,
        },
    };
    let sizes = ctx.config.sizes.clone().unwrap_or_else(default_sizes);
    let max = sizes.iter().copied().max().unwrap_or(1);
    let tconfig = TransportConfig::for_messages(max.max(16));
    per_transport(ctx, kernel, sizes.len(), |transport| {
        let on_size = |size: usize| ctx.progress.step(&format!("{transport} {size} B"));
        let cancelled = || ctx.cancelled();
        let plan = PairPlan {
            sweep: SweepPlan::new(ctx, &sizes, &on_size, &cancelled),
            pattern,
            single_round_trips: ctx.config.effort().single_round_trips,
        };
        let home = (home_cpu(ctx, kernel, &cpus)?, ctx.topology);
        let samples =
            crate::with_transport!(transport, run_on(&team, kernel, &tconfig, &plan, home))?;
        Ok(latency_result(
            kernel,
            Some(transport.name()),
            &layout,
            &cpus,
            &samples,
        ))
    })
}

/// Where a pair's ranks ran, as its result records it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairLayout {
    /// How the ranks sit on CPUs.
    pub(crate) placement: Placement,
    /// Ranks in the team.
    pub(crate) ranks: usize,
    /// The distance class of the two ranks.
    pub(crate) distance: Option<DistanceClass>,
}

/// Builds the result of a latency sweep: points, bandwidth, the line fit on the
/// minimum latencies (relative to them,
/// [`crate::model::fit::fit_line_relative`]: their spread grows with the
/// time, and by ordinary least squares the 64 KiB point's scatter set the
/// start-up), the accuracy, goodness-of-fit and state-change warnings,
/// and the headline: the fit's parameters, `t_startup` over the probe's one-way
/// time, and the probe ([`crate::kernels::harness::probe`]).
pub(crate) fn latency_result(
    kernel: &str,
    transport: Option<&str>,
    layout: &PairLayout,
    cpus: &[usize],
    measured: &PairSamples,
) -> KernelResult {
    let samples = &measured.sizes;
    let mut warnings: Vec<String> = measured.home.iter().filter_map(LineHome::warning).collect();
    let mut points = Vec::with_capacity(samples.len());
    for s in samples {
        let (summary, warning) = summarize_trials(&s.samples_ns, &format!("{} B", s.size));
        warnings.extend(warning);
        let bandwidth_mb_per_s = convert::bandwidth_mb_per_s(s.size as f64, summary.min);
        let mut point = Point::new()
            .with("size_bytes", s.size as f64)
            .with("reps", s.reps as f64)
            .with_stats("one_way_ns", summary)
            .with("bandwidth_mb_per_s", bandwidth_mb_per_s);
        if let Some(rt) = &s.single_round_trip_ns {
            point = point.with_stats("single_round_trip_ns", rt.clone());
        }
        if let Some(home) = &measured.home {
            point = home.annotate(point);
        }
        points.push(point);
    }
    let mut fits = Vec::new();
    let x: Vec<f64> = samples.iter().map(|s| s.size as f64).collect();
    let y: Vec<f64> = points
        .iter()
        .map(|p| p.stats("one_way_ns").map_or(f64::NAN, |s| s.min))
        .collect();
    let fitted = match fit_line_relative(&x, &y) {
        Err(FitError::NonPositive { index }) => {
            warnings.push(format!(
                "the {} B point's time is zero or less, which a fit relative to the times cannot weigh: t_startup + N t_per_byte by ordinary least squares",
                x[index]
            ));
            fit_line(&x, &y)
        }
        other => other,
    };
    match fitted {
        Ok(line) => {
            let flagged = line.r2 < R2_THRESHOLD;
            if flagged {
                let (size, off) = x
                    .iter()
                    .zip(&y)
                    .zip(&line.residuals)
                    .map(|((n, t), r)| (*n, r / (t - r)))
                    .fold(
                        (0.0, 0.0_f64),
                        |a, b| if b.1.abs() > a.1.abs() { b } else { a },
                    );
                let side = if off < 0.0 { "below" } else { "above" };
                warnings.push(format!(
                    "fit t_startup + N t_per_byte has R^2 = {:.3} < {R2_THRESHOLD} relative to the times: the line does not describe these latencies ({size} B took {:.0} % {side} it)",
                    line.r2,
                    off.abs() * 100.0
                ));
            }
            let mut params = BTreeMap::new();
            params.insert("t_startup_ns".into(), line.intercept);
            params.insert("t_per_byte_ns".into(), line.slope);
            if line.slope > 0.0 {
                params.insert("asymptotic_bandwidth_mb_per_s".into(), 1e3 / line.slope);
                params.insert("n_half_bytes".into(), line.intercept / line.slope);
            }
            let mut std_errors = BTreeMap::new();
            std_errors.insert("t_startup_ns".into(), line.se_intercept);
            std_errors.insert("t_per_byte_ns".into(), line.se_slope);
            fits.push(FitResult {
                model: "t_startup + N t_per_byte".into(),
                x: "size_bytes".into(),
                y: "one_way_ns.min".into(),
                params,
                std_errors,
                r2: line.r2,
                n_points: line.n_points,
                flagged,
            });
        }
        Err(e) if samples.len() >= 2 => warnings.push(format!("no latency fit: {e}")),
        Err(_) => {}
    }
    if layout.placement != Placement::Pinned {
        warnings.push(format!(
            "ranks share CPUs ({}): waits block, so latencies include wake-ups",
            layout.placement
        ));
    }
    warnings.extend(probe_warning(&measured.probes_ns));
    let mut headline = headline::from_fits(&fits);
    if let Some(probe) = probe_param(&measured.probes_ns, None) {
        let ratio = headline
            .iter()
            .find(|p| p.name == "t_startup_ns")
            .and_then(|t| over_probe(t, &probe));
        headline.extend(ratio);
        headline.push(probe);
    }
    headline.extend(copy_probe_param(&measured.copy_ns_per_byte));
    KernelResult::new(kernel, "scibench", layout.placement, cpus.to_vec())
        .with_transport(transport)
        .with_distance_class(layout.distance)
        .with_ranks(layout.ranks)
        .with_points(points)
        .with_fits(fits)
        .with_warnings(warnings)
        .with_headline(headline)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scibench's PP (Fig. 7) reports half the round trip, OW (Fig. 6) the time a
    /// message: a ping-pong repetition of 300 ns is a one-way latency of 150 ns,
    /// a one-way repetition of 300 ns one of 300 ns.
    #[test]
    fn a_ping_pong_repetition_is_two_messages_and_a_one_way_one() {
        assert_eq!(per_message_ns(Pattern::PingPong, 300.0), 150.0);
        assert_eq!(per_message_ns(Pattern::PingPong, 139.0), 69.5);
        assert_eq!(per_message_ns(Pattern::OneWay, 300.0), 300.0);
    }

    fn sweep_of(points: &[(usize, f64)]) -> KernelResult {
        let samples = PairSamples {
            sizes: points
                .iter()
                .map(|&(size, t)| SizeSamples {
                    size,
                    reps: 100,
                    samples_ns: vec![t; 5],
                    single_round_trip_ns: None,
                })
                .collect(),
            ..PairSamples::default()
        };
        let layout = PairLayout {
            placement: Placement::Pinned,
            ranks: 2,
            distance: None,
        };
        latency_result("oneway", Some("mailbox"), &layout, &[0, 1], &samples)
    }

    /// Times on `t = 60 + 0.15 n` from 1 B to 64 KiB give the line relative
    /// to them, unflagged. A streamed size whose time read zero (a clock's
    /// cost subtracted from a batch) cannot be weighed relative to itself:
    /// the line is then fitted by ordinary least squares, and a warning
    /// names the size.
    #[test]
    fn the_latency_line_is_fitted_relative_to_the_times() {
        let line: Vec<(usize, f64)> = (0..17)
            .map(|k| (1usize << k, 60.0 + 0.15 * f64::from(1u32 << k)))
            .collect();
        let r = sweep_of(&line);
        let f = &r.fits[0];
        assert!((f.params["t_startup_ns"] - 60.0).abs() < 1e-6, "{f:?}");
        assert!((f.params["t_per_byte_ns"] - 0.15).abs() < 1e-9);
        assert!(!f.flagged && (f.r2 - 1.0).abs() < 1e-9);
        let mut zero = line.clone();
        zero[0].1 = 0.0;
        let r = sweep_of(&zero);
        assert!(r.fits[0].params.contains_key("t_startup_ns"));
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("the 1 B point's time is zero or less")),
            "{:?}",
            r.warnings
        );
    }
}
