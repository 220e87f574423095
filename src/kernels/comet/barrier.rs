//! `comet-barrier`: CoMet's global synchronisation kernel (section 2.2.1, Fig. 22):
//! the minimum time of a barrier, timed over repeated barriers with the first
//! discarded, against the number of processors, for every barrier the suite has:
//!
//! - `central`: the centralised sense-reversing barrier on two shared atomics (a
//!   counter and a global sense; the last to arrive resets the counter and flips
//!   the sense, the others wait for the flip): [`CentralBarrier`];
//! - `dissemination`: the dissemination barrier on the endpoint's messages
//!   (`ceil(log2 P)` rounds; in round `k` rank `r` signals `r + 2^k` and waits for
//!   `r - 2^k`, mod P), once per transport;
//! - `std`: `std::sync::Barrier` (a mutex and a condition variable).
//!
//! Each time is fitted against `log2 P` (the paper plots the barrier against the
//! log of the number of nodes).
//!
//! Beside each time, `sleeps_per_barrier` ([`SLEEPS_PARAM`]): the process's
//! voluntary context switches over the sweep of that barrier and `P`, per
//! barrier of rank 0's batches (calibration included). A waiter that sleeps
//! in the kernel is one; a spin is none. std's barrier sleeps on a condition
//! variable unless the last rank arrives before its waiter has gone to
//! sleep, and the two cost 16.8 us and 0.41 us a barrier at P = 2 on a
//! 2-vCPU EPYC VM, one or the other a run: `compare` calls such a change a
//! change of mode where the sleeps moved with it.

use super::super::harness::calls::dissemination;
use super::super::harness::timing::Timer;
use super::super::{KernelError, KernelSpec, RunContext};
use super::common::{
    self, Check, Plan, RankBody, RankSamples, Sweep, drive_with_prologue, processors_point,
    push_line, stats_point,
};
use crate::control::{RankError, TeamControl};
use crate::platform::context_switches;
use crate::primitive::{AtomicU64, Ordering};
use crate::results::{KernelResult, SLEEPS_PARAM};
use crate::sync::Poll;
use crate::sync::barrier::{CentralBarrier, LocalSense};
use crate::team::{RankCtx, Team};
use crate::transport::channel::Channel;
use crate::transport::mailbox::Mailbox;
use crate::transport::{Endpoint, Transport, TransportConfig, TransportKind};

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-barrier";

pub(super) const BARRIER: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), section 2.2.1 'Global Synchronization', Fig. 22",
    about: "minimum barrier time (first discarded) against P for a central sense-reversing, a dissemination and std's barrier",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(run_over_mpi)),
    card: &[crate::kernels::card::CardEntry::of(
        "comet-barrier*",
        crate::kernels::card::CardRows::Barrier,
    )],
    run,
    plan: super::estimate::barrier,
};

/// The barriers this kernel times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Central,
    Dissemination(TransportKind),
    Std,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Central => "comet-barrier-central",
            Kind::Dissemination(_) => "comet-barrier-dissemination",
            Kind::Std => "comet-barrier-std",
        }
    }
}

#[inline(never)]
fn central_batch(
    b: &CentralBarrier,
    local: &mut LocalSense,
    control: &TeamControl,
    rank: usize,
    reps: u64,
) -> Result<(), RankError> {
    let (poll, peer) = central_wait(control, rank);
    for _ in 0..reps {
        b.wait(local, poll, control, peer)?;
    }
    Ok(())
}

/// How `rank` waits at the central barrier (bare on a CPU of its own: a
/// meeting polled with the spin-loop hint took one of levels a pause
/// apart, [`Poll::for_meeting`]), and the rank a deadline error names (the
/// barrier cannot tell which one is missing: rank 0's partner for rank 0,
/// rank 0 for the others).
fn central_wait(control: &TeamControl, rank: usize) -> (Poll, usize) {
    (Poll::for_meeting(control, rank), usize::from(rank == 0))
}

#[inline(never)]
fn dissemination_batch<E: Endpoint>(ep: &mut E, reps: u64) -> Result<(), RankError> {
    for _ in 0..reps {
        dissemination(ep)?;
    }
    Ok(())
}

#[inline(never)]
fn std_batch(b: &std::sync::Barrier, reps: u64) {
    for _ in 0..reps {
        b.wait();
    }
}

/// A barrier's rank body between threads: `kind` on every rank, the first
/// barrier of each batch untimed, the checked episodes counting arrivals.
struct BarrierBody<'a> {
    kind: Kind,
    central: &'a CentralBarrier,
    std_barrier: &'a std::sync::Barrier,
    /// Arrivals at the checked episodes, to verify that no barrier lets a
    /// rank through before every rank has arrived.
    arrived: &'a std::sync::atomic::AtomicU64,
    /// Rank 0's count of the barriers its batches held.
    episodes: &'a AtomicU64,
    plan: Plan<'a>,
}

impl<E: Endpoint> RankBody<E> for BarrierBody<'_> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        let (kind, central, std_barrier) = (self.kind, self.central, self.std_barrier);
        let (arrived, p) = (self.arrived, self.plan.ranks);
        // (the central barrier's local sense, episodes checked)
        let mut state = (LocalSense::default(), 0u64);
        let (poll, peer) = central_wait(rc.control, rc.rank);
        let wait = |ep: &mut E, local: &mut LocalSense| -> Result<(), RankError> {
            match kind {
                Kind::Central => central.wait(local, poll, rc.control, peer),
                Kind::Dissemination(_) => dissemination(ep),
                Kind::Std => {
                    std_barrier.wait();
                    Ok(())
                }
            }
        };
        drive_with_prologue(
            rc,
            ep,
            sweep,
            &mut state,
            |ep, (local, checked), _, check| {
                if check == Check::After {
                    return Ok(());
                }
                *checked += 1;
                // SeqCst: a plain counter read across the barrier under test; the
                // check must not depend on that barrier's own orderings.
                arrived.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                wait(ep, local)?;
                let seen = arrived.load(std::sync::atomic::Ordering::SeqCst);
                if seen < *checked * p as u64 {
                    return Err(RankError::Failed(format!(
                        "{}: rank {} passed the barrier after {seen} of {} arrivals (verification failed)",
                        kind.name(),
                        rc.rank,
                        *checked * p as u64
                    )));
                }
                // Nobody arrives at the next checked episode before all have looked.
                wait(ep, local)
            },
            |ep, (local, _), _| {
                // The first barrier of each batch is not timed: it absorbs the
                // skew of the command (the paper discards the first barrier).
                wait(ep, local)
            },
            |ep, (local, _), _, reps| {
                if rc.rank == 0 {
                    self.episodes.fetch_add(reps, Ordering::Relaxed);
                }
                let control = rc.control;
                match kind {
                    Kind::Central => central_batch(central, local, control, rc.rank, reps),
                    Kind::Dissemination(_) => dissemination_batch(ep, reps),
                    Kind::Std => {
                        std_batch(std_barrier, reps);
                        Ok(())
                    }
                }
            },
        )
    }
}

/// One barrier's samples on a team of `p` ranks, commands carried by `T`,
/// and the barriers its batches held (rank 0's count, calibration included).
fn run_kind<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    kind: Kind,
) -> Result<(Vec<common::Samples>, u64), KernelError> {
    let p = team.size();
    // Relaxed: rank 0's own count, added once a batch and read after the team
    // has joined.
    let episodes = AtomicU64::new(0);
    let body = BarrierBody {
        kind,
        central: &CentralBarrier::new(p),
        std_barrier: &std::sync::Barrier::new(p),
        arrived: &std::sync::atomic::AtomicU64::new(0),
        episodes: &episodes,
        plan: Plan {
            kernel: BARRIER.name,
            params: vec![p as u64],
            ranks: p,
            max_bytes: 64,
            label: Box::new(move |_| format!("{} P={p}", kind.name())),
        },
    };
    common::sweep_team::<T>(ctx, team, &body)
        .map(|samples| (samples, episodes.load(Ordering::Relaxed)))
}

/// The barrier kernel over the given processor counts.
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    processors: &[usize],
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, BARRIER.name)?;
    let mut kinds = vec![Kind::Central];
    kinds.extend(
        ctx.config
            .transports
            .iter()
            .map(|&t| Kind::Dissemination(t)),
    );
    kinds.push(Kind::Std);
    let steps = kinds.len() * processors.len();
    common::with_progress(ctx, BARRIER.name, steps, || {
        let mut out = Vec::new();
        for kind in kinds {
            let transport = match kind {
                Kind::Dissemination(t) => Some(t.name()),
                _ => None,
            };
            let mut res: Option<KernelResult> = None;
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for &p in processors {
                if ctx.cancelled() {
                    break;
                }
                let team = Team::new(&ctx.team_spec(ctx.cpus(), p, true))?;
                let r = res.get_or_insert_with(|| common::result(kind.name(), transport, &team, p));
                common::merge_placement(r, &team);
                let before = context_switches();
                let (samples, episodes) = match kind {
                    Kind::Dissemination(TransportKind::Channel) => {
                        run_kind::<Channel>(ctx, &team, kind)?
                    }
                    _ => run_kind::<Mailbox>(ctx, &team, kind)?,
                };
                let slept = context_switches()
                    .voluntary
                    .saturating_sub(before.voluntary);
                for s in &samples {
                    let mut point =
                        processors_point(p, ctx.cpus().len()).with("reps", s.reps as f64);
                    if episodes > 0 {
                        point = point.with(SLEEPS_PARAM, slept as f64 / episodes as f64);
                    }
                    let (point, min) = stats_point(
                        point,
                        "barrier_ns",
                        &s.samples_ns,
                        &format!("P = {p}"),
                        &mut r.warnings,
                    );
                    r.points.push(point);
                    x.push((p as f64).log2());
                    y.push(min);
                }
            }
            if let Some(mut r) = res {
                push_line(
                    &mut r.fits,
                    &mut r.warnings,
                    "t_barrier = a + b log2 P",
                    "log2_processors",
                    "barrier_ns.min",
                    &x,
                    &y,
                    ("a_ns", "b_ns_per_doubling"),
                );
                out.push(r);
            }
        }
        Ok(out)
    })
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    common::run_collective(ctx, run_with)
}

/// MPI's own barrier beside the dissemination barrier: `MPI_Barrier`.
#[cfg(feature = "mpi")]
pub(super) const MPI_VARIANT: &str = "comet-barrier-mpi";

/// The barrier kernel over MPI processes, at P = the number of processes: the
/// dissemination barrier on the endpoint's messages and `MPI_Barrier` (the
/// central and std barriers need memory shared between ranks). The first
/// barrier of each batch is not timed, as between threads.
#[cfg(feature = "mpi")]
fn run_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    let p = procs.size();
    let names = [
        Kind::Dissemination(TransportKind::Mailbox).name(),
        MPI_VARIANT,
    ];
    let [dissemination, mpi] = names.map(|name| MpiBarrier {
        mpi: name == MPI_VARIANT,
        plan: Plan {
            kernel: BARRIER.name,
            params: vec![p as u64],
            ranks: p,
            max_bytes: 64,
            label: Box::new(super::over_mpi::label(name, p)),
        },
    });
    super::over_mpi::run_variants(
        ctx,
        procs,
        BARRIER.name,
        &[(names[0], &dissemination), (names[1], &mpi)],
        "barrier_ns",
        |point, _| (point, format!("P = {p}"), 0),
    )
}

/// A barrier's rank body between MPI processes: the dissemination barrier on
/// the endpoint's messages, or `MPI_Barrier` (`mpi`) after an untimed meeting
/// under the deadline; the first barrier of each batch is not timed.
#[cfg(feature = "mpi")]
struct MpiBarrier<'a> {
    mpi: bool,
    plan: Plan<'a>,
}

#[cfg(feature = "mpi")]
impl RankBody<crate::transport::mpi::MpiEndpoint> for MpiBarrier<'_> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(
        &self,
        rc: &RankCtx<'_>,
        ep: &mut crate::transport::mpi::MpiEndpoint,
        sweep: &Sweep<'_>,
    ) -> RankSamples {
        use super::over_mpi::meet_if;
        use crate::transport::mpi::MpiEndpoint;
        let mpi = self.mpi;
        let batch = |ep: &mut MpiEndpoint, reps: u64| {
            if mpi {
                (0..reps).for_each(|_| ep.barrier());
                Ok(())
            } else {
                dissemination_batch(ep, reps)
            }
        };
        let wait = |ep: &mut MpiEndpoint, reps: u64| {
            meet_if(ep, mpi)?;
            batch(ep, reps)
        };
        drive_with_prologue(
            rc,
            ep,
            sweep,
            &mut (),
            |ep, _, _, check| match check {
                Check::After => Ok(()),
                Check::Before => wait(ep, 1),
            },
            |ep, _, _| wait(ep, 1),
            |ep, _, _, reps| batch(ep, reps),
        )
    }
}

/// Times `reps` barriers of the central sense-reversing barrier (`None`) or the
/// dissemination barrier on `transport` across `team`, as rank 0 sees them,
/// after one untimed barrier (for the Criterion benches: the kernel's own loops).
pub fn barrier_time(
    team: &Team,
    transport: Option<TransportKind>,
    reps: u64,
) -> Result<std::time::Duration, KernelError> {
    fn body<E: Endpoint>(ep: &mut E, reps: u64) -> Result<std::time::Duration, RankError> {
        dissemination(ep)?;
        let timer = Timer::start();
        dissemination_batch(ep, reps)?;
        Ok(timer.elapsed())
    }
    let central = CentralBarrier::new(team.size());
    let config = TransportConfig::buffered(64);
    let times = match transport {
        None => team.run(BARRIER.name, vec![(); team.size()], |rc, _| {
            let mut local = LocalSense::default();
            let (poll, peer) = central_wait(rc.control, rc.rank);
            central.wait(&mut local, poll, rc.control, peer)?;
            let timer = Timer::start();
            central_batch(&central, &mut local, rc.control, rc.rank, reps)?;
            Ok(timer.elapsed())
        })?,
        Some(TransportKind::Mailbox) => team.run(
            BARRIER.name,
            Mailbox::endpoints(team.control(), &config),
            |_, ep| body(ep, reps),
        )?,
        Some(TransportKind::Channel) => team.run(
            BARRIER.name,
            Channel::endpoints(team.control(), &TransportConfig::buffered(64)),
            |_, ep| body(ep, reps),
        )?,
    };
    Ok(times[0])
}
