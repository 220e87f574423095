//! `comet-broadcast`: CoMet's broadcast kernel (section 2.2.1, Fig. 3; section
//! 4.1, Fig. 19). The test node broadcasts a message to all others, then all
//! synchronise on a barrier (the dissemination barrier on the same transport);
//! the time on the test node covers both. Two broadcasts, since the paper allows
//! "a series of sends" where no broadcast primitive exists:
//!
//! - `comet-broadcast-linear`: the root sends to each rank in turn (P - 1 sends);
//! - `comet-broadcast-tree`: a binomial tree (`ceil(log2 P)` rounds).
//!
//! Against message size and against the number of processors; fitted per P as
//! `t_startup + N t_per_byte` and, at the smallest and largest size, against
//! `log2 P` (the paper: broadcast time grows linearly with the log of P).

use super::super::{KernelError, KernelSpec, RunContext};
use super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, add_fits, check_pattern, drive,
    push_points,
};
use crate::control::RankError;
use crate::kernels::harness::calls::dissemination;
use crate::results::{KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport, TransportKind};

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-broadcast";

pub(super) const BROADCAST: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.1 (Fig. 3) and 4.1 (Fig. 19)",
    about: "broadcast from rank 0 then barrier, linear (series of sends) and binomial tree, vs size and P",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(run_over_mpi)),
    card: &[],
    run,
    plan: super::estimate::broadcast,
};

/// The broadcast algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Algorithm {
    /// The root sends to every other rank in turn.
    Linear,
    /// Binomial tree from rank 0.
    Tree,
}

impl Algorithm {
    fn name(self) -> &'static str {
        match self {
            Algorithm::Linear => "comet-broadcast-linear",
            Algorithm::Tree => "comet-broadcast-tree",
        }
    }
}

/// Broadcasts `buf[..len]` from rank 0 by a series of sends.
#[inline]
pub(super) fn linear_broadcast<E: Endpoint>(
    ep: &mut E,
    buf: &mut [u8],
    len: usize,
) -> Result<(), RankError> {
    if ep.rank() == 0 {
        for to in 1..ep.size() {
            ep.send(to, &buf[..len])?;
        }
    } else {
        ep.recv(0, buf)?;
    }
    Ok(())
}

/// Broadcasts `buf[..len]` from rank 0 down a binomial tree: rank `r` receives
/// from `r` minus its lowest set bit, then sends to `r + 2^k` for every `2^k`
/// below that bit (and below P).
#[inline]
pub fn tree_broadcast<E: Endpoint>(
    ep: &mut E,
    buf: &mut [u8],
    len: usize,
) -> Result<(), RankError> {
    let (r, p) = (ep.rank(), ep.size());
    let mut mask = 1;
    while mask < p {
        if r & mask != 0 {
            ep.recv(r - mask, buf)?;
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if r + mask < p {
            ep.send(r + mask, &buf[..len])?;
        }
        mask >>= 1;
    }
    Ok(())
}

#[inline(never)]
fn batch<E: Endpoint>(
    ep: &mut E,
    algorithm: Algorithm,
    buf: &mut [u8],
    len: usize,
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..reps {
        match algorithm {
            Algorithm::Linear => linear_broadcast(ep, buf, len)?,
            Algorithm::Tree => tree_broadcast(ep, buf, len)?,
        }
        dissemination(ep)?;
    }
    Ok(())
}

/// A broadcast's rank body: `algorithm` over the plan's sizes, each point
/// checked once before it is timed (`what` names it in a failed check).
struct BroadcastBody<'a> {
    algorithm: Algorithm,
    what: &'static str,
    plan: Plan<'a>,
}

impl<E: Endpoint> RankBody<E> for BroadcastBody<'_> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        let algorithm = self.algorithm;
        let mut buf = pattern_or_zeros(rc.rank, self.plan.max_bytes);
        drive(
            rc,
            ep,
            sweep,
            &mut buf,
            |ep, buf, size, check| {
                checked_once(ep, buf, size as usize, check, self.what, |ep, buf| {
                    batch(ep, algorithm, buf, size as usize, 1)
                })
            },
            |ep, buf, size, reps| batch(ep, algorithm, buf, size as usize, reps),
        )
    }
}

/// The plan of a broadcast over `sizes` on `p` ranks, each point's progress
/// line from `label`.
fn plan<'a>(sizes: &[usize], p: usize, label: impl Fn(u64) -> String + Sync + 'a) -> Plan<'a> {
    Plan {
        kernel: NAME,
        params: sizes.iter().map(|&s| s as u64).collect(),
        ranks: p,
        max_bytes: sizes.iter().copied().max().unwrap_or(0),
        label: Box::new(label),
    }
}

/// A broadcast's samples on `team` over `sizes`, on transport `T`.
fn run_on<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    algorithm: Algorithm,
    sizes: &[usize],
) -> Result<Vec<Samples>, KernelError> {
    let p = team.size();
    let body = BroadcastBody {
        algorithm,
        what: "broadcast",
        plan: plan(sizes, p, move |s| {
            format!("{} P={p} {s} B", algorithm.name())
        }),
    };
    common::sweep_team::<T>(ctx, team, &body)
}

/// The broadcast kernel over `processors`.
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    processors: &[usize],
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, BROADCAST.name)?;
    let sizes = ctx
        .config
        .sizes
        .clone()
        .unwrap_or_else(|| common::coarse_sizes(ctx.config.quick));
    sweep_collective(
        ctx,
        BROADCAST.name,
        &[Algorithm::Linear, Algorithm::Tree],
        Algorithm::name,
        processors,
        sizes.len(),
        "broadcast_ns",
        |team, algorithm, t| crate::with_transport!(t, run_on(ctx, team, algorithm, &sizes)),
        describe_size,
    )
}

/// A collective's sweep over `processors`: per algorithm and transport one result,
/// a team per `P` whose samples `measure` takes, a point per sample with the
/// statistics of `quantity` (`describe` adds the point's parameter and gives its
/// label and size in bytes), and the lines of [`add_fits`] over the minima.
#[allow(clippy::too_many_arguments)]
pub(super) fn sweep_collective<A: Copy>(
    ctx: &RunContext<'_>,
    kernel: &str,
    algorithms: &[A],
    name: impl Fn(A) -> &'static str,
    processors: &[usize],
    params: usize,
    quantity: &str,
    measure: impl Fn(&Team, A, TransportKind) -> Result<Vec<Samples>, KernelError>,
    describe: impl Fn(Point, &Samples) -> (Point, String, usize),
) -> Result<Vec<KernelResult>, KernelError> {
    common::sweep_processors(
        ctx,
        kernel,
        algorithms,
        name,
        processors,
        params,
        measure,
        |r, mins, p, samples| {
            let cpus = ctx.cpus().len();
            push_points(r, mins, (p, cpus), samples, quantity, &describe);
        },
        |r, _, mins| add_fits(r, mins, &format!("{quantity}.min")),
    )
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    common::run_collective(ctx, run_with)
}

/// MPI's own broadcast beside the linear and tree ones: `MPI_Bcast` from rank 0,
/// then `MPI_Barrier`, as the hand-written ones end on the dissemination barrier.
#[cfg(feature = "mpi")]
pub(super) const MPI_VARIANT: &str = "comet-broadcast-mpi";

/// The broadcast kernel over MPI processes: linear, tree and `MPI_Bcast`, at P =
/// the number of processes.
#[cfg(feature = "mpi")]
fn run_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    use super::over_mpi::{self, MpiBody, label};
    let sizes = ctx
        .config
        .sizes
        .clone()
        .unwrap_or_else(|| common::coarse_sizes(ctx.config.quick));
    let p = procs.size();
    let hand_written = |a: Algorithm| BroadcastBody {
        algorithm: a,
        what: a.name(),
        plan: plan(&sizes, p, label(a.name(), p)),
    };
    let (linear, tree) = (
        hand_written(Algorithm::Linear),
        hand_written(Algorithm::Tree),
    );
    let mpi = MpiBody::<MpiBroadcast>::new(plan(&sizes, p, label(MPI_VARIANT, p)));
    over_mpi::run_variants(
        ctx,
        procs,
        NAME,
        &[
            (Algorithm::Linear.name(), &linear),
            (Algorithm::Tree.name(), &tree),
            (MPI_VARIANT, &mpi),
        ],
        "broadcast_ns",
        describe_size,
    )
}

/// MPI's own broadcast: `MPI_Bcast` then `MPI_Barrier` a repetition, the
/// root's pattern checked once before each point.
#[cfg(feature = "mpi")]
struct MpiBroadcast;

#[cfg(feature = "mpi")]
impl super::over_mpi::MpiCollective for MpiBroadcast {
    type State = Vec<u8>;
    const CHECK_AFTER: bool = false;

    fn state(rank: usize, max_bytes: usize) -> Vec<u8> {
        pattern_or_zeros(rank, max_bytes)
    }

    fn call(ep: &mut crate::transport::mpi::MpiEndpoint, buf: &mut Vec<u8>, size: usize) {
        ep.bcast(&mut buf[..size]);
        ep.barrier();
    }

    fn clear(rank: usize, buf: &mut Vec<u8>) {
        if rank != 0 {
            buf.fill(0);
        }
    }

    fn verify(rank: usize, buf: &Vec<u8>, size: usize, _: usize) -> Result<(), RankError> {
        verify_root(rank, buf, size, MPI_VARIANT)
    }
}

/// A rank's broadcast buffer for messages of up to `max` bytes: rank 0's
/// pattern at the root, zeros elsewhere.
fn pattern_or_zeros(rank: usize, max: usize) -> Vec<u8> {
    if rank == 0 {
        common::pattern_buf(0, max.max(64))
    } else {
        vec![0u8; max.max(64)]
    }
}

/// The check before a point (none after): every rank but the root clears its
/// buffer, `once` broadcasts once, and every rank checks the root's pattern.
fn checked_once<E: Endpoint>(
    ep: &mut E,
    buf: &mut [u8],
    size: usize,
    check: Check,
    what: &str,
    once: impl FnOnce(&mut E, &mut [u8]) -> Result<(), RankError>,
) -> Result<(), RankError> {
    if check == Check::After {
        return Ok(());
    }
    if ep.rank() != 0 {
        buf.fill(0);
    }
    once(ep, buf)?;
    verify_root(ep.rank(), buf, size, what)
}

/// Checks that `buf[..size]` at `rank` holds the root's pattern.
fn verify_root(rank: usize, buf: &[u8], size: usize, what: &str) -> Result<(), RankError> {
    check_pattern(&format!("{what} at rank {rank}"), 0, &buf[..size], size)
}

/// A point's message size, its label and size in bytes.
fn describe_size(point: Point, s: &Samples) -> (Point, String, usize) {
    let size = s.param as usize;
    (
        point.with("size_bytes", size as f64),
        format!("{size} B"),
        size,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::comet::common::empty_result;

    /// Minimum times of a broadcast `t = (500 + 2 N) log2 P` ns at P = 2, 4, 8 and
    /// N = 0, 1000: at each P a line in N with t_startup 500 log2 P and
    /// t_per_byte 2 log2 P; at each end size a line in log2 P through the origin
    /// with slope 500 (N = 0) and 2500 (N = 1000) ns a doubling.
    #[test]
    fn the_fits_of_a_collective_read_its_minimum_times() {
        let mut mins = Vec::new();
        for p in [2usize, 4, 8] {
            for n in [0usize, 1000] {
                let d = (p as f64).log2();
                mins.push((p, n, (500.0 + 2.0 * n as f64) * d));
            }
        }
        let mut r = empty_result("comet-broadcast-tree");
        add_fits(&mut r, &mins, "broadcast_ns.min");
        assert_eq!(r.fits.len(), 5, "{:?}", r.warnings);
        for (f, d) in r.fits.iter().zip([1.0, 2.0, 3.0]) {
            assert!((f.params["t_startup_ns"] - 500.0 * d).abs() < 1e-9, "{f:?}");
            assert!((f.params["t_per_byte_ns"] - 2.0 * d).abs() < 1e-12, "{f:?}");
        }
        for (f, b) in r.fits[3..].iter().zip([500.0, 2500.0]) {
            assert!(f.params["a_ns"].abs() < 1e-9, "{f:?}");
            assert!((f.params["b_ns_per_doubling"] - b).abs() < 1e-9, "{f:?}");
        }
    }
}
