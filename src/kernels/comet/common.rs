//! What the CoMet kernels share: the command-driven sweep (rank 0 times, the
//! other ranks follow its commands, CoMet section 2.1), the rank-body trait
//! every kernel implements once for threads and MPI processes alike
//! ([`RankBody`], run by [`sweep_team`] and `over_mpi::sweep`), transport
//! sizing for buffered semantics, processor counts, and the builders of
//! points and fits.

pub(crate) use crate::kernels::harness::calls::{f64_bytes, f64_bytes_mut};
pub(crate) use crate::kernels::harness::transports::{
    each_transport, per_transport, with_progress,
};

use crate::control::{Placement, RankError};
use crate::kernels::harness::sweep::SweepPlan;
use crate::kernels::harness::timing::{RoundBatch, Timer, summarize_trials};
use crate::kernels::{KernelError, RunContext};
use crate::model::fit::{LineFit, fit_line, r_squared};
use crate::model::hockney::HockneyFit;
use crate::model::piecewise::{BreakSearch, find_breakpoints, measured_bandwidth};
use crate::results::{FitResult, KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport, TransportConfig, TransportKind};
use std::collections::BTreeMap;

/// Below this R^2 a fit is flagged.
pub(crate) const R2_THRESHOLD: f64 = 0.9;

/// The echo sizes: 0 bytes to beyond a page, up to the paper's 85,000 bytes, dense
/// enough (two points per octave; one with `quick`) for breakpoints to be found.
pub(crate) fn echo_sizes(quick: bool) -> Vec<usize> {
    crate::kernels::effort::of(quick).comet_echo_sizes.to_vec()
}

/// A coarser sweep for the kernels that repeat it per processor count or load.
pub(crate) fn coarse_sizes(quick: bool) -> Vec<usize> {
    crate::kernels::effort::of(quick)
        .comet_coarse_sizes
        .to_vec()
}

/// The columns every point of a sweep over processor counts starts with: P, log2 P
/// (the paper plots against it) and whether the P ranks were virtual processors on
/// `cpus` CPUs.
pub(crate) fn processors_point(p: usize, cpus: usize) -> crate::results::Point {
    crate::results::Point::new()
        .with("processors", p as f64)
        .with("log2_processors", (p as f64).log2())
        .with("virtual", f64::from(p > cpus))
}

/// The processor counts of the collective kernels: 2 runs pinned on two CPUs,
/// the others as virtual processors unless the machine has the CPUs; on a
/// machine of more than 16 CPUs the powers of two up to `cpus` follow
/// ([`crate::kernels::effort::collective_processors`], which the plan uses too).
pub(crate) fn processor_counts(quick: bool, cpus: usize) -> Vec<usize> {
    crate::kernels::effort::collective_processors(quick, cpus)
}

/// The test pattern of byte `i` of a message from `rank`.
#[inline]
pub(crate) fn pattern(rank: usize, i: usize) -> u8 {
    ((i * 7 + rank * 31 + 3) % 251) as u8
}

/// A buffer of `len` pattern bytes from `rank`.
pub(crate) fn pattern_buf(rank: usize, len: usize) -> Vec<u8> {
    (0..len).map(|i| pattern(rank, i)).collect()
}

/// Checks that `got` holds `want` pattern bytes from `rank`.
pub(crate) fn check_pattern(
    what: &str,
    rank: usize,
    got: &[u8],
    want: usize,
) -> Result<(), RankError> {
    if got.len() != want {
        return Err(RankError::Failed(format!(
            "{what}: received {} bytes, expected {want}",
            got.len()
        )));
    }
    if let Some(i) = (0..want).find(|&i| got[i] != pattern(rank, i)) {
        return Err(RankError::Failed(format!(
            "{what}: byte {i} is {}, expected {} (verification failed)",
            got[i],
            pattern(rank, i)
        )));
    }
    Ok(())
}

/// Which check a verification command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Before timing a point: set up, run the operation once, check.
    Before,
    /// After timing a point: check the state the timed repetitions left.
    After,
}

const CMD_END: u64 = 0;
const CMD_BATCH: u64 = 1;
const CMD_BEFORE: u64 = 2;
const CMD_AFTER: u64 = 3;

fn command(kind: u64, reps: u64, param: u64) -> [u8; 24] {
    let mut c = [0u8; 24];
    c[..8].copy_from_slice(&kind.to_le_bytes());
    c[8..16].copy_from_slice(&reps.to_le_bytes());
    c[16..].copy_from_slice(&param.to_le_bytes());
    c
}

fn word(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
}

/// What rank 0 measured at one point.
#[derive(Debug, Clone)]
pub(crate) struct Samples {
    /// The kernel's parameter of the point.
    pub(crate) param: u64,
    /// Repetitions per batch.
    pub(crate) reps: u64,
    /// Time per repetition of each trial, ns.
    pub(crate) samples_ns: Vec<f64>,
}

/// Settings of one command-driven sweep: the harness's plan over the
/// kernel's points, and the ranks that take part.
pub(crate) struct Sweep<'a> {
    /// The points (in the kernel's encoding), trials, batch target, clock,
    /// fault, progress hook and cancel check.
    pub(crate) plan: SweepPlan<'a, u64>,
    /// Ranks `0..ranks` take part; the others are left alone.
    pub(crate) ranks: usize,
}

impl<'a> Sweep<'a> {
    /// A sweep over `params` on ranks `0..ranks` with the run's settings.
    pub(crate) fn new(
        ctx: &'a RunContext<'a>,
        params: &'a [u64],
        ranks: usize,
        on_point: &'a (dyn Fn(u64) + Sync),
        cancelled: &'a (dyn Fn() -> bool + Sync),
    ) -> Sweep<'a> {
        Sweep {
            plan: SweepPlan::new(ctx, params, on_point, cancelled),
            ranks,
        }
    }
}

/// Runs a sweep on one rank. Rank 0 sends every other taking part a command
/// before each batch (outside the timing), then times `batch(ep, param, reps)`;
/// the others run the same batch on command. The points are timed in rounds,
/// one batch of each a round (the batch size calibrated in the first, and
/// resized for the next round where a batch took more than four times its
/// target or less than a quarter: [`resized_reps`]), so a point's trials are
/// spread over the whole sweep. Before each point's batch
/// every rank runs `check(ep, state, param, Check::Before)`, after it
/// `Check::After`; a failed check is an error of the whole kernel. `state` is
/// the rank's own buffers, shared by both closures. Rank 0 returns the
/// samples (of the points with at least one trial where the run was
/// interrupted), the others nothing.
pub(crate) fn drive<E: Endpoint, S>(
    ctx: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
    state: &mut S,
    check: impl FnMut(&mut E, &mut S, u64, Check) -> Result<(), RankError>,
    batch: impl FnMut(&mut E, &mut S, u64, u64) -> Result<(), RankError>,
) -> Result<Vec<Samples>, RankError> {
    drive_with_prologue(ctx, ep, sweep, state, check, |_, _, _| Ok(()), batch)
}

/// [`drive`] with an untimed `prologue(ep, state, param)` that every rank runs
/// before each batch, after the command: on rank 0 the clock starts after it
/// (CoMet's barrier kernel discards the first barrier).
pub(crate) fn drive_with_prologue<E: Endpoint, S>(
    ctx: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
    state: &mut S,
    mut check: impl FnMut(&mut E, &mut S, u64, Check) -> Result<(), RankError>,
    mut prologue: impl FnMut(&mut E, &mut S, u64) -> Result<(), RankError>,
    mut batch: impl FnMut(&mut E, &mut S, u64, u64) -> Result<(), RankError>,
) -> Result<Vec<Samples>, RankError> {
    let plan = &sweep.plan;
    plan.inject_fault(ctx)?;
    if ctx.rank >= sweep.ranks {
        return Ok(Vec::new());
    }
    let mut cmd = [0u8; 24];
    if ctx.rank != 0 {
        loop {
            let n = ep.recv(0, &mut cmd)?;
            if n != cmd.len() {
                return Err(RankError::Failed(format!("command of {n} bytes")));
            }
            let (kind, reps, param) = (word(&cmd, 0), word(&cmd, 1), word(&cmd, 2));
            match kind {
                CMD_END => return Ok(Vec::new()),
                CMD_BATCH => {
                    prologue(ep, state, param)?;
                    batch(ep, state, param, reps)?
                }
                CMD_BEFORE => check(ep, state, param, Check::Before)?,
                CMD_AFTER => check(ep, state, param, Check::After)?,
                _ => return Err(RankError::Failed(format!("unknown command {kind}"))),
            }
        }
    }
    let tell = |ep: &mut E, kind: u64, reps: u64, param: u64| -> Result<(), RankError> {
        let c = command(kind, reps, param);
        for r in 1..sweep.ranks {
            ep.send(r, &c)?;
        }
        Ok(())
    };
    // The points in rounds, one batch of each a round (each batch size
    // calibrated in the first), as the decomposition kernel times its
    // experiments: a change of the machine's state lands on every point alike.
    let n = plan.points.len();
    let mut points = vec![RoundBatch::default(); n];
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(plan.trials); n];
    'rounds: for round in 0..plan.trials {
        for (i, &param) in plan.points.iter().enumerate() {
            if plan.is_cancelled() {
                break 'rounds;
            }
            tell(ep, CMD_BEFORE, 0, param)?;
            check(ep, state, param, Check::Before)?;
            let mut timed = |reps: u64| {
                tell(ep, CMD_BATCH, reps, param)?;
                prologue(ep, state, param)?;
                let timer = Timer::start();
                batch(ep, state, param, reps)?;
                Ok::<_, RankError>(timer.elapsed())
            };
            // A batch far from its target (a hand-over that began to sleep
            // after its calibration) is resized for the next round.
            samples[i].push(points[i].time(plan.target, plan.clock, &mut timed)?);
            tell(ep, CMD_AFTER, 0, param)?;
            check(ep, state, param, Check::After)?;
            if round + 1 == plan.trials {
                (plan.on_point)(param);
            }
        }
    }
    let out = plan
        .points
        .iter()
        .zip(points)
        .zip(samples)
        .filter(|(_, samples_ns)| !samples_ns.is_empty())
        .map(|((&param, point), samples_ns)| Samples {
            param,
            reps: point.calibrated(),
            samples_ns,
        })
        .collect();
    tell(ep, CMD_END, 0, 0)?;
    Ok(out)
}

/// The partner of `rank` in a pairwise kernel on `p` ranks: rank 0 and the last
/// rank pair up, the ranks between them have none (they stay idle).
pub(crate) fn pair_peer(rank: usize, p: usize) -> Option<usize> {
    match rank {
        0 => Some(p - 1),
        r if r == p - 1 => Some(0),
        _ => None,
    }
}

/// Rank 0's samples of a team run.
pub(crate) fn rank0(mut per_rank: Vec<Vec<Samples>>) -> Vec<Samples> {
    per_rank.swap_remove(0)
}

/// What one command-driven sweep measures: the kernel, its points (in the
/// kernel's encoding), the ranks `0..ranks` that take part, the largest
/// message a rank sends (where sends are buffered, for that many bytes), and
/// each point's progress line.
pub(crate) struct Plan<'a> {
    /// The kernel's name, which the team's errors carry.
    pub(crate) kernel: &'a str,
    /// The points.
    pub(crate) params: Vec<u64>,
    /// Ranks `0..ranks` take part; the others only join the team.
    pub(crate) ranks: usize,
    /// The largest message a rank sends, in bytes.
    pub(crate) max_bytes: usize,
    /// A point's progress line.
    pub(crate) label: Box<dyn Fn(u64) -> String + Sync + 'a>,
}

/// A CoMet kernel's rank body: every rank's part of its command-driven sweep
/// (a [`drive`] over its own buffers), on endpoints of type `E`. A kernel
/// implements it once for every endpoint (`impl<E: Endpoint> RankBody<E>`),
/// so threads ([`sweep_team`]) and MPI processes (`over_mpi::sweep`) run the
/// same body; MPI's own collectives are bodies for the MPI endpoint alone.
pub(crate) trait RankBody<E: Endpoint>: Sync {
    /// What the sweep measures.
    fn plan(&self) -> &Plan<'_>;
    /// The kernel's name, which the team's errors carry: the plan's.
    fn kernel(&self) -> &str {
        self.plan().kernel
    }
    /// One rank's part: rank 0 returns its samples, the others none.
    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples;
}

/// What a rank's part of a sweep returns: rank 0 its samples, the others
/// none.
pub(crate) type RankSamples = Result<Vec<Samples>, RankError>;

/// A collective's run between threads: `run_with` over the processor counts
/// ([`processor_counts`]), between two probes of the run's first CPU pair
/// ([`crate::kernels::harness::probe::around`]). Over MPI processes the
/// registry runs the kernel's `run_over_mpi` instead.
pub(crate) fn run_collective(
    ctx: &RunContext<'_>,
    run_with: fn(&RunContext<'_>, &[usize]) -> Result<Vec<KernelResult>, KernelError>,
) -> Result<Vec<KernelResult>, KernelError> {
    crate::kernels::harness::probe::around(ctx, || {
        run_with(ctx, &processor_counts(ctx.config.quick, ctx.sweep_cpus()))
    })
}

/// The mailbox's endpoint, one of the two a body swept on every transport
/// of the run ([`run_pair`]) runs on.
type MailboxEndpoint = <crate::transport::mailbox::Mailbox as Transport>::Endpoint;
/// The channel's endpoint, the other.
type ChannelEndpoint = <crate::transport::channel::Channel as Transport>::Endpoint;

/// A kernel between rank 0 and the last of `ranks` threads (the ranks
/// between them idle): on one team, its `body` (made for the team's size)
/// swept on every transport of the run, each result `finish`ed from
/// [`result`], the team and the samples. Its run between MPI processes is
/// `over_mpi::run_pair`.
pub(crate) fn run_pair<B>(
    ctx: &RunContext<'_>,
    kernel: &str,
    ranks: usize,
    body: impl FnOnce(usize) -> B,
    finish: impl Fn(KernelResult, &Team, &[Samples]) -> KernelResult,
) -> Result<Vec<KernelResult>, KernelError>
where
    B: RankBody<MailboxEndpoint> + RankBody<ChannelEndpoint>,
{
    require_two_cpus(ctx, kernel)?;
    let team = Team::new(&ctx.team_spec(ctx.cpus(), ranks, true))?;
    let body = body(team.size());
    let points = RankBody::<MailboxEndpoint>::plan(&body).params.len();
    per_transport(ctx, kernel, points, |t| {
        let samples = crate::with_transport!(t, sweep_team(ctx, &team, &body))?;
        let r = result(kernel, Some(t.name()), &team, ranks);
        Ok(finish(r, &team, &samples))
    })
}

/// A sweep over processor counts: per variant and transport one result, a
/// team per `P` in `processors` whose samples `measure` takes, `add` puts
/// into the result as points and as `(P, x, min)` rows, and `finish` fits
/// those rows. The progress bar counts `params` points a team.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sweep_processors<A: Copy>(
    ctx: &RunContext<'_>,
    kernel: &str,
    variants: &[A],
    name: impl Fn(A) -> &'static str,
    processors: &[usize],
    params: usize,
    measure: impl Fn(&Team, A, TransportKind) -> Result<Vec<Samples>, KernelError>,
    add: impl Fn(&mut KernelResult, &mut Vec<(usize, usize, f64)>, usize, &[Samples]),
    finish: impl Fn(&mut KernelResult, A, &[(usize, usize, f64)]),
) -> Result<Vec<KernelResult>, KernelError> {
    let steps = variants.len() * ctx.config.transports.len() * processors.len() * params;
    each_transport(ctx, kernel, steps, variants, |variant, t| {
        let mut res: Option<KernelResult> = None;
        let mut mins: Vec<(usize, usize, f64)> = Vec::new();
        for &p in processors {
            if ctx.cancelled() {
                break;
            }
            let team = Team::new(&ctx.team_spec(ctx.cpus(), p, true))?;
            let r = res.get_or_insert_with(|| result(name(variant), Some(t.name()), &team, p));
            merge_placement(r, &team);
            let samples = measure(&team, variant, t)?;
            add(r, &mut mins, p, &samples);
        }
        if let Some(r) = &mut res {
            finish(r, variant, &mins);
        }
        Ok(res)
    })
}

/// One command-driven sweep of a CoMet kernel on `team`: endpoints of `T`
/// buffered for the plan's largest message, and `body` on every rank; rank
/// 0's samples.
pub(crate) fn sweep_team<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    body: &(impl RankBody<T::Endpoint> + ?Sized),
) -> Result<Vec<Samples>, KernelError> {
    let plan = body.plan();
    let on_point = |q: u64| ctx.progress.step(&(plan.label)(q));
    let cancelled = || ctx.cancelled();
    let sweep = Sweep::new(ctx, &plan.params, plan.ranks, &on_point, &cancelled);
    let eps = T::endpoints(team.control(), &TransportConfig::buffered(plan.max_bytes));
    let per_rank = team.run(body.kernel(), eps, |rc, ep| body.run(rc, ep, &sweep))?;
    Ok(rank0(per_rank))
}

/// A result skeleton for a CoMet kernel.
pub(crate) fn result(
    kernel: &str,
    transport: Option<&str>,
    team: &Team,
    ranks: usize,
) -> KernelResult {
    let mut warnings = Vec::new();
    if team.placement() != Placement::Pinned {
        warnings.push(format!(
            "{} ranks on {} CPUs are virtual processors ({}): co-hosted ranks block instead of spinning, so times include thread wake-ups",
            ranks,
            {
                let mut c = team.hosts().to_vec();
                c.sort_unstable();
                c.dedup();
                c.len()
            },
            team.placement()
        ));
    }
    KernelResult::new(kernel, "comet", team.placement(), team.hosts().to_vec())
        .with_transport(transport)
        .with_ranks(ranks)
        .with_warnings(warnings)
}

/// Merges the labels of results over several processor counts: the placement is
/// the least trustworthy one, the CPUs and ranks those of the largest team.
pub(crate) fn merge_placement(into: &mut KernelResult, team: &Team) {
    let rank = |p: Placement| match p {
        Placement::Pinned => 0,
        Placement::Hosted => 1,
        Placement::Virtual => 1,
        Placement::Oversubscribed => 2,
    };
    if rank(team.placement()) > rank(into.placement) {
        into.placement = team.placement();
    }
    if team.size() > into.ranks {
        into.ranks = team.size();
        into.cpus = team.hosts().to_vec();
    }
    if team.placement() != Placement::Pinned
        && !into
            .warnings
            .iter()
            .any(|w| w.contains("virtual processors"))
    {
        into.warnings.push(format!(
            "points with more processors than CPUs ran as virtual processors ({}): co-hosted ranks block instead of spinning, so their times include thread wake-ups; the `virtual` column marks them",
            team.placement()
        ));
    }
}

/// The summary of one point's trials under `name`, with its accuracy warning.
pub(crate) fn stats_point(
    point: Point,
    name: &str,
    samples: &[f64],
    what: &str,
    warnings: &mut Vec<String>,
) -> (Point, f64) {
    let (summary, warning) = summarize_trials(samples, what);
    warnings.extend(warning);
    let min = summary.min;
    (point.with_stats(name, summary), min)
}

/// A straight-line fit as a [`FitResult`] with the given parameter names.
pub(crate) fn line_result(
    model: &str,
    x_name: &str,
    y_name: &str,
    line: &LineFit,
    names: (&str, &str),
) -> FitResult {
    let mut params = BTreeMap::new();
    params.insert(names.0.into(), line.intercept);
    params.insert(names.1.into(), line.slope);
    let mut std_errors = BTreeMap::new();
    std_errors.insert(names.0.into(), line.se_intercept);
    std_errors.insert(names.1.into(), line.se_slope);
    FitResult {
        model: model.into(),
        x: x_name.into(),
        y: y_name.into(),
        params,
        std_errors,
        r2: line.r2,
        n_points: line.n_points,
        flagged: line.r2 < R2_THRESHOLD,
    }
}

/// Fits a line and pushes it (or a warning) onto `fits`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_line(
    fits: &mut Vec<FitResult>,
    warnings: &mut Vec<String>,
    model: &str,
    x_name: &str,
    y_name: &str,
    x: &[f64],
    y: &[f64],
    names: (&str, &str),
) {
    if x.len() < 2 {
        return;
    }
    match fit_line(x, y) {
        Ok(line) => {
            let f = line_result(model, x_name, y_name, &line, names);
            if f.flagged && f.r2.is_finite() {
                warnings.push(format!(
                    "fit {model} has R^2 = {:.3} < {R2_THRESHOLD}",
                    f.r2
                ));
            }
            fits.push(f);
        }
        Err(e) => warnings.push(format!("no fit {model}: {e}")),
    }
}

/// A point per sample of a collective on `p` processors of `cpus`, with the
/// statistics of `quantity` (`describe` adds the point's parameter, its label
/// and size in bytes), and each point's (P, size, min time) for [`add_fits`].
pub(crate) fn push_points(
    r: &mut KernelResult,
    mins: &mut Vec<(usize, usize, f64)>,
    (p, cpus): (usize, usize),
    samples: &[Samples],
    quantity: &str,
    describe: impl Fn(Point, &Samples) -> (Point, String, usize),
) {
    for s in samples {
        let (point, label, size) = describe(processors_point(p, cpus), s);
        let (point, min) = stats_point(
            point.with("reps", s.reps as f64),
            quantity,
            &s.samples_ns,
            &format!("P = {p}, {label}"),
            &mut r.warnings,
        );
        r.points.push(point);
        mins.push((p, size, min));
    }
}

/// Fits of a (P, size, time) table: per P a line in size, and at the smallest and
/// largest size a line in `log2 P`.
pub(crate) fn add_fits(r: &mut KernelResult, mins: &[(usize, usize, f64)], y_name: &str) {
    let mut ps: Vec<usize> = mins.iter().map(|m| m.0).collect();
    ps.dedup();
    for &p in &ps {
        let (x, y): (Vec<f64>, Vec<f64>) = mins
            .iter()
            .filter(|m| m.0 == p)
            .map(|m| (m.1 as f64, m.2))
            .unzip();
        push_line(
            &mut r.fits,
            &mut r.warnings,
            &format!("t_startup + N t_per_byte at P = {p}"),
            "size_bytes",
            y_name,
            &x,
            &y,
            ("t_startup_ns", "t_per_byte_ns"),
        );
    }
    let mut sizes: Vec<usize> = mins.iter().map(|m| m.1).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let ends: Vec<usize> = match (sizes.first(), sizes.last()) {
        (Some(&a), Some(&b)) if a != b => vec![a, b],
        (Some(&a), _) => vec![a],
        _ => Vec::new(),
    };
    for n in ends {
        let (x, y): (Vec<f64>, Vec<f64>) = mins
            .iter()
            .filter(|m| m.1 == n)
            .map(|m| ((m.0 as f64).log2(), m.2))
            .unzip();
        push_line(
            &mut r.fits,
            &mut r.warnings,
            &format!("t = a + b log2 P at N = {n} bytes"),
            "log2_processors",
            y_name,
            &x,
            &y,
            ("a_ns", "b_ns_per_doubling"),
        );
    }
}

/// CoMet section 4.1's analysis of a message-size curve `t(N)`: piecewise lines
/// `t_startup + N t_per_byte` with the breakpoints found from the data (one fit
/// per segment, with the segment line's peak bandwidth `1 / t_per_byte` and
/// half-peak size `n_half = t_startup / t_per_byte`, 90% at `9 n_half`), and a
/// summary fit with the breakpoints and the measured bandwidth figures (the peak
/// of `N / t` over the points and the smallest sizes reaching 50% and 90% of it).
/// `y` is `one_way_ns.min` or the like, in ns.
pub fn message_curve_fits(
    sizes: &[f64],
    times_ns: &[f64],
    y_name: &str,
) -> (Vec<FitResult>, Vec<String>) {
    let mut fits = Vec::new();
    let mut warnings = Vec::new();
    let search = BreakSearch {
        max_breaks: 3,
        min_points_per_segment: if sizes.len() >= 15 { 5 } else { 3 },
    };
    let piecewise = match find_breakpoints(sizes, times_ns, &search) {
        Ok(p) => p,
        Err(e) => {
            warnings.push(format!("no piecewise fit: {e}"));
            return (fits, warnings);
        }
    };
    for (i, seg) in piecewise.segments.iter().enumerate() {
        let mut f = line_result(
            &format!(
                "t_startup + N t_per_byte, segment {} of {} ({} to {} bytes)",
                i + 1,
                piecewise.segments.len(),
                seg.x_min,
                seg.x_max
            ),
            "size_bytes",
            y_name,
            &seg.line,
            ("t_startup_ns", "t_per_byte_ns"),
        );
        f.params.insert("x_min_bytes".into(), seg.x_min);
        f.params.insert("x_max_bytes".into(), seg.x_max);
        if let Ok(h) = HockneyFit::from_line(seg.line.clone()) {
            f.params
                .insert("peak_bandwidth_mb_per_s".into(), h.r_inf_per_s() / 1e6);
            f.params.insert("n_half_bytes".into(), h.n_half);
            if let Ok(n90) = h.length_for_fraction(0.9) {
                f.params.insert("n_90_bytes".into(), n90);
            }
        }
        if f.flagged && seg.line.n_points > 2 && f.r2.is_finite() {
            warnings.push(format!(
                "segment {} ({} to {} bytes) has R^2 = {:.3} < {R2_THRESHOLD}",
                i + 1,
                seg.x_min,
                seg.x_max,
                f.r2
            ));
        }
        fits.push(f);
    }
    let r2 = r_squared(times_ns, piecewise.ss_res);
    let mut params = BTreeMap::new();
    params.insert("breakpoints".into(), piecewise.breakpoints.len() as f64);
    for (i, b) in piecewise.breakpoints.iter().enumerate() {
        params.insert(format!("breakpoint_{}_bytes", i + 1), *b);
    }
    match measured_bandwidth(sizes, times_ns) {
        Ok(bw) => {
            params.insert(
                "measured_peak_bandwidth_mb_per_s".into(),
                bw.peak_bytes_per_s / 1e6,
            );
            params.insert("measured_peak_size_bytes".into(), bw.peak_size_bytes);
            params.insert("half_peak_size_bytes".into(), bw.half_peak_size_bytes);
            params.insert(
                "ninety_percent_size_bytes".into(),
                bw.ninety_percent_size_bytes,
            );
        }
        Err(e) => warnings.push(format!("no bandwidth figures: {e}")),
    }
    fits.push(FitResult {
        model:
            "piecewise t_startup + N t_per_byte (breakpoints from the data) and measured bandwidth"
                .into(),
        x: "size_bytes".into(),
        y: y_name.into(),
        params,
        std_errors: BTreeMap::new(),
        r2,
        n_points: sizes.len(),
        flagged: r2 < R2_THRESHOLD,
    });
    (fits, warnings)
}

/// The measured 50% and 90% sizes of a curve, clamped to `[lo, hi]`.
pub(crate) fn load_sizes(sizes: &[f64], times_ns: &[f64], lo: usize, hi: usize) -> (usize, usize) {
    match measured_bandwidth(sizes, times_ns) {
        Ok(bw) => (
            (bw.half_peak_size_bytes.round() as usize).clamp(lo, hi),
            (bw.ninety_percent_size_bytes.round() as usize).clamp(lo, hi),
        ),
        Err(_) => (lo.max(512).min(hi), hi),
    }
}

/// CoMet runs P = 2 for real, one rank per CPU, and hosts larger teams on those
/// CPUs as virtual processors: with fewer than two CPUs it runs only when the
/// user allows oversubscription.
pub(crate) fn require_two_cpus(ctx: &RunContext<'_>, kernel: &str) -> Result<(), KernelError> {
    let cpus = ctx.cpus();
    if cpus.len() < 2 && !ctx.config.oversubscribe {
        return Err(KernelError::NotRunnable {
            kernel: kernel.into(),
            reason: format!(
                "it needs 2 CPUs and has only {cpus:?}; pass --oversubscribe to run every rank on one CPU with blocking waits"
            ),
        });
    }
    Ok(())
}

/// A result with nothing in it yet, for the tests of the point builders.
#[cfg(test)]
pub(crate) fn empty_result(kernel: &str) -> KernelResult {
    KernelResult::new(kernel, "comet", Placement::Pinned, vec![0, 1])
        .with_transport(Some("mailbox"))
}
