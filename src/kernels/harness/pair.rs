//! The two-rank primitives every pair kernel and probe share: which CPU
//! pair a two-rank kernel takes ([`choose_pair`]), and a transport's timed
//! ping-pong loops (`server_pingpong`, `client_pingpong`) with the
//! round trip built on them ([`round_trip_time`]): scibench's `pingpong`
//! sweeps them, the decomposition probes its lanes with them, and the
//! Criterion benches time them.
//!
//! The loops are monomorphic in the endpoint type and `#[inline(never)]`, so
//! that they are the same code for every size and every caller.

use super::timing::Timer;
use crate::control::RankError;
use crate::kernels::{KernelError, RunContext};
use crate::platform::{PairKind, Topology};
use crate::team::{RankCtx, Team};
use crate::transport::{Endpoint, Transport, TransportConfig, TransportKind};
use std::time::Duration;

/// The name [`round_trip_time`]'s team runs under (its errors carry it).
const ROUND_TRIP: &str = "round-trip";

/// The CPU pair for a two-rank kernel: the user's first two CPUs, else the two
/// CPUs of the most distant class among the allowed ones. With a single CPU and
/// `--oversubscribe`, both ranks share it.
pub fn choose_pair(ctx: &RunContext<'_>, kernel: &str) -> Result<Vec<usize>, KernelError> {
    let not_runnable = |reason: String| KernelError::NotRunnable {
        kernel: kernel.into(),
        reason,
    };
    if let Some(cpus) = &ctx.config.cpus {
        return match cpus.len() {
            0 => Err(not_runnable("no CPUs given".into())),
            1 if ctx.config.oversubscribe => Ok(cpus.clone()),
            1 => Err(not_runnable(format!(
                "it needs 2 CPUs and --cpus gave only {}; give two, or pass --oversubscribe to share one with blocking waits",
                cpus[0]
            ))),
            _ => Ok(cpus[..2].to_vec()),
        };
    }
    match ctx.topology.pairs_by_class(ctx.allowed).last() {
        Some((_, a, b)) => Ok(vec![*a, *b]),
        None if ctx.config.oversubscribe && !ctx.allowed.is_empty() => Ok(vec![ctx.allowed[0]]),
        None => Err(not_runnable(format!(
            "it needs 2 CPUs and this process may use only {:?}; pass --oversubscribe to share one with blocking waits",
            ctx.allowed
        ))),
    }
}

/// Checks that a message of `got` bytes is the `want` bytes expected.
#[inline(always)]
pub(crate) fn check_len(got: usize, want: usize) -> Result<(), RankError> {
    if got != want {
        return Err(wrong_len(got, want));
    }
    Ok(())
}

/// The error of `check_len`, kept off the timed loops.
#[cold]
#[inline(never)]
fn wrong_len(got: usize, want: usize) -> RankError {
    RankError::Failed(format!("received {got} bytes, expected {want}"))
}

/// Rank 0's side of `reps` round trips of `out` with rank 1 (each answered
/// with as many bytes into `inbuf`); returns their time.
#[inline(never)]
pub(crate) fn server_pingpong<E: Endpoint>(
    ep: &mut E,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
) -> Result<Duration, RankError> {
    let timer = Timer::start();
    for _ in 0..reps {
        ep.send(1, out)?;
        let n = ep.recv(1, inbuf)?;
        check_len(n, out.len())?;
    }
    Ok(timer.elapsed())
}

/// Rank 1's side of `reps` round trips with rank 0: each message received
/// into `inbuf` is answered with `out`.
#[inline(never)]
pub(crate) fn client_pingpong<E: Endpoint>(
    ep: &mut E,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
) -> Result<(), RankError> {
    for _ in 0..reps {
        let n = ep.recv(0, inbuf)?;
        check_len(n, out.len())?;
        ep.send(0, out)?;
    }
    Ok(())
}

/// Times `reps` ping-pong round trips of `size` bytes on a two-rank team over
/// `transport`, as rank 0 sees them (for the Criterion benches and the
/// `pingpong` kernel's paired baseline: the same timed loop as the sweep).
///
/// Each call builds fresh endpoints, so before the timer starts both ranks run
/// untimed round trips: one lap of the mailbox's ring, as
/// the sweep's calibration batches give it. Timed cold, the first lap's header
/// and payload lines come from the allocating thread or from memory, a miss per
/// slot and direction; on a 2-vCPU VM in its slow state (a line transfer of about
/// 220 ns) that put the 8-byte mailbox 14 to 42 % over the two-flag baseline in
/// 1 ms batches, against 4 to 14 % warm in the same run.
pub fn round_trip_time(
    team: &Team,
    transport: TransportKind,
    size: usize,
    reps: u64,
) -> Result<Duration, KernelError> {
    fn body<E: Endpoint>(
        ctx: &RankCtx<'_>,
        ep: &mut E,
        size: usize,
        warm: u64,
        reps: u64,
    ) -> Result<Duration, RankError> {
        let out = vec![7u8; size];
        let mut inbuf = vec![0u8; size.max(16)];
        if ctx.rank == 0 {
            server_pingpong(ep, &out, &mut inbuf, warm)?;
            server_pingpong(ep, &out, &mut inbuf, reps)
        } else {
            client_pingpong(ep, &out, &mut inbuf, warm + reps).map(|_| Duration::ZERO)
        }
    }
    fn run<T: Transport>(
        team: &Team,
        config: &TransportConfig,
        size: usize,
        reps: u64,
    ) -> Result<Vec<Duration>, crate::team::TeamError> {
        let warm = warm_up_round_trips(config, size);
        team.run(ROUND_TRIP, T::endpoints(team.control(), config), |c, e| {
            body(c, e, size, warm, reps)
        })
    }
    let config = TransportConfig::for_messages(size.max(16));
    let times = crate::with_transport!(transport, run(team, &config, size, reps))?;
    Ok(times[0])
}

/// Round trips of `size` bytes that write every slot of a ring of `config`'s
/// shape at least once in each direction: `slots` divided by the slots one
/// message fills, at least one.
fn warm_up_round_trips(config: &TransportConfig, size: usize) -> u64 {
    let per_message = size.div_ceil(config.slot_bytes).max(1);
    config.slots.div_ceil(per_message).max(1) as u64
}

/// The CPU pairs c2c measures among `cpus`: every pair, or `per_kind` of each
/// kind spread over the kind's pairs.
pub fn c2c_pairs(
    topology: &Topology,
    cpus: &[usize],
    per_kind: Option<usize>,
) -> Vec<(Option<PairKind>, usize, usize)> {
    let known: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|&c| topology.cpu(c).is_some())
        .collect();
    if per_kind.is_none() || known.len() < cpus.len() {
        // Every pair, in the order given (CPUs the topology does not know
        // have no kind to sample by).
        return cpus
            .iter()
            .enumerate()
            .flat_map(|(i, &a)| cpus[i + 1..].iter().map(move |&b| (a, b)))
            .map(|(a, b)| (topology.pair_kind(a, b), a, b))
            .collect();
    }
    topology
        .representative_pairs(cpus, per_kind)
        .into_iter()
        .map(|(k, a, b)| (Some(k), a, b))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With the default ring of 64 slots of 2 KiB: an 8-byte message fills one
    /// slot, so a lap is 64 round trips; 4 KiB fills two (32); 64 KiB fills 32
    /// (2); 1 MiB more than the ring (1).
    #[test]
    fn a_warm_up_laps_the_ring_once() {
        let c = TransportConfig::default();
        assert_eq!(warm_up_round_trips(&c, 8), 64);
        assert_eq!(warm_up_round_trips(&c, 2048), 64);
        assert_eq!(warm_up_round_trips(&c, 2049), 32);
        assert_eq!(warm_up_round_trips(&c, 4096), 32);
        assert_eq!(warm_up_round_trips(&c, 64 * 1024), 2);
        assert_eq!(warm_up_round_trips(&c, 1 << 20), 1);
    }
}
