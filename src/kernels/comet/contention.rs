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
use super::common::{self, Samples, drive, load_sizes, push_line};
use super::echo::{echo_chain, echo_check, echo_points, param, run_echo_on};
use crate::control::RankError;
use crate::results::KernelResult;
use crate::team::Team;
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
    run,
};

/// The load: rank 2 streams `load` bytes to rank 3 until `stop`, then sends one
/// byte that ends rank 3's loop (load messages are at least 16 bytes).
fn load<E: Endpoint>(ep: &mut E, load: usize, stop: &AtomicBool) -> Result<(), RankError> {
    let mut buf = common::pattern_buf(2, load.max(16));
    if ep.rank() == 2 {
        // Acquire: pairs with rank 0's Release store; nothing else is published.
        while !stop.load(Ordering::Acquire) {
            ep.send(3, &buf[..load])?;
        }
        ep.send(3, &[1u8])
    } else {
        while ep.recv(2, &mut buf)? != 1 {}
        Ok(())
    }
}

fn run_on<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    team: &Team,
    sizes: &[usize],
    load_bytes: usize,
) -> Result<Vec<Samples>, KernelError> {
    let max = sizes.iter().copied().max().unwrap_or(0).max(load_bytes);
    let params: Vec<u64> = sizes.iter().map(|&s| param(1, s)).collect();
    let stop = AtomicBool::new(false);
    let out = common::pattern_buf(0, max);
    common::sweep_team::<T>(
        ctx,
        team,
        CONTENTION.name,
        &params,
        2,
        max,
        |_| format!("contention load {load_bytes} B"),
        |rc, ep, sweep| match rc.rank {
            0 | 1 => {
                let mut buf = vec![0u8; max.max(64)];
                let samples = drive(
                    rc,
                    ep,
                    sweep,
                    &mut buf,
                    |ep, buf, p, check| match check {
                        common::Check::Before => echo_check(ep, 1, (p & 0xffff_ffff) as usize, buf),
                        common::Check::After => Ok(()),
                    },
                    |ep, buf, p, reps| {
                        echo_chain(ep, 1, &out[..(p & 0xffff_ffff) as usize], buf, reps)
                    },
                );
                if rc.rank == 0 {
                    // Release: the load ranks need only see the flag; it publishes nothing.
                    stop.store(true, Ordering::Release);
                }
                samples
            }
            2 | 3 if load_bytes > 0 => load(ep, load_bytes, &stop).map(|_| Vec::new()),
            _ => Ok(Vec::new()),
        },
    )
}

/// The contention kernel on a team of `ranks` (at least 4).
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    ranks: usize,
) -> Result<Vec<KernelResult>, KernelError> {
    common::require_two_cpus(ctx, CONTENTION.name)?;
    let ranks = ranks.max(4);
    let sizes = ctx
        .config
        .sizes
        .clone()
        .unwrap_or_else(|| common::coarse_sizes(ctx.config.quick));
    let curve = common::echo_sizes(ctx.config.quick);
    let max_load = *curve.last().expect("sizes");
    let pair = Team::new(&ctx.team_spec(ctx.cpus(), 2, true))?;
    let team = Team::new(&ctx.team_spec(ctx.cpus(), ranks, true))?;
    let points = curve.len() + 3 * sizes.len();
    common::per_transport(ctx, CONTENTION.name, points, |t| {
        let params: Vec<u64> = curve.iter().map(|&s| param(1, s)).collect();
        let base = run_echo_on(
            ctx,
            &pair,
            t,
            &params,
            "contention: echo for the load sizes",
        )?;
        let x: Vec<f64> = base
            .iter()
            .map(|s| (s.param & 0xffff_ffff) as f64)
            .collect();
        let y: Vec<f64> = base
            .iter()
            .map(|s| s.samples_ns.iter().copied().fold(f64::INFINITY, f64::min) / 2.0)
            .collect();
        let (s50, s90) = load_sizes(&x, &y, 16, max_load);
        let mut r = common::result(CONTENTION.name, Some(t.name()), &team, ranks);
        r.warnings.push(format!(
            "load sizes from the pinned echo: 50% of peak bandwidth at {s50} B, 90% at {s90} B"
        ));
        for (fraction, load_bytes) in [(0.0, 0), (0.5, s50), (0.9, s90)] {
            if ctx.cancelled() {
                break;
            }
            let samples = crate::with_transport!(t, run_on(ctx, &team, &sizes, load_bytes))?;
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
    })
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    run_with(ctx, 4)
}
