//! `comet-overlap`: CoMet's overlap kernel (section 2.2.1, Figs. 7 and 8; section
//! 4.1, Figs. 24 to 27). A pairwise exchange plus a DAXPY of a given vector
//! length, first synchronous (exchange, then DAXPY), then asynchronous (post the
//! send and the receive, DAXPY, wait for both), over a grid of message sizes and
//! vector lengths; the gain is `(t_sync - t_async) / t_sync`.
//!
//! On the thread transports a posted send copies the message out at once when the
//! peer's ring has room (there is no DMA engine to overlap with), and a posted
//! receive completes at the wait if the message had not arrived at the post; so
//! the overlap measured is the DAXPY hiding the wait for the peer's message.

use super::super::{KernelError, KernelSpec, RunContext};
use super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, check_pattern, drive,
};
use crate::control::RankError;
use crate::results::{KernelResult, Point};
use crate::team::RankCtx;
use crate::transport::Endpoint;
use std::hint::black_box;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-overlap";

pub(super) const OVERLAP: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.1 (Figs. 7, 8) and 4.1 (Figs. 24-27)",
    about: "pairwise exchange + DAXPY, synchronous vs asynchronous (isend/irecv, DAXPY, wait), gain over sizes x vector lengths",
    in_quick_suite: true,
    // Over MPI processes, between ranks 0 and 1 of the world (the others
    // idle), sends buffered for a whole message as for the exchange. The
    // posted send and receive are MPI's own (`MPI_Isend`, `MPI_Irecv`, then
    // `MPI_Test` polled at the waits; see `crate::transport::mpi`): unlike
    // between threads, the gain measures what the library moves while the
    // rank computes without calling it. OpenMPI without a progress thread
    // sends an eager message at the post but a long one's rendezvous only
    // inside MPI calls, so there the gain of long messages stays near the
    // wait for the peer.
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(|ctx, procs| {
        super::over_mpi::run_pair(ctx, procs, &body(params(ctx), 2), overlap_result)
    })),
    card: &[],
    run,
    plan: super::estimate::overlap,
};

const ASYNC: u64 = 1 << 63;

fn param(asynchronous: bool, len: usize, size: usize) -> u64 {
    (if asynchronous { ASYNC } else { 0 }) | ((len as u64) << 32) | size as u64
}

fn unparam(p: u64) -> (bool, usize, usize) {
    (
        p & ASYNC != 0,
        ((p & !ASYNC) >> 32) as usize,
        (p & 0xffff_ffff) as usize,
    )
}

/// `y += a x`.
#[inline]
fn daxpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * *xi;
    }
}

struct Buffers {
    out: Vec<u8>,
    inbuf: Vec<u8>,
    x: Vec<f64>,
    y: Vec<f64>,
}

/// `reps` exchanges with `peer` and DAXPYs of `len`: with `ASYNC` the send and
/// receive are posted before the DAXPY and waited for after it, else the
/// exchange completes before the DAXPY starts.
#[inline(never)]
fn exchange_daxpy<const ASYNC: bool, E: Endpoint>(
    ep: &mut E,
    peer: usize,
    b: &mut Buffers,
    size: usize,
    len: usize,
    reps: u64,
) -> Result<(), RankError> {
    let Buffers { out, inbuf, x, y } = b;
    for _ in 0..reps {
        if ASYNC {
            let s = ep.isend(peer, &out[..size])?;
            let r = ep.irecv(peer, inbuf)?;
            daxpy(1e-9, &x[..len], &mut y[..len]);
            ep.wait_send(s)?;
            ep.wait_recv(r)?;
        } else {
            ep.send(peer, &out[..size])?;
            ep.recv(peer, inbuf)?;
            daxpy(1e-9, &x[..len], &mut y[..len]);
        }
    }
    black_box(y);
    Ok(())
}

/// One batch of point `q` (synchronous or asynchronous, its length and size).
fn batch<E: Endpoint>(
    ep: &mut E,
    peer: usize,
    b: &mut Buffers,
    q: u64,
    reps: u64,
) -> Result<(), RankError> {
    match unparam(q) {
        (true, len, size) => exchange_daxpy::<true, E>(ep, peer, b, size, len, reps),
        (false, len, size) => exchange_daxpy::<false, E>(ep, peer, b, size, len, reps),
    }
}

/// The largest message size and vector length of points `params`.
fn extent(params: &[u64]) -> (usize, usize) {
    let max = params.iter().map(|&q| unparam(q).2).max().unwrap_or(0);
    let max_len = params.iter().map(|&q| unparam(q).1).max().unwrap_or(0);
    (max, max_len)
}

/// A point's progress line.
fn label(q: u64) -> String {
    let (a, len, size) = unparam(q);
    format!(
        "overlap {} {size} B x {len}",
        if a { "async" } else { "sync" }
    )
}

/// Every rank's part of an overlap sweep (its [`drive`]), on any endpoint:
/// rank 0 and the last rank of the sweep exchange and run their DAXPYs, each
/// point checked once (the peer's pattern, every byte) before it is timed;
/// the ranks between them idle. Buffers and vectors are allocated here, before
/// any timing.
fn overlap_body<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
) -> Result<Vec<Samples>, RankError> {
    let (max, max_len) = extent(sweep.plan.points);
    let peer = common::pair_peer(rc.rank, sweep.ranks);
    let mut b = Buffers {
        out: common::pattern_buf(rc.rank, max),
        inbuf: vec![0u8; max.max(64)],
        x: vec![1.0; max_len],
        y: vec![0.0; max_len],
    };
    drive(
        rc,
        ep,
        sweep,
        &mut b,
        |ep, b, q, check| {
            let Some(peer) = peer.filter(|_| check == Check::Before) else {
                return Ok(());
            };
            b.inbuf.fill(0);
            batch(ep, peer, b, q, 1)?;
            let size = unparam(q).2;
            check_pattern("overlap exchange", peer, &b.inbuf[..size], size)
        },
        |ep, b, q, reps| match peer {
            Some(peer) => batch(ep, peer, b, q, reps),
            None => Ok(()),
        },
    )
}

/// The overlap's rank body over its points, between rank 0 and rank
/// `ranks - 1`.
struct OverlapBody {
    plan: Plan<'static>,
}

impl<E: Endpoint> RankBody<E> for OverlapBody {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        overlap_body(rc, ep, sweep)
    }
}

fn body(params: Vec<u64>, ranks: usize) -> OverlapBody {
    let max_bytes = extent(&params).0;
    OverlapBody {
        plan: Plan {
            kernel: NAME,
            params,
            ranks,
            max_bytes,
            label: Box::new(label),
        },
    }
}

/// The points: every message size by every vector length, synchronous then
/// asynchronous.
fn params(ctx: &RunContext<'_>) -> Vec<u64> {
    let effort = ctx.config.effort();
    let sizes = ctx
        .config
        .sizes
        .clone()
        .unwrap_or_else(|| effort.comet_overlap_sizes.to_vec());
    let lengths: Vec<usize> = effort.comet_overlap_lengths.to_vec();
    sizes
        .iter()
        .flat_map(|&s| {
            lengths
                .iter()
                .flat_map(move |&l| [param(false, l, s), param(true, l, s)])
        })
        .collect()
}

/// An overlap result's points: per size and length the synchronous and
/// asynchronous times and the gain `(t_sync - t_async) / t_sync` in percent.
fn overlap_result(mut r: KernelResult, samples: &[Samples]) -> KernelResult {
    for pair in samples.chunks(2) {
        let [sync, asy] = pair else { continue };
        let (_, len, size) = unparam(sync.param);
        let point = Point::new()
            .with("size_bytes", size as f64)
            .with("vector_length", len as f64)
            .with("reps_sync", sync.reps as f64)
            .with("reps_async", asy.reps as f64);
        let what = format!("{size} B x {len}");
        let (point, ts) = common::stats_point(
            point,
            "sync_ns",
            &sync.samples_ns,
            &format!("sync {what}"),
            &mut r.warnings,
        );
        let (point, ta) = common::stats_point(
            point,
            "async_ns",
            &asy.samples_ns,
            &format!("async {what}"),
            &mut r.warnings,
        );
        let gain = if ts > 0.0 {
            100.0 * (ts - ta) / ts
        } else {
            0.0
        };
        r.points.push(point.with("gain_percent", gain));
    }
    r
}

/// The overlap kernel between rank 0 and the last of `ranks`.
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    ranks: usize,
) -> Result<Vec<KernelResult>, KernelError> {
    let params = params(ctx);
    common::run_pair(
        ctx,
        NAME,
        ranks,
        |size| body(params, size),
        |r, _, s| overlap_result(r, s),
    )
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    crate::kernels::harness::probe::around(ctx, || run_with(ctx, 2))
}
