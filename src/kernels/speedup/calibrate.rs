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
//! over rounds of the mean over a batch, every chain and size timed once a
//! round ([`message_latencies`]). Every link is one copy into the
//! transport and one copy out of it, so the bytes cost `L H t_c`; each
//! intermediate node adds its poll, receive and send, `t_i`. The three are fitted
//! by least squares relative to the times (weights `1 / T_ML^2`,
//! [`fit_message_latency`]) over the block sizes of the benchmark and `H = 1..4`.
//!
//! # Where the start-up is paid: sender and destination
//! The thesis's simulation (the SLAM listing of Appendix B, see
//! [`crate::model::simulator`]) does not charge one `t_l` at the sender: it charges
//! `MSG_INIT` on the sender's processor (`ACT,MSG_INIT`, listing lines 302-303, with
//! the node held from `AWAIT` to `FREE`, lines 275-308) and `OVERHEAD` on the
//! destination's (`PREEMPT`, `ACT,OVERHEAD`, lines 321-322), 1.667 : 0.6158 ms. Here
//! the split is measured, as Krumme & Greenfield split a message's cost: the
//! sender's part is what rank 0's send call takes (their `F + S`, the decomposition
//! kernel's `send_call_ns`, timed the same way: the call and its closing fence
//! ([`crate::kernels::harness::calls::system_return`]) between two clock reads, the
//! median over [`SEND_CALLS`] calls less the clock's read overhead), on the one-link
//! chain at every size; its intercept over `L` is the sender's share of `t_l`
//! (`tl_send_ms`). The destination's share (their `R + U`) is the rest,
//! `tl_receive_ms = t_l - tl_send_ms`, not timed by itself, so it also holds the
//! poll that finds the message; its standard error combines both fits'. Where the
//! split cannot be measured (no send-call times, fewer than three sizes, or a send
//! part outside `[0, t_l]` beyond the errors) `t_l` is split in the listing's
//! ratio `MSG_INIT : OVERHEAD` and a warning says so.
//!
//! # The simulation
//! The runs use the hypercube with these `t_l`, `t_c`, `t_i` (the ranks here all
//! share memory, one hop apart, but the simulator routes e-cube as the thesis's
//! machine did) in the listing's model: `tl_send_ms` as `MSG_INIT` on the sender
//! with the node held ([`SendHold::Held`](crate::model::simulator::SendHold)),
//! `tl_receive_ms` as `OVERHEAD` on the destination's processor
//! ([`ReceiveAt::Destination`](crate::model::simulator::ReceiveAt)), transmit
//! queues ranked by the hop's dimension
//! ([`ChannelOrder::Dimension`](crate::model::simulator::ChannelOrder)). Measured:
//! `t_l`, `t_c`, `t_i`, the send call and eq. 10's term; assumed: that the rest of
//! `t_l` is the destination's, and the listing's placement of each cost. Node totals
//! have the spread of the uniprocessor runs divided by `N`. Eq. 10: the exchange
//! probes every missing source once a pass, so the last block is found at most one
//! pass of `N - 1` empty probes late, `C = (N - 1) p` for `N > 2`, `p` rank 0's
//! `probe` of an empty link ([`empty_probe_ms`]; a few ns, not the thesis's system
//! calls). The comparison is the thesis's paired t test at alpha = 0.1 (Appendix D)
//! on the mean benchmark and simulated times of each (load, N).

use std::sync::Arc;

use crate::control::RankError;
use crate::kernels::harness::calls::{Samples, system_return};
use crate::kernels::harness::timing::{RoundBatch, Timer};
use crate::kernels::{KernelError, RunContext};
use crate::model::regression::{LinearFit, Regressor, least_squares, weighted_least_squares};
use crate::team::TeamError;
use crate::team::hosted::{Host, HostedSpec, HostedTeam, NodeCtx, VirtualNode};
use crate::transport::mailroom::Mailroom;
use crate::transport::{Endpoint, Transport, TransportConfig};

/// The longest chain, links.
pub(crate) const MAX_HOPS: usize = 4;
/// System buffers per forwarding node (one message is in flight at a time).
const BUFFERS: usize = 2;
/// Send calls timed per size for the start-up split.
pub(super) const SEND_CALLS: u64 = 256;
/// Probes of an empty link timed per batch for eq. 10's checking term.
pub(super) const EMPTY_PROBES: u64 = 4096;
/// Batches of [`EMPTY_PROBES`]; the median batch is kept.
pub(super) const PROBE_BATCHES: usize = 31;

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
    await_echo(host, buf)
}

/// Rank 0 waits for the message to come back.
#[inline(always)]
fn await_echo<E: Endpoint>(
    host: &mut Host<'_, E, ChainNode>,
    buf: &mut [u8],
) -> Result<(), RankError> {
    host.wait_until(1, |_, ep| ep.try_recv(1, buf))?;
    std::hint::black_box(&mut *buf);
    Ok(())
}

/// Rank 0's send call at one size, timed alone: the sender's part of a message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SendCall {
    /// Message length `L`, bytes.
    pub(super) size: usize,
    /// Median of [`SEND_CALLS`] calls less the clock's read overhead, ms.
    pub(super) call_ms: f64,
}

/// [`SEND_CALLS`] round trips of every size with the send call timed as the
/// decomposition kernel times its write call: the call and its fence between two
/// clock reads; each call's median less `clock_ns`, ms.
#[inline(never)]
fn send_calls<E: Endpoint>(
    host: &mut Host<'_, E, ChainNode>,
    buf: &mut [u8],
    sizes: &[usize],
    clock_ns: f64,
) -> Result<Vec<f64>, RankError> {
    let mut out = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let mut calls = Samples::new(SEND_CALLS);
        for _ in 0..SEND_CALLS {
            let call = Timer::start();
            host.parts().1.send(1, &buf[..size])?;
            system_return();
            let took = call.elapsed();
            await_echo(host, &mut buf[..size])?;
            calls.push(took.as_nanos() as f64);
        }
        out.push((calls.median() - clock_ns) / 1e6);
    }
    Ok(out)
}

/// Rank 0's `probe` of rank 1 with nothing in flight (the echo of the last
/// round trip taken), [`EMPTY_PROBES`] a batch between two clock reads: the
/// median batch less the clock's read overhead, per probe, ms, and the
/// percentile-bootstrap 95 % interval of that median over the batches. The
/// check of Lamanna's step 9 that finds no message.
#[inline(never)]
fn empty_probe_ms<E: Endpoint>(
    host: &mut Host<'_, E, ChainNode>,
    clock_ns: f64,
) -> (f64, Option<[f64; 2]>) {
    let ep = host.parts().1;
    let mut batches = Vec::with_capacity(PROBE_BATCHES);
    for _ in 0..PROBE_BATCHES {
        let batch = Timer::start();
        for _ in 0..EMPTY_PROBES {
            std::hint::black_box(ep.probe(std::hint::black_box(1)));
        }
        batches.push(batch.elapsed().as_nanos() as f64);
    }
    let per_probe = |batch_ns: f64| ((batch_ns - clock_ns) / EMPTY_PROBES as f64).max(0.0) / 1e6;
    let per: Vec<f64> = batches.iter().map(|&b| per_probe(b)).collect();
    let median = crate::model::interval::median_in_place(&mut per.clone()).unwrap_or(f64::NAN);
    (median, crate::model::interval::median_bootstrap(&per))
}

/// Eq. 10's term for `nodes` ranks from the cost `probe_ms` of a probe that
/// finds nothing: the exchange's loop probes every source still missing once a
/// pass, so the last block is found at most one pass of `N - 1` empty probes
/// after it lands, `C = (N - 1) p`, as the simulator's `(c_0, c_1) = (-p, p)`.
pub(super) fn checking_calibration(probe_ms: f64) -> (f64, f64) {
    (-probe_ms, probe_ms)
}

/// The per-node message cost eq. 10's term is set against: `N - 1` blocks of
/// `bytes` each, `t_l + L t_c` apiece, ms.
pub(super) fn message_cost_ms(nodes: usize, bytes: usize, tl_ms: f64, tc_ms_per_byte: f64) -> f64 {
    nodes.saturating_sub(1) as f64 * (tl_ms + bytes as f64 * tc_ms_per_byte)
}

/// The line that says what eq. 10's term is here: the empty probe's cost and
/// `C = (N - 1) p` at the plan's largest `N` against that node's message cost
/// (`N - 1` blocks, [`message_cost_ms`]); nothing where the probe was not timed.
pub(super) fn checking_note(
    chain: &ChainTimes,
    plan: &super::SpeedupPlan,
    tl_ms: f64,
    tc_ms_per_byte: f64,
) -> Option<String> {
    let p = chain.empty_probe_ms?;
    let n = plan.processors.iter().copied().max().filter(|&n| n > 2)?;
    let bytes = plan.order / n * plan.order * std::mem::size_of::<f64>();
    let c = (n - 1) as f64 * p;
    let messages = message_cost_ms(n, bytes, tl_ms, tc_ms_per_byte);
    Some(format!(
        "eq. 10: a probe that finds no message costs {:.1} ns; the checking term C = (N - 1) p is {:.1} ns at N = {n}, {:.2} % of the node's {} blocks' t_l + L t_c ({:.3e} ms); the simulation adds it for N > 2",
        p * 1e6,
        c * 1e6,
        100.0 * c / messages,
        n - 1,
        messages
    ))
}

/// What the chains measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ChainTimes {
    /// `T_ML` of every size and chain length.
    pub(super) latencies: Vec<Latency>,
    /// Rank 0's send call of every size, on the one-link chain.
    pub(super) send_calls: Vec<SendCall>,
    /// Rank 0's probe of an empty link, ms ([`empty_probe_ms`]).
    pub(super) empty_probe_ms: Option<f64>,
    /// Its 95 % interval, ms (bootstrap of the median over the batches).
    pub(super) empty_probe_ci95_ms: Option<[f64; 2]>,
}

/// `T_ML` of every size over chains of `1..=MAX_HOPS` links on the first two of
/// `cpus`, and rank 0's send call of every size on the one-link chain.
///
/// The chains are timed in rounds, one batch of every size on every chain a
/// round (each chain's batch size calibrated in the first), and each point
/// keeps its fastest batch over the rounds: timed chain after chain, a change
/// of the machine's state that lasted a few hundred milliseconds fell on the
/// long chains alone (on a VM, the longer chains' times several times too
/// long), and the fit gave a negative `t_l`.
pub(super) fn message_latencies<T: Transport + 'static>(
    ctx: &RunContext<'_>,
    cpus: &[usize],
    sizes: &[usize],
) -> Result<ChainTimes, KernelError> {
    let max = sizes.iter().copied().max().unwrap_or(8);
    let rounds = ctx.config.trials();
    let target = ctx.config.batch_target(ctx.clock);
    let clock = ctx.clock;
    // Per chain and size: the batch's repetitions and the fastest round
    // trip so far, ns.
    let mut points = vec![vec![RoundBatch::default(); sizes.len()]; MAX_HOPS];
    let mut best = vec![vec![f64::INFINITY; sizes.len()]; MAX_HOPS];
    let mut calls = Vec::new();
    let mut probe = None;
    for round in 0..rounds {
        for hops in 1..=MAX_HOPS {
            let team = HostedTeam::new(&HostedSpec {
                cpus: cpus.iter().copied().take(2).collect(),
                ranks: hops + 1,
                wait_timeout: ctx.config.wait_timeout,
                cancel: Some(Arc::clone(&ctx.cancel)),
                wash_bytes: 0,
            })?;
            let eps = T::endpoints(team.control(), &TransportConfig::buffered(max));
            let nodes = chain(hops, max).map_err(|e| KernelError::Failed {
                kernel: "speedup".into(),
                reason: e.to_string(),
            })?;
            let (points, best) = (&mut points[hops - 1], &mut best[hops - 1]);
            let timed = team.run("speedup-latency", eps, nodes, |host| {
                let mut buf = vec![0x5au8; max];
                for (i, &size) in sizes.iter().enumerate() {
                    let mut batch = |n: u64| {
                        let start = Timer::start();
                        for _ in 0..n {
                            round_trip(host, &mut buf[..size])?;
                        }
                        Ok::<_, RankError>(start.elapsed())
                    };
                    best[i] = best[i].min(points[i].time(target, clock, &mut batch)?);
                }
                if hops == 1 && round == 0 {
                    let calls = send_calls(host, &mut buf, sizes, clock.read_overhead_ns)?;
                    Ok((calls, Some(empty_probe_ms(host, clock.read_overhead_ns))))
                } else {
                    Ok((Vec::new(), None))
                }
            });
            match timed {
                Err(TeamError::Cancelled { .. }) => return Err(KernelError::Interrupted),
                Ok((c, p)) if !c.is_empty() => (calls, probe) = (c, p),
                other => {
                    other?;
                }
            }
        }
    }
    let mut out = ChainTimes {
        empty_probe_ms: probe.map(|p| p.0),
        empty_probe_ci95_ms: probe.and_then(|p| p.1),
        ..ChainTimes::default()
    };
    for (h, best) in best.iter().enumerate() {
        out.latencies
            .extend(sizes.iter().zip(best).map(|(&size, &ns)| Latency {
                size,
                hops: h + 1,
                one_way_ms: crate::kernels::convert::one_way_ns(ns) / 1e6,
            }));
    }
    out.send_calls.extend(
        sizes
            .iter()
            .zip(calls)
            .map(|(&size, call_ms)| SendCall { size, call_ms }),
    );
    Ok(out)
}

/// `T_ML = t_l + L H t_c + I t_i` by least squares relative to the times
/// (weights `1 / T_ML^2`; by ordinary least squares where a time is not
/// above zero): the intercept is `t_l` (ms), the coefficient `"L H"` is `t_c`
/// (ms/byte), `"I"` is `t_i` (ms).
///
/// The times run from about 100 ns (64 bytes, one link) to 8 us (16 KiB,
/// four), and spread by a few per cent of themselves, so by ordinary least
/// squares the long messages' scatter set the intercept and `I`'s
/// coefficient; fitted relative to the times, the repetitions of one run on a
/// VM agree on `t_l` and `t_i` about three times more closely (CVs near 10 %
/// where they were 30 % and more).
pub(super) fn fit_message_latency(points: &[Latency]) -> Option<LinearFit> {
    let y: Vec<f64> = points.iter().map(|p| p.one_way_ms).collect();
    let lh: Vec<f64> = points.iter().map(|p| (p.size * p.hops) as f64).collect();
    let i: Vec<f64> = points.iter().map(|p| (p.hops - 1) as f64).collect();
    let columns = [Regressor::free("L H", &lh), Regressor::free("I", &i)];
    if y.iter().all(|&t| t > 0.0) {
        let weights: Vec<f64> = y.iter().map(|t| 1.0 / (t * t)).collect();
        weighted_least_squares(&y, &columns, true, &weights).ok()
    } else {
        least_squares(&y, &columns, true).ok()
    }
}

/// `t_l` split between the sender's processor and the destination's, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct StartupSplit {
    /// The sender's part (`MSG_INIT` in the simulator).
    pub(super) send_ms: f64,
    /// Its standard error.
    pub(super) send_se_ms: f64,
    /// The destination's part (`OVERHEAD` in the simulator).
    pub(super) receive_ms: f64,
    /// Its standard error.
    pub(super) receive_se_ms: f64,
    /// Measured (else the listing's ratio).
    pub(super) measured: bool,
}

impl StartupSplit {
    /// `tl_ms` (standard error `tl_se_ms`) in the listing's ratio `MSG_INIT :
    /// OVERHEAD` (1.667 : 0.6158).
    pub(super) fn listing_ratio(tl_ms: f64, tl_se_ms: f64) -> StartupSplit {
        use crate::model::simulator::{LISTING_MSG_INIT_MS, LISTING_OVERHEAD_MS};
        let send = LISTING_MSG_INIT_MS / (LISTING_MSG_INIT_MS + LISTING_OVERHEAD_MS);
        StartupSplit {
            send_ms: tl_ms * send,
            send_se_ms: tl_se_ms * send,
            receive_ms: tl_ms * (1.0 - send),
            receive_se_ms: tl_se_ms * (1.0 - send),
            measured: false,
        }
    }
}

/// The start-up `tl_ms` (standard error `tl_se_ms`, both from the `T_ML` fit)
/// split by the send calls: the sender's part is the intercept of `call_ms = s_0 +
/// s_1 L`, clamped to `[0, t_l]`, the destination's the rest, with the standard
/// error of both (the two fits are of separate measurements). Fails, saying why,
/// where the calls cannot split `t_l`.
pub(super) fn split_startup(
    tl_ms: f64,
    tl_se_ms: f64,
    calls: &[SendCall],
) -> Result<StartupSplit, String> {
    let y: Vec<f64> = calls.iter().map(|c| c.call_ms).collect();
    let l: Vec<f64> = calls.iter().map(|c| c.size as f64).collect();
    if calls.iter().any(|c| !c.call_ms.is_finite()) {
        return Err("a send call was not timed".into());
    }
    let fit = least_squares(&y, &[Regressor::free("L", &l)], true)
        .map_err(|e| format!("no send-call fit over {} sizes: {e}", calls.len()))?;
    let (s0, se) = fit
        .coefficient(crate::model::regression::INTERCEPT)
        .map(|c| (c.value, c.standard_error))
        .ok_or("the send-call fit has no intercept")?;
    let error = tl_se_ms.hypot(se);
    if s0 < -se || s0 > tl_ms + error || !error.is_finite() {
        return Err(format!(
            "the send call's start-up {s0:.3e} +/- {se:.1e} ms is outside [0, t_l = {tl_ms:.3e} +/- {tl_se_ms:.1e} ms]"
        ));
    }
    let send_ms = s0.clamp(0.0, tl_ms.max(0.0));
    Ok(StartupSplit {
        send_ms,
        send_se_ms: se,
        receive_ms: tl_ms - send_ms,
        receive_se_ms: error,
        measured: true,
    })
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

    /// Send calls of 3 + 0.0001 L µs against t_l = 10 +/- 1 µs: 3 µs at the
    /// sender, 7 at the destination, the receive part's error that of t_l (the
    /// synthetic calls fit exactly).
    #[test]
    fn the_send_call_intercept_splits_the_start_up() {
        let calls: Vec<SendCall> = [64, 4096, 16_384, 65_536]
            .iter()
            .map(|&size| SendCall {
                size,
                call_ms: 0.003 + size as f64 * 1e-7,
            })
            .collect();
        let s = split_startup(0.010, 0.001, &calls).unwrap();
        assert!(s.measured);
        assert!((s.send_ms - 0.003).abs() < 1e-12, "{s:?}");
        assert!((s.receive_ms - 0.007).abs() < 1e-12, "{s:?}");
        assert!(s.send_se_ms < 1e-12, "{s:?}");
        assert!((s.receive_se_ms - 0.001).abs() < 1e-9, "{s:?}");
        // A send call within t_l's error above it: all of t_l at the sender.
        let s = split_startup(0.0025, 0.001, &calls).unwrap();
        assert_eq!((s.send_ms, s.receive_ms), (0.0025, 0.0));
    }

    /// A send call beyond t_l, two sizes only, or an untimed call: no split.
    #[test]
    fn calls_that_cannot_split_the_start_up_are_refused() {
        let call = |size, call_ms| SendCall { size, call_ms };
        let beyond = [call(64, 0.020), call(4096, 0.021), call(8192, 0.022)];
        let e = split_startup(0.010, 0.001, &beyond).unwrap_err();
        assert!(e.contains("outside"), "{e}");
        // Two sizes leave the fit no degree of freedom for its errors.
        let two = [call(64, 0.003), call(4096, 0.004)];
        assert!(split_startup(0.010, 0.001, &two).is_err());
        assert!(split_startup(0.010, 0.001, &[call(64, f64::NAN), call(128, 0.003)]).is_err());
    }

    /// The listing's ratio: 1.667 / (1.667 + 0.6158445) = 0.73023 of t_l at the
    /// sender; the listing's own 2.2828 ms gives back its two costs.
    #[test]
    fn the_fallback_is_the_listing_ratio() {
        let s = StartupSplit::listing_ratio(1.0, 0.1);
        assert!(!s.measured);
        assert!((s.send_ms - 0.73023).abs() < 1e-5, "{s:?}");
        assert!((s.receive_ms - 0.26977).abs() < 1e-5, "{s:?}");
        assert!((s.send_se_ms - 0.073023).abs() < 1e-6, "{s:?}");
        let s = StartupSplit::listing_ratio(2.2828445, 0.0);
        assert!((s.send_ms - 1.667).abs() < 1e-9, "{s:?}");
        assert!((s.receive_ms - 0.6158445).abs() < 1e-9, "{s:?}");
    }

    /// Eq. 10 here: a 20 ns empty probe gives C = 7 x 20 = 140 ns at N = 8 in the
    /// simulator's (c_0, c_1) form, nothing at N = 2 (its `USERF(2)`); the thesis's
    /// own C = 5 + 7.5 N ms is 65 ms at N = 8 against 7 x (1.1232 + 1000 x
    /// 0.0008968) = 14.1 ms of eq. 9 message costs for 1000-byte blocks.
    #[test]
    fn the_checking_term_is_one_pass_of_empty_probes() {
        use crate::model::simulator::{SimConfig, simulate};
        let (c0, c1) = checking_calibration(20e-6);
        assert!((c0 + 8.0 * c1 - 140e-6).abs() < 1e-15);
        let mut config = SimConfig::lamanna_validation(100.0, 8, 1);
        config.calibration = Some((c0, c1));
        assert!((simulate(&config).unwrap().calibration_ms - 140e-6).abs() < 1e-15);
        config.nodes = 2;
        assert_eq!(simulate(&config).unwrap().calibration_ms, 0.0);
        let thesis = message_cost_ms(8, 1000, 1.1232, 0.000_896_8);
        assert!((thesis - 14.1401).abs() < 1e-4, "{thesis}");
        assert!((5.0 + 7.5 * 8.0) / thesis > 4.0);
        assert_eq!(message_cost_ms(1, 1000, 1.0, 1.0), 0.0);
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
