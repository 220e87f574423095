//! `comet-global-sum`: CoMet's global reduction kernel (section 2.2.1, Fig. 4;
//! section 4.1, Fig. 23). Every rank holds a vector of doubles; afterwards every
//! rank holds their element-wise sum. Two algorithms:
//!
//! - `comet-global-sum-doubling`: recursive doubling (`log2 P` exchange-and-add
//!   rounds; for P not a power of two the ranks above the largest power of two
//!   first fold their vectors into partners and get the result back at the end);
//! - `comet-global-sum-tree`: binomial-tree reduction to rank 0, then the binomial
//!   broadcast of the result (the iPSC/860's `gdsum` was a tree, the paper infers).
//!
//! Rank `r`'s element `i` is `(r + 1)(i mod 13 + 1)`: small integers, so every
//! summation order gives the exact serial sum `(i mod 13 + 1) P (P + 1) / 2`, which
//! every rank checks before and after timing. Against vector length and P.

use super::super::{KernelError, KernelSpec, RunContext};
use super::broadcast::{sweep_collective, tree_broadcast};
use super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, drive, f64_bytes, f64_bytes_mut,
};
use crate::control::RankError;
use crate::results::{KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport};

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-global-sum";

pub(super) const GLOBAL_SUM: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.1 (Fig. 4) and 4.1 (Fig. 23)",
    about: "element-wise global sum of a double vector onto every rank, recursive doubling and tree + broadcast, vs length and P, checked against the serial sum",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(run_over_mpi)),
    card: &[],
    run,
    plan: super::estimate::global_sum,
};

/// The reduction algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Doubling,
    Tree,
}

impl Algorithm {
    fn name(self) -> &'static str {
        match self {
            Algorithm::Doubling => "comet-global-sum-doubling",
            Algorithm::Tree => "comet-global-sum-tree",
        }
    }
}

/// Rank `r`'s input element `i`.
fn input(r: usize, i: usize) -> f64 {
    ((r + 1) * (i % 13 + 1)) as f64
}

/// The serial sum of element `i` over `p` ranks.
fn expected(p: usize, i: usize) -> f64 {
    ((i % 13 + 1) * p * (p + 1) / 2) as f64
}

#[inline]
fn add(acc: &mut [f64], other: &[f64]) {
    for (a, b) in acc.iter_mut().zip(other) {
        *a += *b;
    }
}

/// Recursive doubling of the rank's vector `acc`, `tmp` as receive space.
#[inline]
fn doubling<E: Endpoint>(ep: &mut E, acc: &mut [f64], tmp: &mut [f64]) -> Result<(), RankError> {
    let (r, p) = (ep.rank(), ep.size());
    let p2 = 1usize << (usize::BITS - 1 - p.leading_zeros());
    let rem = p - p2;
    if r >= p2 {
        ep.send(r - p2, f64_bytes(acc))?;
        ep.recv(r - p2, f64_bytes_mut(acc))?;
        return Ok(());
    }
    if r < rem {
        ep.recv(r + p2, f64_bytes_mut(tmp))?;
        add(acc, tmp);
    }
    let mut mask = 1;
    while mask < p2 {
        let partner = r ^ mask;
        ep.send(partner, f64_bytes(acc))?;
        ep.recv(partner, f64_bytes_mut(tmp))?;
        add(acc, tmp);
        mask <<= 1;
    }
    if r < rem {
        ep.send(r + p2, f64_bytes(acc))?;
    }
    Ok(())
}

/// Binomial reduction of the rank's vector `acc` to rank 0, then the binomial
/// broadcast of the sum.
#[inline]
fn tree<E: Endpoint>(ep: &mut E, acc: &mut [f64], tmp: &mut [f64]) -> Result<(), RankError> {
    let (r, p) = (ep.rank(), ep.size());
    let mut mask = 1;
    while mask < p {
        if r & mask != 0 {
            ep.send(r - mask, f64_bytes(acc))?;
            break;
        }
        if r + mask < p {
            ep.recv(r + mask, f64_bytes_mut(tmp))?;
            add(acc, tmp);
        }
        mask <<= 1;
    }
    let len = std::mem::size_of_val(acc);
    tree_broadcast(ep, f64_bytes_mut(acc), len)
}

/// A rank's vectors.
struct Vectors {
    input: Vec<f64>,
    acc: Vec<f64>,
    tmp: Vec<f64>,
}

impl Vectors {
    /// Rank `rank`'s input of `max` elements, and room for the sum.
    fn of(rank: usize, max: usize) -> Vectors {
        Vectors {
            input: (0..max).map(|i| input(rank, i)).collect(),
            acc: vec![0.0; max],
            tmp: vec![0.0; max],
        }
    }
}

/// The check of a point: before it, `once` sums once into a cleared result;
/// before and after, every element must be the serial sum over `p` ranks.
fn checked_sum<E: Endpoint>(
    ep: &mut E,
    v: &mut Vectors,
    len: usize,
    check: Check,
    p: usize,
    once: impl FnOnce(&mut E, &mut Vectors) -> Result<(), RankError>,
) -> Result<(), RankError> {
    if check == Check::Before {
        v.acc.fill(f64::NAN);
        once(ep, v)?;
    }
    verify(ep.rank(), p, &v.acc[..len])
}

#[inline(never)]
fn batch<E: Endpoint>(
    ep: &mut E,
    algorithm: Algorithm,
    v: &mut Vectors,
    len: usize,
    reps: u64,
) -> Result<(), RankError> {
    let (input, acc, tmp) = (&v.input[..len], &mut v.acc[..len], &mut v.tmp[..len]);
    for _ in 0..reps {
        acc.copy_from_slice(input);
        match algorithm {
            Algorithm::Doubling => doubling(ep, acc, tmp)?,
            Algorithm::Tree => tree(ep, acc, tmp)?,
        }
    }
    Ok(())
}

fn verify(rank: usize, p: usize, acc: &[f64]) -> Result<(), RankError> {
    match (0..acc.len()).find(|&i| acc[i] != expected(p, i)) {
        None => Ok(()),
        Some(i) => Err(RankError::Failed(format!(
            "global sum at rank {rank}: element {i} is {}, the serial sum is {} (verification failed)",
            acc[i],
            expected(p, i)
        ))),
    }
}

/// A global sum's rank body: `algorithm` over the plan's lengths on all its
/// ranks, each point checked against the serial sum before and after timing.
struct GlobalSumBody<'a> {
    algorithm: Algorithm,
    plan: Plan<'a>,
}

impl<E: Endpoint> RankBody<E> for GlobalSumBody<'_> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        let (algorithm, p) = (self.algorithm, self.plan.ranks);
        let mut v = Vectors::of(rc.rank, self.plan.max_bytes / 8);
        drive(
            rc,
            ep,
            sweep,
            &mut v,
            |ep, v, len, check| {
                checked_sum(ep, v, len as usize, check, p, |ep, v| {
                    batch(ep, algorithm, v, len as usize, 1)
                })
            },
            |ep, v, len, reps| batch(ep, algorithm, v, len as usize, reps),
        )
    }
}

/// The plan of a global sum over `lengths` (doubles) on `p` ranks, each
/// point's progress line from `label`.
fn plan<'a>(lengths: &[usize], p: usize, label: impl Fn(u64) -> String + Sync + 'a) -> Plan<'a> {
    Plan {
        kernel: NAME,
        params: lengths.iter().map(|&s| s as u64).collect(),
        ranks: p,
        max_bytes: lengths.iter().copied().max().unwrap_or(0) * 8,
        label: Box::new(label),
    }
}

/// A global sum's samples on `team` over `lengths`, on transport `T`.
fn run_on<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    algorithm: Algorithm,
    lengths: &[usize],
) -> Result<Vec<Samples>, KernelError> {
    let p = team.size();
    let body = GlobalSumBody {
        algorithm,
        plan: plan(lengths, p, move |n| {
            format!("{} P={p} {n} doubles", algorithm.name())
        }),
    };
    common::sweep_team::<T>(ctx, team, &body)
}

/// The global-sum kernel over `processors`.
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    processors: &[usize],
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, GLOBAL_SUM.name)?;
    let lengths = lengths(ctx);
    sweep_collective(
        ctx,
        GLOBAL_SUM.name,
        &[Algorithm::Doubling, Algorithm::Tree],
        Algorithm::name,
        processors,
        lengths.len(),
        "global_sum_ns",
        |team, algorithm, t| crate::with_transport!(t, run_on(ctx, team, algorithm, &lengths)),
        describe,
    )
}

/// A point's length in doubles and in bytes (8 a double), its label and size.
fn describe(point: Point, s: &Samples) -> (Point, String, usize) {
    let n = s.param as usize;
    let bytes = n * size_of::<f64>();
    let point = point
        .with("n_elements", n as f64)
        .with("size_bytes", bytes as f64);
    (point, format!("{n} doubles"), bytes)
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    common::run_collective(ctx, run_with)
}

/// The vector lengths, in doubles: from the run's sizes (8 bytes a double), or
/// the defaults.
fn lengths(ctx: &RunContext<'_>) -> Vec<usize> {
    match &ctx.config.sizes {
        Some(s) => s.iter().map(|b| (b / 8).max(1)).collect(),
        None => ctx.config.effort().comet_sum_lengths.to_vec(),
    }
}

/// MPI's own global sum beside doubling and tree: `MPI_Allreduce` with
/// `MPI_SUM`.
#[cfg(feature = "mpi")]
pub(super) const MPI_VARIANT: &str = "comet-global-sum-mpi";

/// The global-sum kernel over MPI processes: doubling, tree and
/// `MPI_Allreduce`, at P = the number of processes, each checked against the
/// serial sum.
#[cfg(feature = "mpi")]
fn run_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    use super::over_mpi::{self, MpiBody, label};
    let lengths = lengths(ctx);
    let p = procs.size();
    let hand_written = |a: Algorithm| GlobalSumBody {
        algorithm: a,
        plan: plan(&lengths, p, label(a.name(), p)),
    };
    let (doubling, tree) = (
        hand_written(Algorithm::Doubling),
        hand_written(Algorithm::Tree),
    );
    let mpi = MpiBody::<MpiGlobalSum>::new(plan(&lengths, p, label(MPI_VARIANT, p)));
    over_mpi::run_variants(
        ctx,
        procs,
        NAME,
        &[
            (Algorithm::Doubling.name(), &doubling),
            (Algorithm::Tree.name(), &tree),
            (MPI_VARIANT, &mpi),
        ],
        "global_sum_ns",
        describe,
    )
}

/// MPI's own global sum: one `MPI_Allreduce` with `MPI_SUM` a repetition,
/// checked against the serial sum before and after each point.
#[cfg(feature = "mpi")]
struct MpiGlobalSum;

#[cfg(feature = "mpi")]
impl super::over_mpi::MpiCollective for MpiGlobalSum {
    type State = Vectors;
    const CHECK_AFTER: bool = true;

    fn state(rank: usize, max_bytes: usize) -> Vectors {
        Vectors::of(rank, max_bytes / 8)
    }

    fn call(ep: &mut crate::transport::mpi::MpiEndpoint, v: &mut Vectors, len: usize) {
        ep.allreduce_sum(&v.input[..len], &mut v.acc[..len]);
    }

    fn clear(_: usize, v: &mut Vectors) {
        v.acc.fill(f64::NAN);
    }

    fn verify(rank: usize, v: &Vectors, len: usize, p: usize) -> Result<(), RankError> {
        verify(rank, p, &v.acc[..len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A global sum of 4096 doubles reduces 32 KiB vectors: the size its fits use.
    #[test]
    fn a_points_size_is_eight_bytes_a_double() {
        let s = Samples {
            param: 4096,
            reps: 10,
            samples_ns: vec![1.0],
        };
        let (point, label, size) = describe(Point::new(), &s);
        assert_eq!((label.as_str(), size), ("4096 doubles", 32_768));
        assert_eq!(point.number("n_elements"), Some(4096.0));
        assert_eq!(point.number("size_bytes"), Some(32_768.0));
    }

    /// The serial sum of element i over P ranks, (i mod 13 + 1) P (P + 1) / 2:
    /// element 0 over 4 ranks is 1 + 2 + 3 + 4 = 10, element 14 is 2 x 10.
    #[test]
    fn the_expected_sum_is_the_serial_one() {
        assert_eq!(expected(4, 0), 10.0);
        assert_eq!(expected(4, 14), 20.0);
        assert_eq!((0..4).map(|r| input(r, 14)).sum::<f64>(), 20.0);
    }
}
