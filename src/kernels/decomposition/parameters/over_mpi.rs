//! `decomposition` between MPI processes (`--transport mpi`, built with
//! `--features mpi`): F, S, R, A, U, E per message size and `Q` from MPI
//! point-to-point messages, solved and fitted as between threads.
//!
//! # The six nodes multiplexed over the processes, not one process a node
//! The experiments need six nodes: rank 0 and a chain of five, whose echo at
//! distances 1 to 5 gives `E` (its half-increments) and ranks 1 and 3 the
//! neighbour and the forward of tests 2 to 5. One process a node would need
//! six processes, and fewer would change what `E` is solved from. So the six
//! nodes stay the threads' virtual nodes, with their mailrooms and scripts,
//! dealt round-robin over the world's first `P = min(processes, 6)`
//! processes (node `r` on process `r mod P`): on two processes 0, 2, 4 on
//! the first and 1, 3, 5 on the second, the two hosted workers' layout, so
//! every hop between consecutive nodes crosses processes (and nodes, where
//! mpirun places them on two); from six processes on each node has a
//! process of its own. Any world of two processes or more runs it;
//! processes beyond six host nothing and wait. A node's messages are MPI
//! messages between the processes that host the two nodes, each ordered pair
//! of nodes with a tag of its own ([`Multiplexed`]): what differs from the
//! threads' run is the transport, which the result names (`mpi`) with the
//! layout in a warning.
//!
//! Each process polls the nodes it hosts in a loop, and process 0's loop is
//! rank 0's program, the same code as between threads ([`Nodes`]). Rank 0's
//! wash of the caches and the end of a run are messages to each process's
//! control rank (virtual rank `6 + p`), which every process looks for each 16
//! rounds of its loop. `Q` is the same computation on every process (rank
//! 0's calibration, broadcast), as the paper's nodes ran one program. Every
//! size of every repetition is a run of its own, with fresh transport
//! buffers as between threads; the threads' probes of the two CPUs' round
//! trips between sizes are left out. A process that shares its CPU with
//! another yields after each round that moved nothing, and the result is
//! labelled oversubscribed.
//!
//! # What a message costs a process
//! One MPI library moves all of a process's messages, in whichever call of
//! any of its nodes comes first. So the computation a message takes (`R`,
//! `R + S`, and `S` after the write call) is timed over the process's whole
//! poll after each chunk: the poll that moved the message in rank 0's node
//! and the one before it, beyond the others of the same `Q`
//! ([`Nodes::PROGRESS_SHARED`]). In those timed `Q`s the other nodes of
//! process 0, idle in tests 2 to 5, are not polled: their probes made the
//! polls' times noisier ([`Nodes::poll_others_in_timed_q`]). Rank 0's own
//! working polls against its idle ones, the threads' measure, are reported
//! beside (`r_own_polls_ns`). Where the library yields the CPU in
//! every progress pass that finds nothing (Open MPI on an oversubscribed
//! node, or asked to), a message saves yields, and the lines solved from
//! the lost computation (all but `E`) are flagged not resolved, with why.
//!
//! # The write call test 6 pays
//! `U = T6/2 − E − F` needs the `F` of test 6's own write calls, and test
//! 4's call (`F + S`) may cost otherwise (an `MPI_Isend` into a socket
//! costs by the socket's state). Rank 0 times the call that opens test 6's
//! echo too, and `F + S` is taken with it (`solve::f_plus_s_of_test_6`);
//! where the two differ, or over sockets, a note gives both figures. `F`
//! is then the copy into a system buffer (the write call and the send that
//! `S` holds are one `MPI_Isend`), tens of ns: its interval holds zero. For
//! `U0` over shared memory take four repetitions (`--trials 4`), not two.

use super::super::background::{Background, QKind};
use super::super::protocol::{CHUNK, Node, Nodes, wash_bytes};
use super::NAME;
use super::lanes::{Probe, lane_span, slots_for, store_and_forward};
use super::plan::{
    Plan, RANKS, SENDTIME, notimes, plan_steps, repetitions, rounds, script_over, sizes,
};
use super::rank0::{Repetition, rank0};
use super::solve::add_q;
use crate::control::{Placement, RankError, TeamControl, WaitStrategy};
use crate::kernels::{KernelError, RunContext};
use crate::model::stats::summarize;
use crate::platform::{LINE, LineAligned};
use crate::results::{KernelResult, num};
use crate::team::hosted::{NodeCtx, VirtualNode};
use crate::team::mpi::Processes;
use crate::transport::mpi::Multiplexed;
use crate::transport::{Endpoint, TransportConfig};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The transport the results carry.
const TRANSPORT: &str = "mpi";

/// Control messages from rank 0: wash the caches (answered with
/// [`WASHED`]), end the run, end the run and the kernel (the user
/// interrupted it).
const WASH: u8 = 1;
const WASHED: u8 = 2;
const STOP: u8 = 3;
const CANCEL: u8 = 4;

/// Open MPI's switch for a progress engine that yields the CPU after every
/// pass that found nothing, and the setting it follows where the switch is
/// not given (a node with more processes than slots): `mpirun` hands both to
/// every process it starts.
const YIELD_VAR: &str = "OMPI_MCA_mpi_yield_when_idle";
const OVERSUBSCRIBED_VAR: &str = "OMPI_MCA_mpi_oversubscribe";

/// Whether this process's MPI library yields the CPU when its progress
/// finds nothing.
pub(in crate::kernels::decomposition) fn library_yields() -> bool {
    yields_when_idle(|v| std::env::var(v).ok())
}

/// Whether the MPI library yields the CPU when its progress finds nothing,
/// from the environment `var` reads.
fn yields_when_idle(var: impl Fn(&str) -> Option<String>) -> bool {
    let on = |v: String| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "t" | "true" | "y" | "yes" | "enabled"
        )
    };
    match var(YIELD_VAR) {
        Some(v) => on(v),
        None => var(OVERSUBSCRIBED_VAR).is_some_and(on),
    }
}

/// Why the lost computation is not resolved where the library yields.
const YIELDING: &str = "the MPI library yields the CPU in every progress pass that finds nothing (Open MPI's mpi_yield_when_idle, on for an oversubscribed node), so a message saves rank 0's process the yields of the passes that find it, and the computation it takes cannot be told from the yields it saves: R, and S, F, U, A solved from it, are not resolved (E is elapsed time and stands); run with one process a CPU, or --mca mpi_yield_when_idle 0";

/// The lines solved from the lost computation: all but `E`.
const FROM_LOST: [&str; 5] = ["r_", "s_", "f_", "u_", "a_"];

/// The `lines` (by their parameter's prefix), flagged and marked not
/// resolved with `why`, which a warning repeats.
fn unresolved(result: &mut KernelResult, lines: &[&str], why: &str) {
    for fit in &mut result.fits {
        if lines.iter().any(|p| fit.y.starts_with(p)) {
            fit.flagged = true;
            fit.model = format!("{}; not resolved: {why}", fit.model);
        }
    }
    result.warnings.push(format!("not resolved: {why}"));
}

/// Open MPI's list of byte transfer layers, which `mpirun --mca btl` sets.
const BTL_VAR: &str = "OMPI_MCA_btl";

/// Whether the processes' messages go through sockets, from the environment
/// `var` reads: Open MPI's transfer layers are TCP's (with `self`) and no
/// shared memory's, or exclude the shared memory ones.
fn over_sockets(var: impl Fn(&str) -> Option<String>) -> bool {
    let Some(list) = var(BTL_VAR) else {
        return false;
    };
    let shared_memory = |b: &&str| matches!(*b, "vader" | "sm");
    match list.trim().strip_prefix('^') {
        Some(excluded) => {
            excluded
                .split(',')
                .map(str::trim)
                .filter(shared_memory)
                .count()
                == 2
        }
        None => {
            let names: Vec<&str> = list.split(',').map(str::trim).collect();
            names.contains(&"tcp") && !names.iter().any(shared_memory)
        }
    }
}

/// Apart by more than this, ns, and by more than half the lesser, test 4's
/// write call and the one that opens test 6 are different costs.
const WRITES_APART_NS: f64 = 1000.0;

/// A note when the write call timed in test 4 (`F + S`) and the one that
/// opens test 6's echo differ (medians over the points), or the messages go
/// through `sockets`: both figures, and that `F` is solved with test 6's.
///
/// Over Open MPI's TCP transport the write call is an `MPI_Isend` into a
/// socket, whose cost follows the socket's state: test 4's took 7 to 45 µs,
/// bimodal, where the one opening test 6 took 6 to 7 µs. With test 4's call
/// in `F + S`, `U = T6/2 − E − F` lost the difference (its line came out
/// below zero beyond its interval) and `A = (A + U) − U` gained it; the
/// solve now takes `F + S` with test 6's call (`solve::f_plus_s_of_test_6`).
fn write_calls_note(result: &KernelResult, sockets: bool) -> Option<String> {
    let median = |name: &str| {
        let v: Vec<f64> = result
            .points
            .iter()
            .filter_map(|p| p.stats(name))
            .map(|s| s.median)
            .filter(|v| v.is_finite())
            .collect();
        summarize(&v).map_or(f64::NAN, |s| s.median)
    };
    let (test_4, test_6) = (median("send_call_ns"), median("send_call_test_6_ns"));
    let apart = (test_4 - test_6).abs() > WRITES_APART_NS.max(0.5 * test_4.min(test_6));
    (apart || sockets).then(|| {
        format!(
            "the write call of test 4 (F + S) took {} ns and the one that opens test 6's echo {} ns (medians over the points){}: F = (F + S) - S is solved with test 6's call in F + S, the F that test 6's round trip holds, from which U = T6/2 - E - F and A = (A + U) - U follow",
            num(test_4),
            num(test_6),
            if sockets {
                "; the messages go through sockets (Open MPI's TCP transport), where a write call is an MPI_Isend into the socket and costs what the socket's state makes it"
            } else {
                ""
            }
        )
    })
}

/// The processes that host nodes, given where every process of the world
/// sits (host, CPU): the first ones up to six that sit on CPUs of their own,
/// so that a job with more processes than CPUs (`mpirun --oversubscribe`)
/// still measures messages and not the scheduler; when even the first two
/// share a CPU, the first six or fewer, on shared CPUs.
fn hosting(places: &[(&str, usize)]) -> usize {
    let mut seen: Vec<(&str, usize)> = Vec::with_capacity(RANKS);
    for &place in places.iter().take(RANKS) {
        if seen.contains(&place) {
            break;
        }
        seen.push(place);
    }
    match seen.len() {
        n if n >= 2 => n,
        _ => places.len().clamp(1, RANKS),
    }
}

/// Whether two of `places` are one CPU of one host.
fn shared(places: &[(&str, usize)]) -> bool {
    places
        .iter()
        .enumerate()
        .any(|(i, p)| places[..i].contains(p))
}

/// The process of every virtual rank of `ranks` nodes on `p` hosting
/// processes: node `r` on `r mod p`, then the control rank `ranks + q` of
/// every process `q`.
pub(in crate::kernels::decomposition) fn hosts(ranks: usize, p: usize) -> Vec<usize> {
    (0..ranks).map(|r| r % p).chain(0..p).collect()
}

/// One node on this process.
struct Hosted<'c> {
    rank: usize,
    node: Node,
    ep: Multiplexed<'c>,
}

/// The nodes one process hosts (rank 0 first on process 0), its control
/// rank, and what it reads to wash its caches.
pub(in crate::kernels::decomposition) struct ProcessNodes<'c, 'a> {
    nodes: Vec<Hosted<'c>>,
    /// Virtual nodes in the world (the control ranks follow).
    ranks: usize,
    ctl: Multiplexed<'c>,
    processes: usize,
    cpu: usize,
    control: &'a TeamControl,
    wait: WaitStrategy,
    cancel: &'a AtomicBool,
    washer: LineAligned<u8>,
}

impl ProcessNodes<'_, '_> {
    /// Polls the nodes from `first` on, once each.
    #[inline(always)]
    fn poll_from(&mut self, first: usize) -> Result<bool, RankError> {
        let mut work = false;
        for h in &mut self.nodes[first..] {
            let ctx = NodeCtx {
                rank: h.rank,
                size: self.ranks,
                worker: 0,
                cpu: self.cpu,
                control: self.control,
            };
            work |= h.node.poll(&mut h.ep, &ctx)?;
        }
        Ok(work)
    }

    /// What a round that moved nothing does: a spin-loop hint, or a yield
    /// when the process shares its CPU.
    #[inline(always)]
    fn idle(&self) {
        match self.wait {
            WaitStrategy::Spin => crate::primitive::spin_hint(),
            WaitStrategy::Block => std::thread::yield_now(),
        }
    }

    /// Reads one byte of every line of the wash buffer.
    #[inline(never)]
    fn wash(&self) {
        let mut sum = 0u8;
        for line in self.washer.chunks(LINE) {
            sum = sum.wrapping_add(line[0]);
        }
        black_box(sum);
    }

    /// Process 0: the control byte from process `p`, polling everything
    /// hosted meanwhile, under the deadline.
    fn control_from(&mut self, p: usize) -> Result<u8, RankError> {
        let mut b = [0u8; 1];
        let mut started = None;
        let mut polls: u32 = 0;
        loop {
            if self.ctl.try_recv(self.ranks + p, &mut b)?.is_some() {
                return Ok(b[0]);
            }
            if !self.poll_all()? {
                self.idle();
            }
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(1024) {
                self.control.check(p, &mut started)?;
            }
        }
    }

    /// Process 0: ends the run on every other hosting process.
    fn stop(&mut self, cancelled: bool) -> Result<(), RankError> {
        let b = [if cancelled { CANCEL } else { STOP }];
        let ranks = self.ranks;
        (1..self.processes).try_for_each(|p| self.ctl.send(ranks + p, &b))
    }

    /// Another hosting process: polls its nodes until rank 0 ends the run,
    /// washing when asked; whether the user interrupted the kernel. Fails
    /// when nothing moved and nothing came from rank 0 for a whole deadline.
    fn serve(&mut self) -> Result<bool, RankError> {
        let mut rounds: u32 = 0;
        let mut busy = false;
        let mut idle_since: Option<Instant> = None;
        let mut b = [0u8; 1];
        loop {
            let work = self.poll_from(0)?;
            busy |= work;
            rounds = rounds.wrapping_add(1);
            if rounds.is_multiple_of(16) {
                while self.ctl.try_recv(self.ranks, &mut b)?.is_some() {
                    busy = true;
                    match b[0] {
                        WASH => {
                            self.wash();
                            self.ctl.send(self.ranks, &[WASHED])?;
                        }
                        STOP => return Ok(false),
                        CANCEL => return Ok(true),
                        other => {
                            return Err(RankError::Failed(format!(
                                "unknown control message {other} from rank 0"
                            )));
                        }
                    }
                }
                if busy {
                    idle_since = None;
                } else {
                    self.control.check(0, &mut idle_since)?;
                }
                busy = false;
            }
            if !work {
                self.idle();
            }
        }
    }
}

impl ProcessNodes<'_, '_> {
    /// An error when the run was stopped or cancelled.
    #[inline(always)]
    fn stopped(&self) -> Result<(), RankError> {
        // Relaxed: flags with no data behind them.
        if self.control.aborted() || self.cancel.load(Ordering::Relaxed) {
            return Err(RankError::Aborted);
        }
        Ok(())
    }
}

impl<'c> Nodes for ProcessNodes<'c, '_> {
    type Ep = Multiplexed<'c>;
    /// One MPI library a process: any node's call progresses every message.
    const PROGRESS_SHARED: bool = true;

    #[inline(always)]
    fn parts(&mut self) -> (&mut Node, &mut Multiplexed<'c>) {
        let me = &mut self.nodes[0];
        (&mut me.node, &mut me.ep)
    }

    #[inline(always)]
    fn poll_self(&mut self) -> Result<bool, RankError> {
        let ctx = NodeCtx {
            rank: 0,
            size: self.ranks,
            worker: 0,
            cpu: self.cpu,
            control: self.control,
        };
        let me = &mut self.nodes[0];
        me.node.poll(&mut me.ep, &ctx)
    }

    #[inline(always)]
    fn poll_others(&mut self) -> Result<bool, RankError> {
        self.stopped()?;
        self.poll_from(1)
    }

    /// Nodes 2 and 4 have nothing in flight in tests 2 to 5, and their
    /// probes would progress rank 0's messages too: the timed `Q` polls
    /// rank 0's node alone, so the receive lands in rank 0's own poll and
    /// the others' MPI calls add no noise to the polls' times.
    #[inline(always)]
    fn poll_others_in_timed_q(&mut self) -> Result<bool, RankError> {
        self.stopped()?;
        Ok(false)
    }

    #[inline]
    fn wait_until<T>(
        &mut self,
        peer: usize,
        mut ready: impl FnMut(&mut Node, &mut Multiplexed<'c>) -> Result<Option<T>, RankError>,
    ) -> Result<T, RankError> {
        let mut polls: u32 = 0;
        let mut started = None;
        loop {
            let (node, ep) = self.parts();
            if let Some(v) = ready(node, ep)? {
                return Ok(v);
            }
            // Rank 0's own system first, and a look at once if it moved
            // something (as the hosted team's wait).
            let mine = self.poll_self()?;
            if mine {
                let (node, ep) = self.parts();
                if let Some(v) = ready(node, ep)? {
                    return Ok(v);
                }
            }
            if !(self.poll_others()? | mine) {
                self.idle();
            }
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(1024) {
                self.control.check(peer, &mut started)?;
            }
        }
    }

    /// Asks every other hosting process to wash, washes, and waits for
    /// every answer; nothing where there is nothing to wash, as between
    /// threads.
    fn wash_caches(&mut self) -> Result<(), RankError> {
        if self.washer.is_empty() {
            return Ok(());
        }
        for p in 1..self.processes {
            self.ctl.send(self.ranks + p, &[WASH])?;
        }
        self.wash();
        for p in 1..self.processes {
            match self.control_from(p)? {
                WASHED => {}
                other => {
                    return Err(RankError::Failed(format!(
                        "process {p} answered a wash with control message {other}"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// What one run gives on a process.
pub(in crate::kernels::decomposition) enum Ran<R> {
    /// Rank 0's figures, and whether the user interrupted the kernel.
    Rank0(R, bool),
    /// Another hosting process: whether the user interrupted the kernel.
    Served(bool),
}

impl<R> Ran<R> {
    /// Whether the user interrupted the kernel.
    pub(in crate::kernels::decomposition) fn cancelled(&self) -> bool {
        match self {
            Ran::Rank0(_, c) | Ran::Served(c) => *c,
        }
    }
}

/// Where a kernel's virtual nodes run: on which processes, and how they
/// wait and wash.
pub(in crate::kernels::decomposition) struct Layout<'a> {
    /// Virtual nodes.
    pub(in crate::kernels::decomposition) ranks: usize,
    /// The process of every node, then of every process's control rank
    /// ([`hosts`]).
    pub(in crate::kernels::decomposition) hosts: Vec<usize>,
    /// The processes that host nodes: the world's first.
    pub(in crate::kernels::decomposition) processes: usize,
    /// How a hosting process waits: spinning, unless two share a CPU.
    pub(in crate::kernels::decomposition) wait: WaitStrategy,
    /// Bytes each process reads to wash its caches (0: no wash).
    pub(in crate::kernels::decomposition) wash: usize,
    pub(in crate::kernels::decomposition) cancel: &'a AtomicBool,
}

impl<'a> Layout<'a> {
    /// `ranks` virtual nodes over the first `processes` processes
    /// ([`hosts`]), blocking where processes share a CPU (`on_shared`),
    /// spinning otherwise.
    pub(in crate::kernels::decomposition) fn new(
        ranks: usize,
        processes: usize,
        on_shared: bool,
        wash: usize,
        cancel: &'a AtomicBool,
    ) -> Layout<'a> {
        Layout {
            ranks,
            hosts: hosts(ranks, processes),
            processes,
            wait: if on_shared {
                WaitStrategy::Block
            } else {
                WaitStrategy::Spin
            },
            wash,
            cancel,
        }
    }
}

/// One run on the hosting processes: on each, the nodes `node` makes for
/// the ranks it hosts, whose transport lanes are `config`'s; then `rank0`
/// on process 0 and the poll loop on the others. `None` on a process that
/// hosts nothing.
pub(in crate::kernels::decomposition) fn run_nodes<R>(
    procs: &Processes,
    kernel: &str,
    layout: &Layout<'_>,
    config: &TransportConfig,
    node: impl Fn(usize) -> Node,
    cancelled: impl Fn() -> bool,
    rank0: impl FnOnce(&mut ProcessNodes<'_, '_>) -> Result<R, RankError>,
) -> Result<Option<Ran<R>>, KernelError> {
    Ok(procs.run_group(kernel, layout.processes, None, |ctx, ep| {
        let process = ep.rank();
        let nodes = (0..layout.ranks)
            .filter(|&r| layout.hosts[r] == process)
            .map(|rank| Hosted {
                rank,
                node: node(rank),
                ep: ep.multiplexed(rank, &layout.hosts, config),
            })
            .collect();
        // Control messages are one byte; four in flight a pair at most.
        let control_config: TransportConfig = store_and_forward(1, 4);
        let mut here = ProcessNodes {
            nodes,
            ranks: layout.ranks,
            ctl: ep.multiplexed(layout.ranks + process, &layout.hosts, &control_config),
            processes: layout.processes,
            cpu: ctx.cpu,
            control: ctx.control,
            wait: layout.wait,
            cancel: layout.cancel,
            washer: LineAligned::from_fn(layout.wash, |i| (i as u8) | 1),
        };
        if process != 0 {
            return here.serve().map(Ran::Served);
        }
        let out = rank0(&mut here)?;
        let stopped = cancelled();
        here.stop(stopped)?;
        Ok(Ran::Rank0(out, stopped))
    })?)
}

/// One run of `plan` (one size): its nodes and scripts on the hosting
/// processes, rank 0's program on process 0.
fn one_run(
    procs: &Processes,
    plan: &Plan<'_>,
    layout: &Layout<'_>,
    span: usize,
) -> Result<Option<Ran<Vec<Repetition>>>, KernelError> {
    let size = plan.sizes[0];
    let config = store_and_forward(size, slots_for(size, span));
    let steps = plan_steps(plan);
    let node = |rank: usize| {
        let script = script_over(rank, &steps, plan);
        Node::new(rank, RANKS, config.max_message_bytes, plan.bg, script)
    };
    run_nodes(procs, NAME, layout, &config, node, plan.cancelled, |here| {
        rank0(here, plan)
    })
}

/// Where the world's processes sit, the hosting processes of a kernel of
/// up to `most` of them, and whether those share CPUs.
pub(in crate::kernels::decomposition) fn hosting_processes(
    procs: &Processes,
    most: usize,
) -> (usize, bool) {
    let places: Vec<(&str, usize)> = procs
        .members()
        .iter()
        .map(|m| (m.host.as_str(), m.cpu))
        .collect();
    let processes = hosting(&places).min(most);
    (processes, shared(&places[..processes]))
}

/// Rank 0's calibration of both `Q`s, on every process.
pub(in crate::kernels::decomposition) fn backgrounds(
    procs: &Processes,
) -> Result<Vec<Background>, KernelError> {
    Ok(procs.run(NAME, |_, ep| {
        let mine: Vec<Background> = match procs.rank() {
            0 => QKind::ALL
                .iter()
                .map(|&k| Background::calibrate(k, SENDTIME, CHUNK))
                .collect(),
            _ => Vec::new(),
        };
        let mut words = [0u8; 32 * QKind::ALL.len()];
        for (b, w) in mine.iter().zip(words.chunks_mut(32)) {
            w[..8].copy_from_slice(&b.unit_ns.to_le_bytes());
            w[8..16].copy_from_slice(&b.chunk_units.to_le_bytes());
            w[16..24].copy_from_slice(&b.send_chunks.to_le_bytes());
            w[24..].copy_from_slice(&b.comp_chunks.to_le_bytes());
        }
        ep.bcast(&mut words);
        let word = |w: &[u8], i: usize| -> [u8; 8] { w[i..i + 8].try_into().expect("8 bytes") };
        Ok(QKind::ALL
            .iter()
            .zip(words.chunks(32))
            .map(|(&kind, w)| Background {
                kind,
                unit_ns: f64::from_le_bytes(word(w, 0)),
                chunk_units: u64::from_le_bytes(word(w, 8)),
                send_chunks: u64::from_le_bytes(word(w, 16)),
                comp_chunks: u64::from_le_bytes(word(w, 24)),
            })
            .collect())
    })?)
}

/// Whether rank 0 says the kernel goes on, on every process.
pub(in crate::kernels::decomposition) fn go_on(
    procs: &Processes,
    stop: bool,
) -> Result<bool, KernelError> {
    Ok(procs.run(NAME, |_, ep| {
        let mut b = [u8::from(stop)];
        ep.bcast(&mut b);
        Ok(b[0] == 0)
    })?)
}

/// The layout of `p` hosting processes in a world of `world`, for the
/// result's warnings.
fn layout_note(world: usize, p: usize, shared: bool) -> String {
    let on = |q: usize| {
        (0..RANKS)
            .filter(|r| r % p == q)
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let dealt = (0..p)
        .map(|q| format!("{} on process {q}", on(q)))
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "over MPI: the {RANKS} nodes are virtual nodes multiplexed over {p} MPI processes by message tags (nodes {dealt}), so every hop between consecutive nodes crosses processes{}{}; each process polls its nodes between 2 us chunks of Q (rank 0's calibration on every process), its system forwards (R + S), and the transport is MPI_Isend from the transport's buffers, MPI_Iprobe and MPI_Irecv into the nodes' system buffers; no probes of the CPUs' round trips",
        if shared {
            "; processes of these share CPUs, and wait by yielding: the times include the scheduler's"
        } else {
            ""
        },
        if world > p {
            format!(
                "; processes {p} to {} host no node{}",
                world - 1,
                if shared {
                    ""
                } else {
                    " (one process a CPU: the others would share one)"
                }
            )
        } else {
            String::new()
        }
    )
}

/// The kernel over MPI: both `Q`s, every repetition and size a run of the
/// hosting processes; rank 0 returns the result, the others nothing.
pub(super) fn run(
    ctx: &RunContext<'_>,
    procs: &Processes,
) -> Result<Vec<KernelResult>, KernelError> {
    let sizes = sizes(ctx);
    if sizes.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: NAME.into(),
            reason: "no message sizes given".into(),
        });
    }
    let world = procs.size();
    let (processes, on_shared) = hosting_processes(procs, RANKS);
    let cpu = procs.members()[procs.rank()].cpu;
    let span = lane_span(ctx.topology, &[cpu]);
    let layout = Layout::new(
        RANKS,
        processes,
        on_shared,
        wash_bytes(ctx.topology, &[cpu]),
        &ctx.cancel,
    );
    let repetitions = ctx
        .config
        .trials
        .unwrap_or_else(|| repetitions(ctx.config.quick));
    let backgrounds = backgrounds(procs)?;
    ctx.progress
        .begin(NAME, (backgrounds.len() * repetitions * sizes.len()) as u64);
    // Virtual nodes polled by their processes, as between threads; shared
    // CPUs say so instead.
    let placement = if on_shared {
        Placement::Oversubscribed
    } else {
        Placement::Hosted
    };
    let mut result = KernelResult::new(
        NAME,
        "krumme-greenfield",
        placement,
        procs.cpus()[..processes].to_vec(),
    )
    .with_transport(Some(TRANSPORT))
    .with_distance_class(Some(procs.distance(0, 1)))
    .with_ranks(RANKS);
    let no_probe = || Ok::<_, KernelError>(Probe::NONE);
    let cancelled = || ctx.cancelled();
    let mut stopped = false;
    for bg in &backgrounds {
        let mut reps = Vec::with_capacity(repetitions);
        for _ in 0..repetitions {
            let mut done = Vec::with_capacity(sizes.len());
            for size in &sizes {
                if stopped {
                    break;
                }
                let on_size = |size: usize| {
                    ctx.progress
                        .step(&format!("{TRANSPORT} {} Q {size} B", bg.kind.name()))
                };
                let plan = Plan {
                    bg: *bg,
                    sizes: std::slice::from_ref(size),
                    reps: notimes(ctx.config.quick),
                    clock_ns: ctx.clock.read_overhead_ns,
                    repetitions: 1,
                    rounds: rounds(ctx.config.quick),
                    lane_span: span,
                    probe: &no_probe,
                    on_size: &on_size,
                    cancelled: &cancelled,
                };
                let ran = one_run(procs, &plan, &layout, span)?;
                let stop = ran.as_ref().is_some_and(Ran::cancelled);
                if let Some(Ran::Rank0(times, _)) = ran {
                    done.extend(times.into_iter().flat_map(|r| r.sizes));
                }
                stopped = !go_on(procs, stop)?;
            }
            reps.push(Repetition { sizes: done });
        }
        if procs.rank() == 0 && reps.iter().all(|r| r.sizes.len() == sizes.len()) {
            add_q(&mut result, bg.kind, &reps, span, rounds(ctx.config.quick));
        }
    }
    ctx.progress.end();
    if stopped || ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    if procs.rank() != 0 {
        return Ok(Vec::new());
    }
    result
        .warnings
        .push(layout_note(world, processes, on_shared));
    if library_yields() {
        unresolved(&mut result, &FROM_LOST, YIELDING);
    } else if let Some(note) = write_calls_note(&result, over_sockets(|v| std::env::var(v).ok())) {
        result.warnings.push(note);
    }
    Ok(vec![result])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes are dealt round-robin over at most six processes, so that
    /// consecutive nodes are on different processes; the control ranks
    /// follow, one a process.
    #[test]
    fn nodes_are_dealt_round_robin_over_at_most_six_processes() {
        assert_eq!(hosts(RANKS, 2), vec![0, 1, 0, 1, 0, 1, 0, 1]);
        assert_eq!(hosts(RANKS, 4), vec![0, 1, 2, 3, 0, 1, 0, 1, 2, 3]);
        for p in 2..=6 {
            let h = hosts(RANKS, p);
            assert!((1..RANKS).all(|r| h[r] != h[r - 1]), "{p}: {h:?}");
            assert!((0..p).all(|q| h[RANKS + q] == q), "{p}: {h:?}");
        }
    }

    /// The hosting processes are the first, up to six, on CPUs of their
    /// own: four processes on a node of two CPUs give two (the others would
    /// share), four on two nodes give four, nine on nine CPUs six; two on one
    /// CPU both host, on a shared CPU.
    #[test]
    fn hosting_processes_have_cpus_of_their_own() {
        let one_node = |n: usize, cpus: usize| -> Vec<(&str, usize)> {
            (0..n).map(|r| ("a", r % cpus)).collect()
        };
        assert_eq!(hosting(&one_node(2, 2)), 2);
        assert_eq!(hosting(&one_node(4, 2)), 2);
        assert_eq!(hosting(&one_node(9, 16)), 6);
        let two_nodes = [("a", 0), ("b", 0), ("a", 1), ("b", 1)];
        assert_eq!(hosting(&two_nodes), 4);
        assert!(!shared(&two_nodes));
        let squeezed = one_node(3, 1);
        assert_eq!(hosting(&squeezed), 3);
        assert!(shared(&squeezed));
        assert!(!shared(&one_node(4, 2)[..2]));
    }

    /// The library yields where `mpi_yield_when_idle` says so, and where it
    /// is not given and the node is oversubscribed; not otherwise.
    #[test]
    fn the_library_yields_when_asked_or_oversubscribed() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(!yields_when_idle(env(&[])));
        assert!(!yields_when_idle(env(&[(OVERSUBSCRIBED_VAR, "0")])));
        assert!(yields_when_idle(env(&[(OVERSUBSCRIBED_VAR, "1")])));
        assert!(yields_when_idle(env(&[(YIELD_VAR, "true")])));
        assert!(!yields_when_idle(env(&[
            (YIELD_VAR, "0"),
            (OVERSUBSCRIBED_VAR, "1")
        ])));
    }

    /// The six lines, unflagged, as an integer `Q`'s over the paper's sizes.
    fn with_six_lines(result: &mut KernelResult) {
        for name in ["e", "r", "s", "f", "u", "a"] {
            result.fits.push(crate::results::FitResult {
                model: format!("{} = ... (integer Q, 16-2000 B)", name.to_uppercase()),
                x: "size_bytes".into(),
                y: format!("{name}_ns (every repetition)"),
                params: Default::default(),
                std_errors: Default::default(),
                r2: 1.0,
                n_points: 4,
                flagged: false,
            });
        }
    }

    /// Marked not resolved: the lines of R, S, F, U and A, each flagged with
    /// the reason in its model; E's line stands.
    #[test]
    fn yielding_leaves_every_line_but_e_not_resolved() {
        let mut result =
            KernelResult::new(NAME, "krumme-greenfield", Placement::Hosted, vec![0, 1]);
        with_six_lines(&mut result);
        unresolved(&mut result, &FROM_LOST, "why");
        for f in &result.fits {
            let e = f.y.starts_with("e_");
            assert_eq!(f.flagged, !e, "{f:?}");
            assert_eq!(
                f.model
                    .ends_with("(integer Q, 16-2000 B); not resolved: why"),
                !e,
                "{f:?}"
            );
        }
        assert_eq!(result.warnings, vec!["not resolved: why".to_string()]);
    }

    /// Sockets where Open MPI's transfer layers are TCP's and no shared
    /// memory's, or exclude both shared memory ones; not where it is not set.
    #[test]
    fn sockets_are_tcp_without_shared_memory() {
        let btl = |v: &'static str| move |k: &str| (k == BTL_VAR).then(|| v.to_string());
        for (list, sockets) in [
            ("tcp,self", true),
            (" self , tcp ", true),
            ("tcp,self,vader", false),
            ("vader,self", false),
            ("^vader,sm", true),
            ("^vader", false),
        ] {
            assert_eq!(over_sockets(btl(list)), sockets, "{list}");
        }
        assert!(!over_sockets(|_: &str| None));
    }

    /// A note names both write calls where test 4's and test 6's differ by
    /// more than a microsecond and half the lesser (42 and 9 us, TCP's), or
    /// over sockets whatever they measured; none at 400 and 350 ns (shared
    /// memory's). No line is flagged for it: `F` is solved with test 6's
    /// call.
    #[test]
    fn differing_write_calls_are_named_in_a_note() {
        let with = |test_4: f64, test_6: f64| {
            let stats = |v: f64| crate::model::stats::summarize(&[v, v]).unwrap();
            let mut result =
                KernelResult::new(NAME, "krumme-greenfield", Placement::Hosted, vec![0, 1]);
            for _ in 0..2 {
                result.points.push(
                    crate::results::Point::new()
                        .with_stats("send_call_ns", stats(test_4))
                        .with_stats("send_call_test_6_ns", stats(test_6)),
                );
            }
            result
        };
        assert_eq!(write_calls_note(&with(400.0, 350.0), false), None);
        assert_eq!(write_calls_note(&with(2400.0, 1500.0), false), None);
        let tcp = write_calls_note(&with(42_000.0, 9000.0), false).unwrap();
        assert!(
            tcp.starts_with("the write call of test 4 (F + S) took 42000.0 ns and the one that opens test 6's echo 9000.0 ns (medians over the points): F = (F + S) - S is solved with test 6's call"),
            "{tcp}"
        );
        let sockets = write_calls_note(&with(400.0, 350.0), true).unwrap();
        assert!(sockets.contains("through sockets"), "{sockets}");
    }

    /// The result says which layout ran, and which processes host nothing
    /// and why.
    #[test]
    fn the_layout_note_names_each_process_nodes() {
        let two = layout_note(2, 2, false);
        assert!(
            two.contains("multiplexed over 2 MPI processes by message tags (nodes 0, 2, 4 on process 0; 1, 3, 5 on process 1)"),
            "{two}"
        );
        assert!(
            !two.contains("host no node") && !two.contains("yielding"),
            "{two}"
        );
        let four = layout_note(4, 2, false);
        assert!(
            four.contains(
                "processes 2 to 3 host no node (one process a CPU: the others would share one)"
            ),
            "{four}"
        );
        let eight = layout_note(8, 6, false);
        assert!(eight.contains("0 on process 0;"), "{eight}");
        assert!(eight.contains("processes 6 to 7 host no node"), "{eight}");
        let squeezed = layout_note(3, 3, true);
        assert!(
            squeezed.contains("share CPUs, and wait by yielding"),
            "{squeezed}"
        );
    }
}
