//! Chapter IV "Validation": the simulator calibrated with this machine's message
//! costs and compared with the benchmark.
//!
//! # The message latency (eqs. 7-9)
//! The thesis charges a message of `L` bytes over `H` links with `I = H - 1`
//! intermediate nodes
//!
//! `T_ML = t_l + L H t_c + I t_i`
//!
//! (`t_l` the start-up, `t_c` the time per byte and link of store-and-forward
//! routing, `t_i` the work of an intermediate node). Here it is measured on a chain
//! of ranks `0 - 1 - ... - H` hosted as polled virtual nodes on two spinning pinned
//! workers ([`crate::team::hosted`]; consecutive ranks sit on different CPUs, so
//! every link crosses the two cores): rank 0 sends `L` bytes to rank 1, every
//! intermediate rank takes the whole message into a system buffer and sends it on
//! (store and forward, [`Mailroom`] routes), rank `H` sends it back the same way,
//! and rank 0 times the round trip; the one-way time is half of it, the minimum
//! over trials of the mean over a batch. Every link is one copy into the
//! transport and one copy out of it, so the bytes cost `L H t_c`; each
//! intermediate node adds its poll, receive and send, `t_i`. The three are fitted
//! by least squares over the block sizes of the benchmark and `H = 1..4`.
//!
//! # The simulation
//! The runs use the hypercube with these `t_l`, `t_c`, `t_i` (the ranks here all
//! share memory, one hop apart, but the simulator routes e-cube as the thesis's
//! machine did). Node totals have the spread of the uniprocessor runs divided by
//! `N`; no eq. 10 calibration term (it would be fitted to the very data it is
//! compared with). The comparison is the thesis's paired difference t test at
//! alpha = 0.1 (Appendix D) on the mean benchmark time and the mean simulated time
//! of each (load, N).

use std::sync::Arc;
use std::time::Instant;

use crate::control::RankError;
use crate::kernels::timing::measure;
use crate::kernels::{KernelError, RunContext};
use crate::model::regression::{LinearFit, Regressor, least_squares};
use crate::team::TeamError;
use crate::team::hosted::{Host, HostedSpec, HostedTeam, NodeCtx, VirtualNode};
use crate::transport::mailroom::Mailroom;
use crate::transport::{Endpoint, Transport};

/// The longest chain, links.
pub(super) const MAX_HOPS: usize = 4;
/// System buffers per forwarding node (one message is in flight at a time).
const BUFFERS: usize = 2;

/// One measured message latency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Latency {
    /// Message length `L`, bytes.
    pub(super) size: usize,
    /// Links `H` (intermediate nodes `H - 1`).
    pub(super) hops: usize,
    /// One-way time, ms.
    pub(super) one_way_ms: f64,
}

/// A rank of the chain: rank 0 (the source, whose program is the kernel's) or a
/// forwarding node.
enum ChainNode {
    Source,
    Relay(Mailroom),
}

impl<E: Endpoint> VirtualNode<E> for ChainNode {
    #[inline]
    fn poll(&mut self, ep: &mut E, ctx: &NodeCtx<'_>) -> Result<bool, RankError> {
        match self {
            ChainNode::Source => Ok(false),
            ChainNode::Relay(m) => VirtualNode::<E>::poll(m, ep, ctx),
        }
    }
}

/// The nodes of a chain of `hops` links: rank `k` forwards between `k - 1` and
/// `k + 1`, rank `hops` sends back what comes from `hops - 1`.
fn chain(hops: usize, max_bytes: usize) -> Result<Vec<ChainNode>, RankError> {
    let size = hops + 1;
    let mut nodes = vec![ChainNode::Source];
    for k in 1..=hops {
        let mut m = Mailroom::new(k, size, BUFFERS, max_bytes);
        if k < hops {
            m.route(k - 1, k + 1, u64::MAX)?;
            m.route(k + 1, k - 1, u64::MAX)?;
        } else {
            m.route(k - 1, k - 1, u64::MAX)?;
        }
        nodes.push(ChainNode::Relay(m));
    }
    Ok(nodes)
}

/// One round trip of `buf` from rank 0 to the end of the chain and back.
#[inline(never)]
fn round_trip<E: Endpoint>(
    host: &mut Host<'_, E, ChainNode>,
    buf: &mut [u8],
) -> Result<(), RankError> {
    host.parts().1.send(1, buf)?;
    host.wait_until(1, |_, ep| ep.try_recv(1, buf))?;
    std::hint::black_box(&mut *buf);
    Ok(())
}

/// `T_ML` of every size over chains of `1..=MAX_HOPS` links on the first two of
/// `cpus`.
pub(super) fn message_latencies<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    cpus: &[usize],
    sizes: &[usize],
) -> Result<Vec<Latency>, KernelError> {
    let max = sizes.iter().copied().max().unwrap_or(8);
    let trials = ctx.config.trials();
    let target = ctx.config.batch_target(ctx.clock);
    let clock = ctx.clock;
    let mut out = Vec::new();
    for hops in 1..=MAX_HOPS {
        let team = HostedTeam::new(&HostedSpec {
            cpus: cpus.iter().copied().take(2).collect(),
            ranks: hops + 1,
            wait_timeout: ctx.config.wait_timeout,
            cancel: Some(Arc::clone(&ctx.cancel)),
            wash_bytes: 0,
        })?;
        let eps = T::endpoints(team.control(), &super::transport_config::<T>(max));
        let nodes = chain(hops, max).map_err(|e| KernelError::Failed {
            kernel: "speedup".into(),
            reason: e.to_string(),
        })?;
        let one_way = team.run("speedup-latency", eps, nodes, |host| {
            let mut buf = vec![0x5au8; max];
            let mut per_size = Vec::with_capacity(sizes.len());
            for &size in sizes {
                let (_, samples) = measure(trials, target, clock, |reps| {
                    let start = Instant::now();
                    for _ in 0..reps {
                        round_trip(host, &mut buf[..size])?;
                    }
                    Ok::<_, RankError>(start.elapsed())
                })?;
                let best = samples.iter().copied().fold(f64::INFINITY, f64::min);
                per_size.push(best / 2.0 / 1e6);
            }
            Ok(per_size)
        });
        let one_way = match one_way {
            Err(TeamError::Cancelled { .. }) => return Err(KernelError::Interrupted),
            other => other?,
        };
        out.extend(
            sizes
                .iter()
                .zip(one_way)
                .map(|(&size, one_way_ms)| Latency {
                    size,
                    hops,
                    one_way_ms,
                }),
        );
    }
    Ok(out)
}

/// `T_ML = t_l + L H t_c + I t_i` by least squares: the intercept is `t_l` (ms),
/// the coefficient `"L H"` is `t_c` (ms/byte), `"I"` is `t_i` (ms).
pub(super) fn fit_message_latency(points: &[Latency]) -> Option<LinearFit> {
    let y: Vec<f64> = points.iter().map(|p| p.one_way_ms).collect();
    let lh: Vec<f64> = points.iter().map(|p| (p.size * p.hops) as f64).collect();
    let i: Vec<f64> = points.iter().map(|p| (p.hops - 1) as f64).collect();
    least_squares(
        &y,
        &[Regressor::free("L H", &lh), Regressor::free("I", &i)],
        true,
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic latencies from the thesis's eq. 9 (t_l = 1.1232 ms, t_c =
    /// 0.0008968 ms/byte, t_i = 0.485 ms) come back from the fit.
    #[test]
    fn the_fit_recovers_eq9() {
        let mut points = Vec::new();
        for hops in 1..=MAX_HOPS {
            for size in [64, 1024, 4096, 16_384] {
                let t = 1.1232 + (size * hops) as f64 * 0.000_896_8 + (hops - 1) as f64 * 0.485;
                points.push(Latency {
                    size,
                    hops,
                    one_way_ms: t,
                });
            }
        }
        let fit = fit_message_latency(&points).unwrap();
        let c = |n: &str| fit.coefficient(n).unwrap().value;
        assert!((c("intercept") - 1.1232).abs() < 1e-9);
        assert!((c("L H") - 0.000_896_8).abs() < 1e-12);
        assert!((c("I") - 0.485).abs() < 1e-9);
        assert!(fit.r_squared > 0.999_999);
    }

    /// A chain's routes: rank k forwards both ways, the last rank echoes.
    #[test]
    fn chains_forward_both_ways_and_echo_at_the_end() {
        let nodes = chain(3, 64).unwrap();
        assert_eq!(nodes.len(), 4);
        assert!(matches!(nodes[0], ChainNode::Source));
        for node in &nodes[1..] {
            let ChainNode::Relay(m) = node else {
                panic!("a relay")
            };
            assert!(m.routing());
        }
    }
}
