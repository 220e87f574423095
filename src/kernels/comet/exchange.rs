//! `comet-exchange`: CoMet's pairwise exchange kernel (section 2.2.1, Fig. 2;
//! section 4.1, Fig. 20). Both nodes send, then receive, at once; time is taken
//! on the test node (rank 0). This assumes buffered sends (the paper warns it
//! deadlocks otherwise): the transports here are sized to hold a whole message
//! per pair. Fitted piecewise as `t_startup + N t_per_byte` with the bandwidth
//! figures, as the echo.

use super::super::{KernelError, KernelSpec, RunContext, convert};
use super::common::{
    self, Check, Plan, RankBody, RankSamples, Samples, Sweep, check_pattern, drive,
    message_curve_fits, pattern_buf, stats_point,
};
use crate::control::RankError;
use crate::results::{KernelResult, Point};
use crate::team::{RankCtx, Team};
use crate::transport::Endpoint;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "comet-exchange";

pub(super) const EXCHANGE: KernelSpec = KernelSpec {
    name: NAME,
    method: "comet",
    paper: "Ganapati, Otto & Walpole 1994 (CoMet), sections 2.2.1 (Fig. 2) and 4.1 (Fig. 20)",
    about: "pairwise exchange (both send, then receive) time vs size; piecewise t_startup + N t_per_byte",
    in_quick_suite: true,
    // Over MPI processes, between ranks 0 and 1 of the world (the others
    // idle, as the ranks between the pair do between threads), with sends
    // buffered for a whole message as the paper assumes (both ranks send at
    // once; a synchronous send of a long message would wait for the other's).
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(|ctx, procs| {
        super::over_mpi::run_pair(ctx, procs, &body(&sizes(ctx), 2), exchange_result)
    })),
    card: &[],
    run,
    plan: super::estimate::exchange,
};

/// `reps` exchanges of `out` with `peer` (send, then receive).
#[inline(never)]
pub(super) fn exchange<E: Endpoint>(
    ep: &mut E,
    peer: usize,
    out: &[u8],
    buf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..reps {
        ep.send(peer, out)?;
        ep.recv(peer, buf)?;
    }
    Ok(())
}

/// Every rank's part of an exchange sweep (its [`drive`]), on any endpoint:
/// rank 0 and the last rank of the sweep exchange (see
/// [`pair_peer`](common::pair_peer)), each point checked once (every byte of
/// the peer's pattern) before it is timed; the ranks between them idle.
struct ExchangeBody {
    plan: Plan<'static>,
}

impl<E: Endpoint> RankBody<E> for ExchangeBody {
    fn plan(&self) -> &Plan<'_> {
        &self.plan
    }

    fn run(&self, rc: &RankCtx<'_>, ep: &mut E, sweep: &Sweep<'_>) -> RankSamples {
        exchange_body(rc, ep, sweep, self.plan.max_bytes)
    }
}

/// The exchange's rank body over `sizes`, between rank 0 and rank `ranks - 1`.
fn body(sizes: &[usize], ranks: usize) -> ExchangeBody {
    let max = sizes.iter().copied().max().unwrap_or(0);
    ExchangeBody {
        plan: Plan {
            kernel: NAME,
            params: sizes.iter().map(|&s| s as u64).collect(),
            ranks,
            max_bytes: max,
            label: Box::new(|s| format!("exchange {s} B")),
        },
    }
}

fn exchange_body<E: Endpoint>(
    rc: &RankCtx<'_>,
    ep: &mut E,
    sweep: &Sweep<'_>,
    max: usize,
) -> Result<Vec<Samples>, RankError> {
    let peer = common::pair_peer(rc.rank, sweep.ranks);
    let out = pattern_buf(rc.rank, max);
    let mut buf = vec![0u8; max.max(64)];
    drive(
        rc,
        ep,
        sweep,
        &mut buf,
        |ep, buf, size, check| {
            let size = size as usize;
            let Some(peer) = peer.filter(|_| check == Check::Before) else {
                return Ok(());
            };
            ep.send(peer, &out[..size])?;
            let n = ep.recv(peer, buf)?;
            check_pattern("exchange", peer, &buf[..n], size)
        },
        |ep, buf, size, reps| match peer {
            Some(peer) => exchange(ep, peer, &out[..size as usize], buf, reps),
            None => Ok(()),
        },
    )
}

/// Points (size, exchange time, bandwidth) of exchange samples, and their
/// minima. An exchange's time is that of the whole repetition (both messages
/// cross at once, CoMet Fig. 2), and its bandwidth is one message's size over it.
pub(super) fn exchange_points(samples: &[Samples], r: &mut KernelResult) -> (Vec<f64>, Vec<f64>) {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for s in samples {
        let size = s.param as usize;
        let point = Point::new()
            .with("size_bytes", size as f64)
            .with("reps", s.reps as f64);
        let (point, min) = stats_point(
            point,
            "exchange_ns",
            &s.samples_ns,
            &format!("{size} B"),
            &mut r.warnings,
        );
        r.points.push(point.with(
            "bandwidth_mb_per_s",
            convert::bandwidth_mb_per_s(size as f64, min),
        ));
        x.push(size as f64);
        y.push(min);
    }
    (x, y)
}

/// An exchange result's points and CoMet's piecewise fits with the bandwidth
/// figures.
fn exchange_result(mut r: KernelResult, samples: &[Samples]) -> KernelResult {
    let (x, y) = exchange_points(samples, &mut r);
    let (fits, warnings) = message_curve_fits(&x, &y, "exchange_ns.min");
    r.fits.extend(fits);
    r.warnings.extend(warnings);
    r
}

/// The sizes: the user's, else the echo's.
fn sizes(ctx: &RunContext<'_>) -> Vec<usize> {
    ctx.config
        .sizes
        .clone()
        .unwrap_or_else(|| common::echo_sizes(ctx.config.quick))
}

/// The exchange between rank 0 and rank `ranks - 1` of a team of `ranks`.
pub(super) fn run_with(
    ctx: &RunContext<'_>,
    ranks: usize,
) -> Result<Vec<KernelResult>, KernelError> {
    let sizes = sizes(ctx);
    let finish = |mut r: KernelResult, team: &Team, samples: &[Samples]| {
        let hosts = team.hosts();
        r.distance_class = ctx.topology.distance(hosts[0], hosts[ranks - 1]);
        exchange_result(r, samples)
    };
    common::run_pair(ctx, NAME, ranks, |size| body(&sizes, size), finish)
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    crate::kernels::harness::probe::around(ctx, || run_with(ctx, 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::comet::common::empty_result;

    /// An exchange is timed whole (both messages cross at once): samples of 2500
    /// and 2000 ns at 1000 bytes are an exchange of 2000 ns at best, and one
    /// message of 1000 bytes in 2000 ns is 500 MB/s.
    #[test]
    fn an_exchange_is_reported_whole_with_one_messages_bandwidth() {
        let samples = [Samples {
            param: 1000,
            reps: 10,
            samples_ns: vec![2500.0, 2000.0],
        }];
        let mut r = empty_result("comet-exchange");
        let (x, y) = exchange_points(&samples, &mut r);
        assert_eq!((x, y), (vec![1000.0], vec![2000.0]));
        let p = &r.points[0];
        assert_eq!(p.stats("exchange_ns").unwrap().min, 2000.0);
        assert_eq!(p.number("bandwidth_mb_per_s"), Some(500.0));
        assert_eq!(p.number("size_bytes"), Some(1000.0));
    }
}
