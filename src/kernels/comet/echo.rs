//! `comet-echo`: CoMet's echo kernel (section 2.2.1, Fig. 1; analysis in section
//! 4.1, Figs. 17 and 18). The test node (rank 0) sends a message, the other node
//! returns it; time is taken on the test node only and the one-way time is half
//! the round trip. Sizes run from 0 bytes to beyond a page (to the paper's 85,000
//! bytes).
//!
//! Distances are of two kinds:
//! - physical: one pinned pair of CPUs per distance class the platform reports
//!   (SMT siblings, shared L2, shared L3, same package, other package), or the
//!   user's first two `--cpus`; result `comet-echo`;
//! - logical hops: the message travels through forwarding ranks `0 -> 1 -> ... ->
//!   n` and back, on a team of virtual processors dealt alternately on the CPUs so
//!   that every hop crosses CPUs; result `comet-echo-hops`, fitted with
//!   `t(N) = t_startup + N t_per_byte + (n - 1) h`.
//!
//! Each `comet-echo` curve is fitted piecewise (breakpoints found from the data:
//! on a multicore expect them at cache and page sizes and where the mailbox
//! switches from the inline word to slot copies), with the peak bandwidth and the
//! sizes reaching 50% and 90% of it (the paper's iPSC/860: 79 us + 0.63 us/B below
//! 100 bytes, 156 us + 0.41 us/B above, h = 25 us, peak 2.5 MB/s, half-peak at 486
//! bytes, 90% near 5000 bytes).

use super::super::{KernelError, KernelSpec, RunContext, convert};
use super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, check_pattern, drive,
    message_curve_fits, pattern_buf, stats_point,
};
use crate::control::RankError;
use crate::model::fit::{fit_line, r_squared};
use crate::results::{FitResult, KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport, TransportKind};
use std::collections::BTreeMap;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-echo";

pub(super) const ECHO: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.1 (Fig. 1) and 4.1 (Figs. 17, 18)",
    about: "echo one-way time vs size per CPU distance class and per logical hop count; piecewise t_startup + N t_per_byte + (n-1) h, peak, 50%/90% sizes",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(run_over_mpi)),
    card: &[],
    run,
    plan: super::estimate::echo,
};

/// Encodes a point: hop count and message size.
pub(super) fn param(hops: usize, size: usize) -> u64 {
    ((hops as u64) << 32) | size as u64
}

/// Decodes [`param`].
pub(super) fn unparam(p: u64) -> (usize, usize) {
    ((p >> 32) as usize, (p & 0xffff_ffff) as usize)
}

/// One rank's part of `reps` echoes of `len` bytes over `hops` hops: rank 0
/// sends to rank 1, ranks `1..hops` forward, rank `hops` returns the message,
/// which comes back the same way. Ranks beyond `hops` do nothing.
#[inline(never)]
pub(super) fn echo_chain<E: Endpoint>(
    ep: &mut E,
    hops: usize,
    out: &[u8],
    buf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    let r = ep.rank();
    if r > hops {
        return Ok(());
    }
    for _ in 0..reps {
        if r == 0 {
            ep.send(1, out)?;
            ep.recv(1, buf)?;
        } else if r == hops {
            let n = ep.recv(r - 1, buf)?;
            ep.send(r - 1, &buf[..n])?;
        } else {
            let n = ep.recv(r - 1, buf)?;
            ep.send(r + 1, &buf[..n])?;
            let n = ep.recv(r + 1, buf)?;
            ep.send(r - 1, &buf[..n])?;
        }
    }
    Ok(())
}

/// One verified echo: the far end and rank 0 check every byte.
pub(super) fn echo_check<E: Endpoint>(
    ep: &mut E,
    hops: usize,
    len: usize,
    buf: &mut [u8],
) -> Result<(), RankError> {
    let r = ep.rank();
    if r > hops {
        return Ok(());
    }
    if r == 0 {
        ep.send(1, &pattern_buf(0, len))?;
        let n = ep.recv(1, buf)?;
        check_pattern("echo returned to rank 0", 0, &buf[..n], len)
    } else if r == hops {
        let n = ep.recv(r - 1, buf)?;
        check_pattern(&format!("echo at rank {r}"), 0, &buf[..n], len)?;
        ep.send(r - 1, &buf[..n])
    } else {
        echo_chain(ep, hops, &[], buf, 1)
    }
}

/// Every rank's part of an echo sweep (its [`drive`]), on any endpoint: each
/// point `(hops, size)` is checked once (every byte, at the far end and back
/// at rank 0), then timed in batches of [`echo_chain`]. `out` is rank 0's
/// message of the largest size; the receive buffer is allocated here, before
/// any timing.
pub(super) fn echo_body<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
    out: &[u8],
) -> Result<Vec<Samples>, RankError> {
    let mut buf = vec![0u8; out.len().max(64)];
    drive(
        rc,
        ep,
        sweep,
        &mut buf,
        |ep, buf, p, check| {
            let (hops, size) = unparam(p);
            match check {
                Check::Before => echo_check(ep, hops, size, buf),
                Check::After => Ok(()),
            }
        },
        |ep, buf, p, reps| {
            let (hops, size) = unparam(p);
            echo_chain(ep, hops, &out[..size], buf, reps)
        },
    )
}

/// The largest size and hop count of echo points `params`, and rank 0's
/// message of that size.
fn echo_extent(params: &[u64]) -> (usize, Vec<u8>) {
    let max = params.iter().map(|&p| unparam(p).1).max().unwrap_or(0);
    let max_hops = params.iter().map(|&p| unparam(p).0).max().unwrap_or(1);
    (max_hops, pattern_buf(0, max))
}

/// The echo's rank body: sweeps over `(hops, size)` points on ranks
/// `0..=hops`, each message `out`'s pattern (see [`echo_body`]).
pub(super) struct EchoBody<'a> {
    out: Vec<u8>,
    plan: Plan<'a>,
}

impl<'a> EchoBody<'a> {
    /// The echo over `params`, each point's progress line after `label`.
    pub(super) fn new(params: &[u64], label: &'a str) -> Self {
        let (max_hops, out) = echo_extent(params);
        let max_bytes = out.len();
        EchoBody {
            out,
            plan: Plan {
                kernel: ECHO.name,
                params: params.to_vec(),
                ranks: max_hops + 1,
                max_bytes,
                label: Box::new(move |p| {
                    let (h, s) = unparam(p);
                    format!("{label} {h} hop(s) {s} B")
                }),
            },
        }
    }
}

impl<E: Endpoint> RankBody<E> for EchoBody<'_> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        echo_body(rc, ep, sweep, &self.out)
    }
}

/// Echo sweeps over `params` (hops, size) on a team, for transport `T`.
pub(super) fn run_echo<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    params: &[u64],
    label: &str,
) -> Result<Vec<Samples>, KernelError> {
    common::sweep_team::<T>(ctx, team, &EchoBody::new(params, label))
}

/// Echo sweeps over `params` (hops, size) between MPI processes: ranks
/// `0..=hops` of the world, the others idle; sends unbuffered, as a C
/// program's `MPI_Send` and `MPI_Recv` echo.
#[cfg(feature = "mpi")]
pub(super) fn run_echo_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
    params: &[u64],
    label: &str,
) -> Result<Vec<Samples>, KernelError> {
    super::over_mpi::sweep(ctx, procs, &EchoBody::new(params, label), false)
}

/// Runs `run_echo` on the transport `kind`.
pub(super) fn run_echo_on(
    ctx: &RunContext<'_>,
    team: &Team,
    kind: TransportKind,
    params: &[u64],
    label: &str,
) -> Result<Vec<Samples>, KernelError> {
    crate::with_transport!(kind, run_echo(ctx, team, params, label))
}

/// Points (size, one-way time) of echo samples, and their minima.
pub(super) fn echo_points(
    samples: &[Samples],
    r: &mut KernelResult,
) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let (mut x, mut y, mut hops) = (Vec::new(), Vec::new(), Vec::new());
    for s in samples {
        let (h, size) = unparam(s.param);
        let one_way = convert::one_way_samples(&s.samples_ns);
        let point = Point::new()
            .with("hops", h as f64)
            .with("size_bytes", size as f64)
            .with("reps", s.reps as f64);
        let (point, min) = stats_point(
            point,
            "one_way_ns",
            &one_way,
            &format!("{h} hop(s), {size} B"),
            &mut r.warnings,
        );
        let point = point.with(
            "bandwidth_mb_per_s",
            convert::bandwidth_mb_per_s(size as f64, min),
        );
        r.points.push(point);
        x.push(size as f64);
        y.push(min);
        hops.push(h);
    }
    (x, y, hops)
}

/// The fit of `t(N, n) = t_startup + N t_per_byte + (n - 1) h` to one-way times
/// at several hop counts: `t_startup` and `t_per_byte` from the least-squares
/// line of the one-hop points, `h` as the least-squares slope of
/// `t(N, n) - t(N, 1)` against `n - 1` over every size measured at one hop
/// (through the origin: at `n = 1` the difference is zero by definition).
/// R^2 is that of the whole model on every point.
pub fn hop_fit(sizes: &[f64], hops: &[usize], times_ns: &[f64]) -> Option<FitResult> {
    let one: Vec<(f64, f64)> = (0..sizes.len())
        .filter(|&i| hops[i] == 1)
        .map(|i| (sizes[i], times_ns[i]))
        .collect();
    let (x1, y1): (Vec<f64>, Vec<f64>) = one.iter().copied().unzip();
    let line = fit_line(&x1, &y1).ok()?;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for i in 0..sizes.len() {
        if hops[i] <= 1 {
            continue;
        }
        let Some(&(_, base)) = one.iter().find(|p| p.0 == sizes[i]) else {
            continue;
        };
        let extra = (hops[i] - 1) as f64;
        sxy += extra * (times_ns[i] - base);
        sxx += extra * extra;
    }
    if sxx == 0.0 {
        return None;
    }
    let h = sxy / sxx;
    let predict = |i: usize| line.predict(sizes[i]) + (hops[i] as f64 - 1.0) * h;
    let ss_res: f64 = (0..sizes.len())
        .map(|i| (times_ns[i] - predict(i)).powi(2))
        .sum();
    let r2 = r_squared(times_ns, ss_res);
    let mut params = BTreeMap::new();
    params.insert("t_startup_ns".into(), line.intercept);
    params.insert("t_per_byte_ns".into(), line.slope);
    params.insert("h_ns".into(), h);
    let mut std_errors = BTreeMap::new();
    std_errors.insert("t_startup_ns".into(), line.se_intercept);
    std_errors.insert("t_per_byte_ns".into(), line.se_slope);
    Some(FitResult {
        model: "t_startup + N t_per_byte + (n - 1) h".into(),
        x: "size_bytes, hops".into(),
        y: "one_way_ns.min".into(),
        params,
        std_errors,
        r2,
        n_points: sizes.len(),
        flagged: r2 < common::R2_THRESHOLD,
    })
}

/// The CPU pairs to echo between: the user's first two CPUs, else one pair per
/// distance class, else (one CPU) the two ranks share it as virtual processors.
fn pairs(ctx: &RunContext<'_>) -> Vec<Vec<usize>> {
    if let Some(c) = &ctx.config.cpus {
        return vec![c[..c.len().min(2)].to_vec()];
    }
    let classes = ctx.topology.pairs_by_class(ctx.allowed);
    if classes.is_empty() {
        return vec![ctx.allowed[..ctx.allowed.len().min(1)].to_vec()];
    }
    classes.into_iter().map(|(_, a, b)| vec![a, b]).collect()
}

/// The sizes of the physical-distance curves and of the hop sweep: the user's
/// `--sizes` for both, else the dense echo sizes and the coarse ones.
fn sizes(ctx: &RunContext<'_>) -> (Vec<usize>, Vec<usize>) {
    let quick = ctx.config.quick;
    match &ctx.config.sizes {
        Some(s) => (s.clone(), s.clone()),
        None => (common::echo_sizes(quick), common::coarse_sizes(quick)),
    }
}

/// The points of hop counts `1..=max_hops` at each of `sizes`.
fn hop_params(max_hops: usize, sizes: &[usize]) -> Vec<u64> {
    (1..=max_hops)
        .flat_map(|h| sizes.iter().map(move |&s| param(h, s)))
        .collect()
}

/// A `comet-echo` curve's result: its points (one-way time, bandwidth) and
/// CoMet's piecewise fits with the peak bandwidth and the 50% / 90% sizes.
fn curve_result(mut r: KernelResult, samples: &[Samples]) -> KernelResult {
    let (x, y, _) = echo_points(samples, &mut r);
    let (fits, warnings) = message_curve_fits(&x, &y, "one_way_ns.min");
    r.fits.extend(fits);
    r.warnings.extend(warnings);
    r
}

/// The `comet-echo-hops` result: its points and the fit of
/// `t_startup + N t_per_byte + (n - 1) h`.
fn hops_result(mut r: KernelResult, samples: &[Samples]) -> KernelResult {
    r.warnings.push(
        "logical hops: each hop is a forwarding rank (a receive and a send), so h is the cost of a store-and-forward hop, not of a wire".into(),
    );
    let (x, y, hops) = echo_points(samples, &mut r);
    match hop_fit(&x, &hops, &y) {
        Some(f) => r.fits.push(f),
        None => r
            .warnings
            .push("no (n - 1) h fit: too few hop counts".into()),
    }
    r
}

/// The name of the hop sweep's result.
const HOPS: &str = "comet-echo-hops";

/// The echo kernel with hop sweeps up to `max_hops` (on `max_hops + 1` ranks).
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    max_hops: usize,
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, ECHO.name)?;
    let (sizes, hop_sizes) = sizes(ctx);
    let pairs = pairs(ctx);
    let transports = &ctx.config.transports;
    let steps = transports.len() * (pairs.len() * sizes.len() + max_hops * hop_sizes.len());
    common::with_progress(ctx, ECHO.name, steps, || {
        let mut out = Vec::new();
        for cpus in &pairs {
            let team = Team::new(&ctx.team_spec(cpus.clone(), 2, true))?;
            let params: Vec<u64> = sizes.iter().map(|&s| param(1, s)).collect();
            for &t in transports {
                if ctx.cancelled() {
                    break;
                }
                let samples = run_echo_on(ctx, &team, t, &params, "echo")?;
                let mut r = common::result(ECHO.name, Some(t.name()), &team, 2);
                r.distance_class = (cpus.len() == 2)
                    .then(|| ctx.topology.distance(cpus[0], cpus[1]))
                    .flatten();
                out.push(curve_result(r, &samples));
            }
        }
        if max_hops >= 2 {
            let team = Team::new(&ctx.team_spec(ctx.cpus(), max_hops + 1, true))?;
            let params = hop_params(max_hops, &hop_sizes);
            for &t in transports {
                if ctx.cancelled() {
                    break;
                }
                let samples = run_echo_on(ctx, &team, t, &params, "echo-hops")?;
                let r = common::result(HOPS, Some(t.name()), &team, max_hops + 1);
                out.push(hops_result(r, &samples));
            }
        }
        Ok(out)
    })
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    crate::kernels::harness::probe::around(ctx, || {
        run_with(ctx, ctx.config.effort().comet_echo_hops)
    })
}

/// The echo kernel over MPI processes: the physical-distance curve between
/// ranks 0 and 1 (one curve, the pair's distance class: other process or
/// other node), and with more than two processes the logical-hop echo over
/// ranks `0..P`, hops up to `P - 1`; the same points and fits as between
/// threads.
#[cfg(feature = "mpi")]
fn run_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    use super::over_mpi;
    let (sizes, hop_sizes) = sizes(ctx);
    let max_hops = procs.size() - 1;
    let hop_params = if max_hops >= 2 {
        hop_params(max_hops, &hop_sizes)
    } else {
        Vec::new()
    };
    common::with_progress(ctx, NAME, sizes.len() + hop_params.len(), || {
        let params: Vec<u64> = sizes.iter().map(|&s| param(1, s)).collect();
        let samples = run_echo_over_mpi(ctx, procs, &params, "echo")?;
        let mut out = Vec::new();
        if procs.rank() == 0 {
            out.push(curve_result(over_mpi::pair_result(procs, NAME), &samples));
        }
        if !hop_params.is_empty() {
            let samples = run_echo_over_mpi(ctx, procs, &hop_params, "echo-hops")?;
            if procs.rank() == 0 {
                let r = over_mpi::result(procs, HOPS, procs.cpus());
                out.push(hops_result(r, &samples));
            }
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::comet::common::empty_result;

    /// Rank 0 times a whole echo, there and back: round trips of 1000, 1100 and
    /// 1050 ns at 8 bytes are one-way times of 500, 550 and 525 ns (CoMet 2.2.1:
    /// "the one-way time is half the round trip"), and 8 bytes in 500 ns is
    /// 16 MB/s; at 0 bytes the bandwidth is 0.
    #[test]
    fn an_echo_is_reported_as_half_its_round_trip() {
        let samples = [
            Samples {
                param: param(1, 8),
                reps: 100,
                samples_ns: vec![1000.0, 1100.0, 1050.0],
            },
            Samples {
                param: param(3, 0),
                reps: 50,
                samples_ns: vec![3000.0],
            },
        ];
        let mut r = empty_result("comet-echo");
        let (x, y, hops) = echo_points(&samples, &mut r);
        assert_eq!(
            (x, y, hops),
            (vec![8.0, 0.0], vec![500.0, 1500.0], vec![1, 3])
        );
        let p = &r.points[0];
        let s = p.stats("one_way_ns").unwrap();
        assert_eq!((s.min, s.median, s.max), (500.0, 525.0, 550.0));
        assert_eq!(p.number("bandwidth_mb_per_s"), Some(16.0));
        assert_eq!(
            (p.number("hops"), p.number("reps")),
            (Some(1.0), Some(100.0))
        );
        assert_eq!(r.points[1].number("bandwidth_mb_per_s"), Some(0.0));
        assert_eq!(r.points[1].number("hops"), Some(3.0));
    }

    /// `t(N, n) = 100 + 2 N + (n - 1) 25` ns at N = 0, 10, 20 and n = 1, 2, 3:
    /// the fit gives back t_startup 100, t_per_byte 2, h 25, positive as a
    /// store-and-forward hop's cost must be.
    #[test]
    fn the_hop_fit_recovers_a_hops_cost() {
        let (mut sizes, mut hops, mut times) = (Vec::new(), Vec::new(), Vec::new());
        for n in 1..=3usize {
            for size in [0.0, 10.0, 20.0] {
                sizes.push(size);
                hops.push(n);
                times.push(100.0 + 2.0 * size + (n as f64 - 1.0) * 25.0);
            }
        }
        let f = hop_fit(&sizes, &hops, &times).unwrap();
        assert!((f.params["t_startup_ns"] - 100.0).abs() < 1e-9, "{f:?}");
        assert!((f.params["t_per_byte_ns"] - 2.0).abs() < 1e-9, "{f:?}");
        assert!((f.params["h_ns"] - 25.0).abs() < 1e-9, "{f:?}");
        assert!((f.r2 - 1.0).abs() < 1e-12 && !f.flagged);
    }
}
