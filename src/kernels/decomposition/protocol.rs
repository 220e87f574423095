//! What the kernels of this method share: the CPU pair, the scripted virtual nodes
//! every rank but rank 0 runs, rank 0's calls, and small timing helpers.
//!
//! # The emulated node
//! Every rank is a hosted virtual node ([`crate::team::hosted`]) with a
//! [`Mailroom`]: the system buffers of a node operating system between its program
//! and the transport. So, as on the NCUBE:
//! - a write call ([`write`]) copies the message into a system buffer (`F`) and
//!   hands the buffer to the transport at once if it has room (the NCUBE started
//!   its DMA in the call; here the transport's copy is done by the CPU);
//! - whenever a node is polled its mailroom takes every arrived message into a
//!   system buffer (`R`: the copy out of the transport) and forwards what a route
//!   says to the next node (`R + S`, and no `F`, `A`, `U`: store and forward by the
//!   system, not the program);
//! - a read call ([`read`]) waits until the message is in a system buffer (`A`,
//!   the call itself, what can run before it arrives) and copies it out (`U`);
//! - every system action ends with a full fence ([`system_return`]), so that a
//!   copy's buffered stores are its own cost and not the next copy's.
//!
//! Ranks other than 0 run a script of [`Op`]s in the same order as rank 0's
//! experiments (no commands travel: each side knows the plan), one op or one chunk
//! of `Q` per poll. `Q` always runs in chunks of about [`CHUNK`], and between
//! chunks the worker polls the nodes it hosts: a message reaching a node while its
//! CPU computes is handled within a chunk and takes its time from that
//! computation, as the NCUBE's interrupt routines took it from `Q`.

use super::super::{KernelError, RunContext};
use super::background::Background;
use crate::control::RankError;
pub(crate) use crate::kernels::harness::calls::{Samples, system_return};
use crate::kernels::harness::timing::Timer;
use crate::platform::{LineAligned, Topology};
use crate::team::TeamError;
use crate::team::hosted::{Host, HostedSpec, HostedTeam, NodeCtx, VirtualNode};
use crate::transport::Endpoint;
use crate::transport::mailroom::Mailroom;
use std::sync::Arc;
use std::time::Duration;

/// Length of one chunk of `Q` between two polls (the emulated interrupt latency).
pub(super) const CHUNK: Duration = Duration::from_micros(2);

/// System buffers per node.
pub(super) const BUFFERS: usize = 8;

/// The two CPUs the hosted nodes are dealt onto: the user's first two, else the
/// most distant pair among the allowed CPUs; one CPU only with `--oversubscribe`
/// (hops then do not cross CPUs, and the result says so).
pub(super) fn cpu_pair(ctx: &RunContext<'_>, kernel: &str) -> Result<Vec<usize>, KernelError> {
    crate::kernels::harness::pair::choose_pair(ctx, kernel)
}

/// A hosted team of `ranks` virtual nodes on `cpus`, cancelled with the run,
/// whose workers read `wash_bytes` when rank 0 washes the caches.
pub(super) fn hosted_team(
    ctx: &RunContext<'_>,
    cpus: &[usize],
    ranks: usize,
    wash_bytes: usize,
) -> Result<HostedTeam, KernelError> {
    Ok(HostedTeam::new(&HostedSpec {
        cpus: cpus.to_vec(),
        ranks,
        wait_timeout: ctx.config.wait_timeout,
        cancel: Some(Arc::clone(&ctx.cancel)),
        wash_bytes,
    })?)
}

/// L1 data cache assumed where the machine does not report one, bytes.
const L1D_UNKNOWN: u64 = 64 * 1024;

/// What each CPU reads to wash its private caches
/// ([`crate::team::hosted::Host::wash_caches`]), bytes: twice the largest L1 data
/// cache of `cpus` ([`L1D_UNKNOWN`] where none is reported). That replaces every
/// line the L1 held, whatever its replacement policy, and is a small part of any
/// L2, so what the nodes touched stays close by.
pub(super) fn wash_bytes(topology: &Topology, cpus: &[usize]) -> usize {
    let l1d = cache_sizes(topology, cpus, 1).max().unwrap_or(L1D_UNKNOWN);
    usize::try_from(2 * l1d).unwrap_or(usize::MAX)
}

/// The sizes of the data (or unified) caches of `level` that `cpus` use, bytes.
pub(super) fn cache_sizes<'t>(
    topology: &'t Topology,
    cpus: &'t [usize],
    level: u8,
) -> impl Iterator<Item = u64> + 't {
    cpus.iter()
        .flat_map(|&cpu| topology.data_cache_sizes(cpu))
        .filter(move |&(l, _)| l == level)
        .map(|(_, size)| size)
}

/// A team error as a kernel error: a cancelled run is an interrupted one.
pub(super) fn interrupted(e: TeamError) -> KernelError {
    match e {
        TeamError::Cancelled { .. } => KernelError::Interrupted,
        other => KernelError::Team(other),
    }
}

/// What rank 0's program needs of the nodes around it: its own node and
/// endpoint, the nodes its processor hosts besides it, the deadline, and the
/// wash of every processor's caches. Two implementations: the hosted team's
/// [`Host`] (virtual nodes on threads) and, with `--features mpi`, the nodes of
/// MPI process 0 (`parameters::over_mpi`), so that the experiments are the
/// same code whatever carries the messages.
pub(super) trait Nodes {
    /// The endpoint type of every node.
    type Ep: Endpoint;
    /// Whether one library moves every hosted node's messages in any node's
    /// call (MPI: each call of a process progresses all of its traffic), so
    /// that what a message costs rank 0's processor can land in the poll of
    /// another node it hosts: [`q_sys`] then times every poll of the
    /// processor ([`SysTime::lost_ns`]).
    const PROGRESS_SHARED: bool = false;
    /// Rank 0's node and endpoint.
    fn parts(&mut self) -> (&mut Node, &mut Self::Ep);
    /// Polls rank 0's own node once.
    fn poll_self(&mut self) -> Result<bool, RankError>;
    /// Polls every node hosted beside rank 0, once each (an error when the run
    /// was stopped or cancelled).
    fn poll_others(&mut self) -> Result<bool, RankError>;
    /// [`Nodes::poll_self`] then [`Nodes::poll_others`].
    #[inline(always)]
    fn poll_all(&mut self) -> Result<bool, RankError> {
        let mine = self.poll_self()?;
        Ok(self.poll_others()? | mine)
    }
    /// What a timed `Q` of tests 2 to 5 ([`q_sys`]) polls after rank 0's
    /// own node: the nodes hosted beside it ([`Nodes::poll_others`]), which
    /// in those tests have nothing in flight; where progress is shared, only
    /// the run's stop (their polls are MPI calls whose time is noise in the
    /// processor's polls, not work of rank 0's).
    #[inline(always)]
    fn poll_others_in_timed_q(&mut self) -> Result<bool, RankError> {
        self.poll_others()
    }
    /// Polls everything hosted until `ready` gives a value, with the run's
    /// deadline (the error names `peer`).
    fn wait_until<T>(
        &mut self,
        peer: usize,
        ready: impl FnMut(&mut Node, &mut Self::Ep) -> Result<Option<T>, RankError>,
    ) -> Result<T, RankError>;
    /// Has every processor read its wash buffer, and returns when all have.
    fn wash_caches(&mut self) -> Result<(), RankError>;
}

impl<E: Endpoint> Nodes for Host<'_, E, Node> {
    type Ep = E;

    #[inline(always)]
    fn parts(&mut self) -> (&mut Node, &mut E) {
        Host::parts(self)
    }

    #[inline(always)]
    fn poll_self(&mut self) -> Result<bool, RankError> {
        Host::poll_self(self)
    }

    #[inline(always)]
    fn poll_others(&mut self) -> Result<bool, RankError> {
        Host::poll_others(self)
    }

    #[inline(always)]
    fn poll_all(&mut self) -> Result<bool, RankError> {
        Host::poll_all(self)
    }

    #[inline]
    fn wait_until<T>(
        &mut self,
        peer: usize,
        ready: impl FnMut(&mut Node, &mut E) -> Result<Option<T>, RankError>,
    ) -> Result<T, RankError> {
        Host::wait_until(self, peer, ready)
    }

    fn wash_caches(&mut self) -> Result<(), RankError> {
        Host::wash_caches(self)
    }
}

/// One step of a node's script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// Read the next message from a rank into the user buffer (waits).
    Read(usize),
    /// Write the user buffer's message (the last one read) to a rank.
    Write(usize),
    /// Chunks of `Q`, one per poll.
    Compute(u64),
    /// Forward the next `count` messages from `from` to `to`.
    Route {
        /// Source.
        from: usize,
        /// Destination.
        to: usize,
        /// Messages.
        count: u64,
    },
    /// Wait until every route has forwarded its messages.
    AwaitRoutes,
    /// Section 5.2's source: keep `window` messages of `len` bytes in flight to
    /// rank 0, one more for every acknowledgement from `sink`, until rank 0 sends
    /// a stop; then an end marker (1 byte), and wait for its acknowledgement.
    Source {
        /// The sink acknowledging.
        sink: usize,
        /// Messages in flight.
        window: u32,
        /// Message length.
        len: usize,
    },
    /// Section 5.2's sink: read from rank 0 and acknowledge to `source` (4 bytes,
    /// 1 for the end marker) until the end marker, then tell rank 0 (1 byte).
    Sink {
        /// The source to acknowledge.
        source: usize,
    },
}

/// Ops repeated `times` times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Block {
    /// The ops, in order.
    pub(super) ops: Vec<Op>,
    /// Repetitions of the whole list.
    pub(super) times: u64,
}

impl Block {
    /// `ops` once.
    pub(super) fn once(ops: Vec<Op>) -> Block {
        Block { ops, times: 1 }
    }
}

/// Where a source stands.
#[derive(Debug, Clone, Copy, Default)]
struct Stream {
    in_flight: u32,
    stopping: bool,
    ended: bool,
}

/// A scripted node: rank 0's (no script: its mailroom only) or another rank's.
#[derive(Debug)]
pub(super) struct Node {
    /// The node's system buffers.
    pub(super) room: Mailroom,
    buf: LineAligned<u8>,
    own: LineAligned<u8>,
    len: usize,
    script: Vec<Block>,
    block: usize,
    pc: usize,
    done: u64,
    chunks_left: u64,
    stream: Stream,
    bg: Background,
    /// Rank 0, or a rank with a script: others are never given anything to do
    /// and cost their worker nothing when polled.
    active: bool,
}

impl Node {
    /// A node for `rank` of `size` running `script`, messages up to `max` bytes.
    pub(super) fn new(
        rank: usize,
        size: usize,
        max: usize,
        bg: Background,
        script: Vec<Block>,
    ) -> Node {
        let max = max.max(32);
        Node {
            room: Mailroom::new(rank, size, BUFFERS, max),
            buf: LineAligned::filled(max, 0),
            own: LineAligned::from_fn(max, |i| (i % 253) as u8),
            len: 0,
            active: rank == 0 || !script.is_empty(),
            script,
            block: 0,
            pc: 0,
            done: 0,
            chunks_left: 0,
            stream: Stream::default(),
            bg,
        }
    }

    /// Runs the script until an op must wait or a chunk of `Q` ran.
    #[inline]
    fn step<E: Endpoint>(&mut self, ep: &mut E) -> Result<bool, RankError> {
        let mut work = false;
        loop {
            let Some(block) = self.script.get(self.block) else {
                return Ok(work);
            };
            if self.pc == block.ops.len() || block.times == 0 {
                self.pc = 0;
                self.done += 1;
                if self.done >= block.times {
                    self.block += 1;
                    self.done = 0;
                }
                continue;
            }
            match block.ops[self.pc] {
                Op::Read(from) => match self.room.take(from, &mut self.buf)? {
                    Some(n) => self.len = n,
                    None => return Ok(work),
                },
                Op::Write(to) => {
                    self.room.post(to, &self.buf[..self.len])?;
                    self.room.flush(ep)?;
                }
                Op::Compute(chunks) => {
                    if chunks > 0 {
                        if self.chunks_left == 0 {
                            self.chunks_left = chunks;
                        }
                        self.bg.chunk();
                        self.chunks_left -= 1;
                        if self.chunks_left == 0 {
                            self.pc += 1;
                        }
                        return Ok(true);
                    }
                }
                Op::Route { from, to, count } => self.room.route(from, to, count)?,
                Op::AwaitRoutes => {
                    if self.room.routing() {
                        return Ok(work);
                    }
                }
                Op::Source { sink, window, len } => {
                    if !self.source(ep, sink, window, len)? {
                        return Ok(work);
                    }
                }
                Op::Sink { source } => {
                    if !self.sink(ep, source)? {
                        return Ok(work);
                    }
                }
            }
            self.pc += 1;
            work = true;
        }
    }

    /// One poll of a source; `true` when its stream has ended.
    fn source<E: Endpoint>(
        &mut self,
        ep: &mut E,
        sink: usize,
        window: u32,
        len: usize,
    ) -> Result<bool, RankError> {
        let s = &mut self.stream;
        // Once stopping, what comes from rank 0 is the next run's go: left for it.
        if !s.stopping && self.room.take(0, &mut self.buf)?.is_some() {
            s.stopping = true;
        }
        while self.room.take(sink, &mut self.buf)?.is_some() {
            s.in_flight -= 1;
        }
        if !s.stopping {
            while s.in_flight < window {
                self.room.post(0, &self.own[..len])?;
                s.in_flight += 1;
            }
        } else if !s.ended {
            self.room.post(0, &[0u8])?;
            s.in_flight += 1;
            s.ended = true;
        }
        self.room.flush(ep)?;
        if s.ended && s.in_flight == 0 {
            self.stream = Stream::default();
            return Ok(true);
        }
        Ok(false)
    }

    /// One poll of a sink; `true` when the end marker has been acknowledged.
    fn sink<E: Endpoint>(&mut self, ep: &mut E, source: usize) -> Result<bool, RankError> {
        let mut end = false;
        while !end && let Some(n) = self.room.take(0, &mut self.buf)? {
            end = n == 1;
            self.room
                .post(source, &[1u8; 4][..if end { 1 } else { 4 }])?;
            if end {
                self.room.post(0, &[1u8])?;
            }
        }
        self.room.flush(ep)?;
        Ok(end)
    }
}

impl<E: Endpoint> VirtualNode<E> for Node {
    #[inline]
    fn poll(&mut self, ep: &mut E, _ctx: &NodeCtx<'_>) -> Result<bool, RankError> {
        if !self.active {
            return Ok(false);
        }
        let moved = self.room.pump(ep)?;
        let work = self.step(ep)? | moved;
        if work {
            system_return();
        }
        Ok(work)
    }
}

/// Rank 0's `Q`: `chunks` chunks, every one followed by a poll of everything its
/// worker hosts (its own mailroom first).
#[inline(always)]
pub(super) fn q<H: Nodes>(host: &mut H, bg: &Background, chunks: u64) -> Result<(), RankError> {
    for _ in 0..chunks {
        bg.chunk();
        host.poll_all()?;
    }
    Ok(())
}

/// What rank 0's system took from one `Q`: the polls of its own mailroom that
/// moved something, and the others.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct SysTime {
    /// Time of the polls that moved something, ns.
    pub(super) work_ns: f64,
    /// How many polls moved something.
    pub(super) work_polls: u32,
    /// Time of the polls that found nothing to do, ns.
    pub(super) idle_ns: f64,
    /// How many polls found nothing to do.
    pub(super) idle_polls: u32,
    /// Where [`Nodes::PROGRESS_SHARED`] (else 0: not timed): the time of
    /// the processor's polls (rank 0's and the other nodes' after one chunk)
    /// that moved something in rank 0's node and of the ones just before
    /// them, ns.
    pub(super) carried_ns: f64,
    /// How many such polls.
    pub(super) carried_polls: u32,
    /// The time of all the processor's polls of the `Q`, ns.
    pub(super) polls_ns: f64,
    /// How many.
    pub(super) polls: u32,
}

impl SysTime {
    /// The computation the system's work took from `Q`: its working polls beyond
    /// as many polls that found nothing (at their mean in the same `Q`).
    pub(super) fn excess_ns(&self) -> f64 {
        let idle = if self.idle_polls > 0 {
            self.idle_ns / f64::from(self.idle_polls)
        } else {
            0.0
        };
        self.work_ns - f64::from(self.work_polls) * idle
    }

    /// The computation a message took from this `Q`: where the transport's
    /// progress is shared ([`Nodes::PROGRESS_SHARED`]), the processor's
    /// polls that moved something in rank 0's node, and the ones just before
    /// them, beyond as many of the others of the same `Q` at their mean;
    /// else [`SysTime::excess_ns`].
    ///
    /// Over MPI a process's library progresses all its traffic in whichever
    /// of its calls comes first after the message lands: an arriving message
    /// is read in the probe of another node the process hosts, or in a later
    /// probe of rank 0's poll than its source's, and the poll that finds it
    /// costs less than an idle one, whose probes each ran the progress engine
    /// (over TCP a look at the sockets). Rank 0's polls that moved something
    /// against its idle ones then left the receive out, and `R` came out
    /// below zero. Every call of a poll follows the chunk of `Q` before it,
    /// and each poll looks at rank 0's source first, so the first call
    /// after the landing lies in the poll that finds the message or in the
    /// one before: those two hold the receive wherever it ran.
    /// Adds one poll of the processor that took `all` ns and moved
    /// something in rank 0's node or not (`work`); `before` is the previous
    /// poll's time and whether it is counted as carrying, updated.
    #[inline(always)]
    pub(super) fn add_poll(&mut self, all: f64, work: bool, before: &mut Option<(f64, bool)>) {
        self.polls_ns += all;
        self.polls += 1;
        if work {
            self.carried_ns += all;
            self.carried_polls += 1;
            if let Some((t, false)) = *before {
                self.carried_ns += t;
                self.carried_polls += 1;
            }
        }
        *before = Some((all, work));
    }

    pub(super) fn lost_ns(&self, shared: bool) -> f64 {
        if !shared {
            return self.excess_ns();
        }
        let idle_polls = self.polls.saturating_sub(self.carried_polls);
        let idle = if idle_polls > 0 {
            (self.polls_ns - self.carried_ns) / f64::from(idle_polls)
        } else {
            0.0
        };
        self.carried_ns - f64::from(self.carried_polls) * idle
    }
}

/// Rank 0's `Q` with rank 0's own polls timed: `chunks` chunks as [`q`], and what
/// rank 0's system took from it (the polls of the ranks its worker co-hosts are
/// other processors' and are not counted, unless their transport's progress is
/// rank 0's too: [`Nodes::PROGRESS_SHARED`], [`SysTime::lost_ns`]).
///
/// This is where the computation a message costs is: a chunk is register-only
/// arithmetic on a CPU that runs nothing else, so communication cannot slow it,
/// while timing the whole `Q` (the paper's method, with a 140 µs clock) adds the
/// jitter of every chunk, about 1 µs over a 100 µs `Q` on a virtual machine,
/// against costs of tens to hundreds of ns. Counting only the polls that moved
/// something, against the idle polls of the same `Q`, leaves out the jitter of
/// the other polls as well.
#[inline(always)]
pub(super) fn q_sys<H: Nodes>(
    host: &mut H,
    bg: &Background,
    chunks: u64,
) -> Result<SysTime, RankError> {
    let mut sys = SysTime::default();
    let mut before = None;
    for _ in 0..chunks {
        bg.chunk();
        let a = Timer::start();
        let work = host.poll_self()?;
        let t = ns(a, Timer::start());
        if work {
            sys.work_ns += t;
            sys.work_polls += 1;
        } else {
            sys.idle_ns += t;
            sys.idle_polls += 1;
        }
        host.poll_others_in_timed_q()?;
        if H::PROGRESS_SHARED {
            sys.add_poll(ns(a, Timer::start()), work, &mut before);
        }
    }
    Ok(sys)
}

/// Rank 0's write call: `F`, and the hand-over to the transport.
#[inline(always)]
pub(super) fn write<H: Nodes>(host: &mut H, to: usize, data: &[u8]) -> Result<(), RankError> {
    let (node, ep) = host.parts();
    node.room.post(to, data)?;
    node.room.flush(ep)?;
    system_return();
    Ok(())
}

/// Rank 0's read call: enters the system (a pump of rank 0's mailroom, as every
/// system call lets the system do its pending work), takes the message from `from`
/// if it is in a system buffer, copying it out, and otherwise waits, polling.
///
/// The pump makes a read of a message that has already arrived (`A + U`) and the
/// end of a read that waited (what follows the message's arrival in the echo of
/// test 6) the same code: without it the waiting read's tail (the rest of the poll
/// that took the message in) would count in the `U` solved from test 6 and not in
/// the timed `A + U`. The call ends with [`system_return`].
#[inline(always)]
pub(super) fn read<H: Nodes>(
    host: &mut H,
    from: usize,
    buf: &mut [u8],
) -> Result<usize, RankError> {
    let n = host.wait_until(from, |node, ep| look(node, ep, from, buf))?;
    system_return();
    Ok(n)
}

/// One look of a read call: a pump of rank 0's mailroom, then the message from
/// `from` taken from its system buffer if it is there.
#[inline(always)]
fn look<E: Endpoint>(
    node: &mut Node,
    ep: &mut E,
    from: usize,
    buf: &mut [u8],
) -> Result<Option<usize>, RankError> {
    node.room.pump(ep)?;
    node.room.take(from, buf)
}

/// A read call from `from` with nothing in flight, up to where it would wait: its
/// first look, which finds nothing. This is `A` as [`read`] defines it, the part
/// that runs before the message arrives, timed by itself instead of solved from
/// the other experiments; the call's return ([`system_return`]), which the paper
/// counts in `U`, is not in it. Fails if a message was there after all.
#[inline(always)]
pub(super) fn read_before_arrival<H: Nodes>(
    host: &mut H,
    from: usize,
    buf: &mut [u8],
) -> Result<(), RankError> {
    let (node, ep) = host.parts();
    match look(node, ep, from, buf)? {
        None => Ok(()),
        Some(n) => Err(RankError::Failed(format!(
            "a message of {n} bytes from rank {from} arrived where none was in flight"
        ))),
    }
}

/// Fails unless `got == want`.
pub(super) fn check_len(got: usize, want: usize) -> Result<(), RankError> {
    if got != want {
        return Err(RankError::Failed(format!(
            "received {got} bytes, expected {want}"
        )));
    }
    Ok(())
}

/// Nanoseconds from stamp `a` to stamp `b`.
#[inline(always)]
pub(crate) fn ns(a: Timer, b: Timer) -> f64 {
    a.ns_to(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over a shared progress engine a message's cost is the poll that
    /// moved it and the one before, beyond the others at their mean: polls
    /// of 100, 100, 400, 300 (it moved), 100, 100 ns carry 700 ns, the
    /// others 100 ns each, so 500 ns; two working polls in a row carry the
    /// one before the first only (750 ns in three polls, against two of 100
    /// ns: 450 ns); a first poll has none before it. Without
    /// shared progress the working polls of rank 0 alone count, against its
    /// idle ones.
    #[test]
    fn a_shared_progress_counts_the_poll_before_the_one_that_moved() {
        let run = |polls: &[(f64, bool)]| {
            let mut sys = SysTime::default();
            let mut before = None;
            for &(t, work) in polls {
                sys.add_poll(t, work, &mut before);
            }
            sys
        };
        let one = run(&[
            (100.0, false),
            (100.0, false),
            (400.0, false),
            (300.0, true),
            (100.0, false),
            (100.0, false),
        ]);
        assert_eq!(
            (one.carried_ns, one.carried_polls, one.polls),
            (700.0, 2, 6)
        );
        assert_eq!(one.lost_ns(true), 500.0);
        let two = run(&[
            (100.0, false),
            (250.0, false),
            (300.0, true),
            (200.0, true),
            (100.0, false),
        ]);
        assert_eq!((two.carried_ns, two.carried_polls), (750.0, 3));
        assert_eq!(two.lost_ns(true), 450.0);
        let first = run(&[(300.0, true), (100.0, false), (100.0, false)]);
        assert_eq!(first.lost_ns(true), 200.0);
        let own = SysTime {
            work_ns: 300.0,
            work_polls: 1,
            idle_ns: 500.0,
            idle_polls: 5,
            ..SysTime::default()
        };
        assert_eq!(own.lost_ns(false), 200.0);
    }

    /// Twice the largest L1 data cache of the CPUs used, whether the machine
    /// reports it as data or unified; 128 KiB where it reports none.
    #[test]
    fn a_wash_reads_twice_the_l1_data_cache() {
        use crate::platform::CacheKind;
        let topology = Topology::with_caches(vec![
            (1, CacheKind::Data, 48, vec![0]),
            (1, CacheKind::Instruction, 256, vec![0]),
            (1, CacheKind::Data, 32, vec![1]),
            (1, CacheKind::Unified, 64, vec![2]),
            (2, CacheKind::Unified, 2048, vec![0, 1]),
        ]);
        assert_eq!(wash_bytes(&topology, &[0, 1]), 96 * 1024);
        assert_eq!(wash_bytes(&topology, &[1]), 64 * 1024);
        assert_eq!(wash_bytes(&topology, &[1, 2]), 128 * 1024);
        assert_eq!(wash_bytes(&topology, &[5]), 128 * 1024);
    }
}
