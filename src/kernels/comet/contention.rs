//! `comet-contention`: CoMet's echo with contention (section 2.2.1, Figs. 5 and 6;
//! section 4.1, Fig. 21). Two ranks run the echo kernel while two others exchange
//! messages continuously (one streams, the other receives), at the message sizes
//! that reach 50% and 90% of the peak bandwidth the echo measures (section 4.1:
//! "the message sizes that produce 50% and 90% peak bandwidth utilization will be
//! used later to generate load in the contention kernel").
//!
//! Here the echo runs between ranks 0 and 1 and the load from rank 2 to rank 3;
//! ranks are dealt alternately on the CPUs, so on two CPUs both pairs cross the
//! same pair of CPUs (as the paper's load crossed the links of the echo nodes),
//! and the load also competes for the CPUs themselves: the four ranks are virtual
//! processors. The 50% / 90% sizes come from a pinned two-rank echo measured
//! first, per transport. The echo is measured without load on the same team too.

use super::super::{KernelError, KernelSpec, RunContext};
use super::common::{self, Plan, RankBody, RankSamples, Samples, Sweep, load_sizes, push_line};
use super::echo::{echo_body, echo_points, param, run_echo_on};
use crate::control::RankError;
use crate::results::KernelResult;
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport};
use std::sync::atomic::{AtomicBool, Ordering};

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-contention";

pub(super) const CONTENTION: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.1 (Figs. 5, 6) and 4.1 (Fig. 21)",
    about: "echo between ranks 0 and 1 while ranks 2 -> 3 stream at the 50% and 90% bandwidth sizes, vs size",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::Runs {
        processes: MPI_PROCESSES,
        run: crate::kernels::mpi_run!(run_over_mpi),
    },
    card: &[],
    run,
    plan: super::estimate::contention,
};

/// How rank 0 tells the load's sender that the echo is done: by a flag the
/// threads share, or by a message ([`ByMessage`])
/// between processes.
pub(super) trait Stop<E> {
    /// Rank 0, after its sweep: the load may stop.
    fn signal(&self, ep: &mut E) -> Result<(), RankError>;
    /// Rank 2, between two load messages: whether rank 0 signalled.
    fn stopped(&self, ep: &mut E) -> Result<bool, RankError>;
    /// The load's message size on this rank, as rank 0 chose it: threads
    /// share it; processes hear it from rank 0 before the sweep.
    fn load_bytes(&self, _ep: &mut E, load_bytes: usize) -> Result<usize, RankError> {
        Ok(load_bytes)
    }
}

impl<E> Stop<E> for AtomicBool {
    fn signal(&self, _: &mut E) -> Result<(), RankError> {
        // Release: the load ranks need only see the flag; it publishes nothing.
        self.store(true, Ordering::Release);
        Ok(())
    }

    fn stopped(&self, _: &mut E) -> Result<bool, RankError> {
        // Acquire: pairs with rank 0's Release store; nothing else is published.
        Ok(self.load(Ordering::Acquire))
    }
}

/// The load: rank 2 streams `load` bytes to rank 3 until `stop`, then sends one
/// byte that ends rank 3's loop (load messages are at least 16 bytes).
fn load<E: Endpoint>(ep: &mut E, load: usize, stop: &impl Stop<E>) -> Result<(), RankError> {
    let mut buf = common::pattern_buf(2, load.max(16));
    if ep.rank() == 2 {
        while !stop.stopped(ep)? {
            ep.send(3, &buf[..load])?;
        }
        ep.send(3, &[1u8])
    } else {
        while ep.recv(2, &mut buf)? != 1 {}
        Ok(())
    }
}

/// Every rank's part of one contention sweep, on any endpoint: ranks 0 and 1
/// run the echo ([`echo_body`]; `out` is rank 0's message of the largest
/// size), ranks 2 and 3 the load of `load_bytes` (none at 0) until rank 0
/// signals `stop`, the others idle.
pub(super) fn contention_body<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
    out: &[u8],
    load_bytes: usize,
    stop: &impl Stop<E>,
) -> Result<Vec<Samples>, RankError> {
    match rc.rank {
        0 | 1 => {
            let samples = echo_body(rc, ep, sweep, out)?;
            if rc.rank == 0 && load_bytes > 0 {
                stop.signal(ep)?;
            }
            Ok(samples)
        }
        2 | 3 if load_bytes > 0 => load(ep, load_bytes, stop).map(|_| Vec::new()),
        _ => Ok(Vec::new()),
    }
}

/// The largest message (the echo's or the load's) of a sweep over `sizes`
/// under `load_bytes`.
fn extent(sizes: &[usize], load_bytes: usize) -> usize {
    sizes.iter().copied().max().unwrap_or(0).max(load_bytes)
}

/// The contention kernel's rank body: the echo over `sizes` on ranks 0
/// and 1 under a load of `load_bytes` on ranks 2 and 3, stopped by `stop`;
/// `out` is rank 0's message of `max` bytes.
struct ContentionBody<S> {
    out: Vec<u8>,
    load_bytes: usize,
    stop: S,
    plan: Plan<'static>,
}

impl<S> ContentionBody<S> {
    fn new(sizes: &[usize], max: usize, load_bytes: usize, stop: S) -> Self {
        ContentionBody {
            out: common::pattern_buf(0, max),
            load_bytes,
            stop,
            plan: Plan {
                kernel: NAME,
                params: sizes.iter().map(|&s| param(1, s)).collect(),
                ranks: 2,
                max_bytes: max,
                label: Box::new(move |_| format!("contention load {load_bytes} B")),
            },
        }
    }
}

impl<E: Endpoint, S: Stop<E> + Sync> RankBody<E> for ContentionBody<S> {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        let load = self.stop.load_bytes(ep, self.load_bytes)?;
        contention_body(rc, ep, sweep, &self.out, load, &self.stop)
    }
}

fn run_on<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    sizes: &[usize],
    load_bytes: usize,
) -> Result<Vec<Samples>, KernelError> {
    let max = extent(sizes, load_bytes);
    let body = ContentionBody::new(sizes, max, load_bytes, AtomicBool::new(false));
    common::sweep_team::<T>(ctx, team, &body)
}

/// What the contention kernel sweeps: the echo sizes under load, the sizes of
/// the unloaded curve that gives the load sizes, and the largest load.
fn sizes(ctx: &RunContext<'_>) -> (Vec<usize>, Vec<usize>, usize) {
    let sizes = ctx
        .config
        .sizes
        .clone()
        .unwrap_or_else(|| common::coarse_sizes(ctx.config.quick));
    let curve = common::echo_sizes(ctx.config.quick);
    let max_load = *curve.last().expect("sizes");
    (sizes, curve, max_load)
}

/// The contention result `r` from the unloaded echo `base` (its 50% and 90%
/// peak-bandwidth sizes, up to `max_load`, are the loads) and the echo
/// measured by `measure(load_bytes)` under no load, then each load: points
/// labelled with the load's fraction and size, and a line per load.
fn contention_result(
    mut r: KernelResult,
    base: &[Samples],
    max_load: usize,
    cancelled: impl Fn() -> bool,
    mut measure: impl FnMut(usize) -> Result<Vec<Samples>, KernelError>,
) -> Result<KernelResult, KernelError> {
    let x: Vec<f64> = base
        .iter()
        .map(|s| (s.param & 0xffff_ffff) as f64)
        .collect();
    let y: Vec<f64> = base
        .iter()
        .map(|s| s.samples_ns.iter().copied().fold(f64::INFINITY, f64::min) / 2.0)
        .collect();
    let (s50, s90) = load_sizes(&x, &y, 16, max_load);
    r.warnings.push(format!(
        "load sizes from the pinned echo: 50% of peak bandwidth at {s50} B, 90% at {s90} B"
    ));
    for (fraction, load_bytes) in [(0.0, 0), (0.5, s50), (0.9, s90)] {
        if cancelled() {
            break;
        }
        let samples = measure(load_bytes)?;
        let first = r.points.len();
        let (x, y, _) = echo_points(&samples, &mut r);
        for p in &mut r.points[first..] {
            *p = std::mem::take(p)
                .with("load_fraction", fraction)
                .with("load_size_bytes", load_bytes as f64);
        }
        push_line(
            &mut r.fits,
            &mut r.warnings,
            // The load's size is measured (the warnings give it): it does not
            // name the fit, so that runs compare fit by fit.
            &format!(
                "t_startup + N t_per_byte under {}% load",
                (fraction * 100.0) as u32
            ),
            "size_bytes",
            "one_way_ns.min",
            &x,
            &y,
            ("t_startup_ns", "t_per_byte_ns"),
        );
    }
    Ok(r)
}

/// The contention kernel on a team of `ranks` (at least 4).
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    ranks: usize,
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, CONTENTION.name)?;
    let ranks = ranks.max(4);
    let (sizes, curve, max_load) = sizes(ctx);
    let pair = Team::new(&ctx.team_spec(ctx.cpus(), 2, true))?;
    let team = Team::new(&ctx.team_spec(ctx.cpus(), ranks, true))?;
    let points = curve.len() + 3 * sizes.len();
    common::per_transport(ctx, CONTENTION.name, points, |t| {
        let params: Vec<u64> = curve.iter().map(|&s| param(1, s)).collect();
        let base = run_echo_on(ctx, &pair, t, &params, BASE_LABEL)?;
        let r = common::result(CONTENTION.name, Some(t.name()), &team, ranks);
        contention_result(
            r,
            &base,
            max_load,
            || ctx.cancelled(),
            |load_bytes| crate::with_transport!(t, run_on(ctx, &team, &sizes, load_bytes)),
        )
    })
}

/// The progress label of the unloaded echo that gives the load sizes.
const BASE_LABEL: &str = "contention: echo for the load sizes";

/// The processes the kernel needs over MPI: the echo's pair and the load's.
pub(crate) const MPI_PROCESSES: usize = 4;

/// The contention kernel over MPI processes (at least four): the unloaded echo
/// between ranks 0 and 1 gives the load sizes (rank 0 sends them to ranks 2
/// and 3 before each sweep), then the echo between ranks 0 and 1 under no
/// load and under each load from rank 2 to rank 3; rank 0 stops the load with
/// a message. Sends are unbuffered: a long load message waits for rank 3's
/// receive, so the load cannot run ahead of its receiver.
#[cfg(feature = "mpi")]
fn run_over_mpi(
    ctx: &RunContext<'_>,
    procs: &crate::team::mpi::Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    use super::echo::run_echo_over_mpi;
    use super::over_mpi;
    if procs.size() < MPI_PROCESSES {
        return Err(KernelError::NotRunnable {
            kernel: NAME.into(),
            reason: format!(
                "it needs at least {MPI_PROCESSES} MPI processes (an echo pair and a load pair), and this world has {}",
                procs.size()
            ),
        });
    }
    let (sizes, curve, max_load) = sizes(ctx);
    common::with_progress(ctx, NAME, curve.len() + 3 * sizes.len(), || {
        let params: Vec<u64> = curve.iter().map(|&s| param(1, s)).collect();
        let base = run_echo_over_mpi(ctx, procs, &params, BASE_LABEL)?;
        // The echo pair's distance class; the CPUs of all four ranks.
        let mut r = over_mpi::pair_result(procs, NAME);
        r.cpus = procs.cpus();
        let max = extent(&sizes, 0);
        let r = contention_result(
            r,
            &base,
            max_load,
            || ctx.cancelled(),
            |load_bytes| {
                let body = ContentionBody::new(&sizes, max, load_bytes, ByMessage);
                over_mpi::sweep(ctx, procs, &body, false)
            },
        )?;
        Ok(if procs.rank() == 0 {
            vec![r]
        } else {
            Vec::new()
        })
    })
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    crate::kernels::harness::probe::around(ctx, || run_with(ctx, 4))
}

/// Stops the contention kernel's load between processes: rank 0 sends rank 2
/// one word when its echo sweep is done; rank 2 probes for it between two
/// load messages (`MPI_Iprobe`, outside the echo's timing on ranks 0 and 1).
#[cfg(feature = "mpi")]
pub(super) struct ByMessage;

#[cfg(feature = "mpi")]
impl Stop<crate::transport::mpi::MpiEndpoint> for ByMessage {
    fn signal(&self, ep: &mut crate::transport::mpi::MpiEndpoint) -> Result<(), RankError> {
        ep.send(2, &[0u8; 8])
    }

    fn stopped(&self, ep: &mut crate::transport::mpi::MpiEndpoint) -> Result<bool, RankError> {
        if !ep.probe(0) {
            return Ok(false);
        }
        let mut word = [0u8; 8];
        ep.recv(0, &mut word)?;
        Ok(true)
    }

    fn load_bytes(
        &self,
        ep: &mut crate::transport::mpi::MpiEndpoint,
        load_bytes: usize,
    ) -> Result<usize, RankError> {
        Ok(super::over_mpi::from_rank0(ep, load_bytes as u64, &[2, 3])? as usize)
    }
}
