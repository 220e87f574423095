//! The GOAL front end of the engine: a [`Schedule`]'s dependency graphs under the
//! LogGOPS model (Hoefler, Schneider and Lumsdaine, "LogGOPSim", HPDC 2010), event
//! for event as LogGOPSim's `LogGOPSim.cpp` (LogGP network backend, no noise), so
//! that its per-host finish times are reproduced to the nanosecond.
//!
//! # Semantics (per rank: one CPU `o`-clock and a send and a receive NIC `g`-clock)
//! - `calc n` at `t`, CPU free: the CPU is busy until `t + n`.
//! - `send s` at `t`, CPU and send NIC free: the CPU is busy until
//!   `t + o + (s-1) O`, the send NIC until `t + g + (s-1) G`; the message arrives
//!   at `t + o + L`. At or below `S` bytes (eager) the send completes at once;
//!   above (rendezvous) it completes when the receiver matches it, and the
//!   sender's CPU and NIC are then held at least until that time.
//! - arrival at `t`, receiver's CPU and receive NIC free: the CPU is busy until
//!   `t + o + max((s-1) O, (s-1) G)`, the receive NIC until `t + g + (s-1) G`; the
//!   message matches the first posted receive of its (source, tag) or waits in the
//!   unexpected queue.
//! - `recv` when its dependencies are met: matches the first unexpected message of
//!   its (source, tag), else waits posted; it costs no CPU time itself.
//! - an op whose dependencies are met is queued at the time its resource is free
//!   (CPU; for a send CPU and send NIC); one whose resource is busy when it comes
//!   up is put back at the time it is free, keeping its place among equal times.
//!
//! A rank's finish time is its CPU's last busy time. Ties between equal times go
//! by first insertion, new ops of one event by rank, then send, receive, calc,
//! then the order their dependencies were met (LogGOPSim sorts with an unstable
//! sort: with more than 16 ops freed at once its order among equal types may
//! differ). Zero-byte messages cost as one byte (LogGOPSim's `(s-1)` wraps).
//!
//! Cold messages ([`simulate_goal_charged`] with a [`ColdLatency`]): a
//! message whose sender has neither sent nor taken one for longer than the
//! idle gap flies `L_cold` instead of `L`. With [`Charges::ops_first`], a
//! message that finds its receiver busy queues behind the ops queued by then.
//!
//! Meetings (`//@ sync`, [`simulate_goal_charged`] only; [`simulate_goal`] reads
//! their messages as a plain GOAL reader does): an arrival op runs as a `calc`
//! of 0 that does not complete; when the last arrival of a meeting has run, at
//! `t`, every member's CPU is busy until `t + cost` (it waits in the method)
//! and its arrival ops complete then; leaving ops complete at once. No
//! message is sent.
//!
//! Placement: [`Placement`] maps ranks to CPUs; ranks sharing a CPU serialise
//! their CPU work and pay `switch_ns` when the CPU turns from one rank to
//! another, as the replay's oversubscribed ranks run: a waiting rank polls and
//! yields (`sched_yield`, never a sleep), so it takes no time from a rank that
//! computes (it gets the CPU back when that one waits) and a turn costs one
//! yield hand-over. A message handled on a CPU that last ran another rank is
//! taken at `max(arrival, free + switch)`: the hand-over overlaps the flight.
//! After a meeting the members sharing a CPU leave in turn, one switch apart.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use serde::Serialize;

use super::queue::TimedQueue;
use crate::model::goal::{OpKind, Schedule};

/// LogGOPS parameters, ns (per byte for `G` and `O`), and the rendezvous threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LogGops {
    /// Latency `L`.
    pub l_ns: f64,
    /// CPU overhead per message `o`, at the sender and at the receiver.
    pub o_ns: f64,
    /// Gap per message `g` (NIC).
    pub g_ns: f64,
    /// Gap per byte `G` (NIC).
    pub big_g_ns_per_byte: f64,
    /// CPU overhead per byte `O`.
    pub big_o_ns_per_byte: f64,
    /// Largest eager message `S`, bytes; larger ones go by rendezvous.
    pub s_bytes: u64,
}

impl LogGops {
    /// LogGOPSim's defaults (`-L 2500 -o 1500 -g 1000 -G 6 -O 0 -S 65535`).
    pub const LOGGOPSIM_DEFAULTS: Self = Self {
        l_ns: 2500.0,
        o_ns: 1500.0,
        g_ns: 1000.0,
        big_g_ns_per_byte: 6.0,
        big_o_ns_per_byte: 0.0,
        s_bytes: 65535,
    };
}

/// Which CPU each rank runs on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placement {
    /// CPU index of each rank (any numbering; equal numbers share a CPU).
    pub cpu_of_rank: Vec<u32>,
    /// CPU time charged when a CPU turns from one rank's work to another's, ns.
    pub switch_ns: f64,
}

impl Placement {
    /// One rank a CPU.
    pub fn dedicated(ranks: u32) -> Self {
        Self {
            cpu_of_rank: (0..ranks).collect(),
            switch_ns: 0.0,
        }
    }

    /// `ranks` ranks round-robin on `cpus` CPUs, `switch_ns` per switch.
    pub fn shared(ranks: u32, cpus: u32, switch_ns: f64) -> Self {
        Self {
            cpu_of_rank: (0..ranks).map(|r| r % cpus.max(1)).collect(),
            switch_ns,
        }
    }
}

/// Outcome of simulating a schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoalSimResult {
    /// Finish time of every rank, ns.
    pub finish_ns: Vec<f64>,
    /// The latest finish, ns.
    pub end_ns: f64,
    /// Events inserted (ops and messages; LogGOPSim's "Events").
    pub events: u64,
    /// Events taken from the queue, put-backs included.
    pub pops: u64,
    /// Messages sent.
    pub messages: u64,
    /// Host time spent simulating, s.
    pub wall_seconds: f64,
    /// `events / wall_seconds`.
    pub events_per_second: f64,
}

/// A schedule that cannot be simulated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GoalSimError {
    /// A parameter is negative or not finite.
    #[error("LogGOPS parameter `{name}` = {value} must be a finite time >= 0")]
    InvalidParameter {
        /// Its name.
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// The placement does not give every rank a CPU.
    #[error("the placement names {given} ranks but the schedule has {ranks}")]
    Placement {
        /// Ranks in the placement.
        given: usize,
        /// Ranks in the schedule.
        ranks: u32,
    },
    /// Ops left when no event was left (a receive without a send, a cycle).
    #[error(
        "{file}:{line}: rank {rank} `{label}` never ran: the schedule cannot complete ({left} ops left)"
    )]
    Stuck {
        /// File.
        file: String,
        /// Line of the first op left.
        line: u32,
        /// Its rank.
        rank: u32,
        /// Its label.
        label: String,
        /// Ops that never completed.
        left: u64,
    },
    /// Meeting costs given for a different number of meetings.
    #[error("{given} meeting costs for a schedule of {meetings} `//@ sync` meetings")]
    Meetings {
        /// Costs given.
        given: usize,
        /// Meetings in the schedule.
        meetings: usize,
    },
    /// A time beyond 2^53 ns, where f64 loses nanoseconds.
    #[error("simulated time exceeds 2^53 ns (104 days), where nanoseconds are no longer exact")]
    TimeOverflow,
}

/// Multiplicative hash for the matching queues' integer keys.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A matching queue's key: (receiving rank, source rank, tag).
type Key = (u32, u32, u32);

fn key(host: u32, src: u32, tag: u32) -> Key {
    (host, src, tag)
}

/// FIFO matching queues of op ids by [`Key`], without an allocation per key: a map
/// from each key that holds entries to its first and last entry, the entries
/// linked in order in one slab whose free slots are reused. A key leaves the map
/// when its queue empties, so the map holds only what waits.
#[derive(Default)]
struct Queues {
    ends: HashMap<Key, (u32, u32), BuildHasherDefault<MixHasher>>,
    /// `(op, next entry of the same key)`.
    slab: Vec<(u32, u32)>,
    /// First free slot, [`NONE`] when none; free slots link through `next`.
    free: u32,
}

impl Queues {
    fn new() -> Self {
        Self {
            free: NONE,
            ..Self::default()
        }
    }

    /// Appends `op` to the queue of `k`.
    fn push(&mut self, k: Key, op: u32) {
        let i = if self.free == NONE {
            self.slab.push((op, NONE));
            (self.slab.len() - 1) as u32
        } else {
            let i = self.free;
            self.free = self.slab[i as usize].1;
            self.slab[i as usize] = (op, NONE);
            i
        };
        match self.ends.entry(k) {
            Entry::Occupied(mut e) => {
                let (first, last) = *e.get();
                self.slab[last as usize].1 = i;
                e.insert((first, i));
            }
            Entry::Vacant(e) => {
                e.insert((i, i));
            }
        }
    }

    /// Removes the first op of the queue of `k`.
    fn pop(&mut self, k: Key) -> Option<u32> {
        let Entry::Occupied(mut e) = self.ends.entry(k) else {
            return None;
        };
        let (first, last) = *e.get();
        let (op, next) = self.slab[first as usize];
        if first == last {
            e.remove();
        } else {
            e.insert((next, last));
        }
        self.slab[first as usize].1 = self.free;
        self.free = first;
        Some(op)
    }

    /// The least `(rank, op)` at the head of a queue, `rank` taken from the key
    /// by `rank_of` (for an error message that does not depend on hashing).
    fn least_head(&self, rank_of: impl Fn(Key) -> u32) -> Option<(u32, u32)> {
        self.ends
            .iter()
            .map(|(&k, &(first, _))| (rank_of(k), self.slab[first as usize].0))
            .min()
    }
}

const MSG: u64 = 1;
const NONE: u32 = u32::MAX;

/// Simulates `s` under `p` with `placement` (dedicated CPUs when `None`),
/// its `//@ sync` meetings as the messages a plain GOAL reader sees.
pub fn simulate_goal(
    s: &Schedule,
    p: &LogGops,
    placement: Option<&Placement>,
) -> Result<GoalSimResult, GoalSimError> {
    simulate_goal_charged(s, p, placement, &Charges::default())
}

/// What [`simulate_goal_charged`] charges beyond LogGOPS.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Charges<'a> {
    /// The cost of each `//@ sync` meeting of the schedule, ns, from its last
    /// arrival (module doc); empty: the meetings are their messages.
    pub meeting_ns: &'a [f64],
    /// The latency of a cold message, if it differs.
    pub cold: Option<ColdLatency>,
    /// A message that waits for its receiver's CPU or receive NIC goes
    /// behind the ops queued by then, as a replay's rank starts its ready
    /// ops before it polls; LogGOPSim keeps the message's first place.
    pub ops_first: bool,
}

/// A message whose sender neither sent nor received one for longer than
/// `idle_ns` (since the start, at 0) flies `l_ns` instead of `L`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ColdLatency {
    /// The idle gap beyond which a message is cold, ns.
    pub idle_ns: f64,
    /// Its latency, ns.
    pub l_ns: f64,
}

/// [`simulate_goal`] with `charges`: meetings at their cost, cold messages
/// at their latency.
pub fn simulate_goal_charged(
    s: &Schedule,
    p: &LogGops,
    placement: Option<&Placement>,
    charges: &Charges<'_>,
) -> Result<GoalSimResult, GoalSimError> {
    let meeting_ns = charges.meeting_ns;
    if let Some(c) = charges.cold
        && !(c.idle_ns.is_finite() && c.idle_ns >= 0.0 && c.l_ns.is_finite() && c.l_ns >= 0.0)
    {
        return Err(GoalSimError::InvalidParameter {
            name: "L_cold",
            value: c.l_ns.min(c.idle_ns),
        });
    }
    if !meeting_ns.is_empty() && meeting_ns.len() != s.meetings.len() {
        return Err(GoalSimError::Meetings {
            given: meeting_ns.len(),
            meetings: s.meetings.len(),
        });
    }
    if let Some(&value) = meeting_ns.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        return Err(GoalSimError::InvalidParameter {
            name: "meeting",
            value,
        });
    }
    let params = [
        ("L", p.l_ns),
        ("o", p.o_ns),
        ("g", p.g_ns),
        ("G", p.big_g_ns_per_byte),
        ("O", p.big_o_ns_per_byte),
    ];
    if let Some(&(name, value)) = params.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
        return Err(GoalSimError::InvalidParameter { name, value });
    }
    let dedicated;
    let placement = match placement {
        Some(pl) => pl,
        None => {
            dedicated = Placement::dedicated(s.num_ranks);
            &dedicated
        }
    };
    if placement.cpu_of_rank.len() != s.num_ranks as usize
        || !placement.switch_ns.is_finite()
        || placement.switch_ns < 0.0
    {
        return Err(GoalSimError::Placement {
            given: placement.cpu_of_rank.len(),
            ranks: s.num_ranks,
        });
    }
    let start = Instant::now();
    let mut sim = Sim::new(s, p, placement);
    if !meeting_ns.is_empty() {
        sim.meetings(meeting_ns);
    }
    if let Some(c) = charges.cold {
        sim.cold = Some(c);
        sim.last_message = vec![0.0; s.ranks.len()];
    }
    sim.ops_first = charges.ops_first;
    sim.run();
    let wall_seconds = start.elapsed().as_secs_f64();
    sim.finish(wall_seconds)
}

struct Sim<'a> {
    s: &'a Schedule,
    p: LogGops,
    /// Global index of each rank's first op.
    base: Vec<usize>,
    /// Every op's kind by global index: 24 bytes an op where the schedule's
    /// `Op` (label, dependency lists, line) takes several cache lines.
    kinds: Vec<OpKind>,
    /// Dependencies not yet met, per global op.
    remaining: Vec<u32>,
    /// CSR of the ops that require (complete) / irequire (start) each op.
    done_deps: (Vec<usize>, Vec<u32>),
    start_deps: (Vec<usize>, Vec<u32>),
    completed: u64,
    cpu: Vec<u32>,
    switch_ns: f64,
    cpu_free: Vec<f64>,
    cpu_last: Vec<u32>,
    finish: Vec<f64>,
    next_gs: Vec<f64>,
    next_gr: Vec<f64>,
    posted: Queues,
    unexpected: Queues,
    queue: TimedQueue<(u32, u32)>,
    next_ts: u64,
    pops: u64,
    messages: u64,
    /// Ops freed by the current event: (rank, type rank, sequence, op).
    freed: Vec<(u32, u8, u32, u32)>,
    /// Per global op, `2 k + 1` for an arrival at meeting `k`, `2 k + 2` for
    /// a leaving op, 0 otherwise; empty when meetings are their messages.
    meet: Vec<u32>,
    /// Per meeting: cost, arrivals left, latest arrival, its arrival ops.
    meetings: Vec<MeetingState>,
    /// Per CPU, the member that last left the current meeting and when.
    leaving: Vec<Option<(u32, f64)>>,
    /// Cold messages' latency, and each rank's last send or arrival.
    cold: Option<ColdLatency>,
    last_message: Vec<f64>,
    /// [`Charges::ops_first`].
    ops_first: bool,
}

struct MeetingState {
    cost: f64,
    left: u32,
    last: f64,
    arrivals: Vec<(u32, u32)>,
}

fn csr(n: usize, edges: impl Iterator<Item = (usize, u32)>) -> (Vec<usize>, Vec<u32>) {
    let edges: Vec<(usize, u32)> = edges.collect();
    let mut start = vec![0usize; n + 1];
    for &(from, _) in &edges {
        start[from + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut to = vec![0u32; edges.len()];
    for (from, t) in edges {
        to[fill[from]] = t;
        fill[from] += 1;
    }
    (start, to)
}

impl<'a> Sim<'a> {
    fn new(s: &'a Schedule, p: &LogGops, placement: &Placement) -> Self {
        let base = s.op_bases();
        let total = *base.last().unwrap_or(&0);
        let mut remaining = vec![0u32; total];
        let edges = |started: bool| {
            let base = &base;
            s.ranks.iter().enumerate().flat_map(move |(r, rank)| {
                rank.ops.iter().enumerate().flat_map(move |(i, op)| {
                    let list = if started { &op.irequires } else { &op.requires };
                    list.iter()
                        .map(move |&pre| (base[r] + pre as usize, i as u32))
                })
            })
        };
        for (r, rank) in s.ranks.iter().enumerate() {
            for (i, op) in rank.ops.iter().enumerate() {
                remaining[base[r] + i] = (op.requires.len() + op.irequires.len()) as u32;
            }
        }
        // Dense CPU numbers.
        let mut dense: HashMap<u32, u32> = HashMap::new();
        let cpu: Vec<u32> = placement
            .cpu_of_rank
            .iter()
            .map(|c| {
                let n = dense.len() as u32;
                *dense.entry(*c).or_insert(n)
            })
            .collect();
        let ranks = s.ranks.len();
        Self {
            s,
            p: *p,
            kinds: s
                .ranks
                .iter()
                .flat_map(|rank| rank.ops.iter().map(|op| op.kind))
                .collect(),
            done_deps: csr(total, edges(false)),
            start_deps: csr(total, edges(true)),
            base,
            remaining,
            completed: 0,
            cpu,
            switch_ns: placement.switch_ns,
            cpu_free: vec![0.0; dense.len()],
            cpu_last: vec![NONE; dense.len()],
            finish: vec![0.0; ranks],
            next_gs: vec![0.0; ranks],
            next_gr: vec![0.0; ranks],
            posted: Queues::new(),
            unexpected: Queues::new(),
            queue: TimedQueue::default(),
            next_ts: 0,
            pops: 0,
            messages: 0,
            freed: Vec::new(),
            meet: Vec::new(),
            meetings: Vec::new(),
            leaving: Vec::new(),
            cold: None,
            last_message: Vec::new(),
            ops_first: false,
        }
    }

    /// The latency of a message rank `r` sends at `t` (and `t` noted).
    #[inline]
    fn latency(&mut self, r: u32, t: f64) -> f64 {
        let Some(c) = self.cold else {
            return self.p.l_ns;
        };
        let last = std::mem::replace(&mut self.last_message[r as usize], t);
        if t - last > c.idle_ns {
            c.l_ns
        } else {
            self.p.l_ns
        }
    }

    /// Runs the schedule's meetings as meetings costing `cost` each.
    fn meetings(&mut self, cost: &[f64]) {
        self.meet = vec![0; self.kinds.len()];
        self.meetings = cost
            .iter()
            .map(|&cost| MeetingState {
                cost,
                left: 0,
                last: 0.0,
                arrivals: Vec::new(),
            })
            .collect();
        for (r, rank) in self.s.ranks.iter().enumerate() {
            for (i, op) in rank.ops.iter().enumerate() {
                let Some(m) = op.sync else { continue };
                let g = self.base[r] + i;
                self.meet[g] = 2 * m.meeting + if m.arrive { 1 } else { 2 };
                if m.arrive {
                    let st = &mut self.meetings[m.meeting as usize];
                    st.left += 1;
                    st.arrivals.push((r as u32, i as u32));
                }
            }
        }
    }

    /// Op `op` of rank `r`, part of a meeting (`code` as in `meet`), at `t`.
    fn meeting_op(&mut self, t: f64, order: u64, r: u32, op: u32, code: u32) {
        if code.is_multiple_of(2) {
            self.mark(r, op, true);
            self.mark(r, op, false);
            return;
        }
        let free = self.next_o(r);
        if free > t {
            self.queue.push(free, order, (r, op));
            return;
        }
        self.mark(r, op, true);
        let k = (code / 2) as usize;
        let st = &mut self.meetings[k];
        st.left -= 1;
        st.last = st.last.max(t);
        if st.left > 0 {
            return;
        }
        let until = st.last + st.cost;
        let arrivals = std::mem::take(&mut st.arrivals);
        // Members sharing a CPU leave in turn, a switch apart (module doc).
        self.leaving.clear();
        self.leaving.resize(self.cpu_free.len(), None);
        for &(a, _) in &arrivals {
            let c = self.cpu[a as usize] as usize;
            let at = match self.leaving[c] {
                None => until,
                Some((prev, t)) if prev != a => t + self.switch_ns,
                Some((_, t)) => t,
            };
            self.leaving[c] = Some((a, at));
            // Never earlier than it was: work a member did after arriving
            // (ops that do not wait for the meeting) stands.
            if self.cpu_free[c] < at {
                self.cpu_free[c] = at;
                self.cpu_last[c] = a;
            }
            let f = &mut self.finish[a as usize];
            *f = f.max(at);
        }
        for &(a, aop) in &arrivals {
            self.mark(a, aop, false);
        }
    }

    /// When rank `r` may next use its CPU.
    #[inline]
    fn next_o(&self, r: u32) -> f64 {
        let c = self.cpu[r as usize] as usize;
        let last = self.cpu_last[c];
        if last == NONE || last == r {
            self.cpu_free[c]
        } else {
            self.cpu_free[c] + self.switch_ns
        }
    }

    #[inline]
    fn set_o(&mut self, r: u32, until: f64) {
        let c = self.cpu[r as usize] as usize;
        self.cpu_free[c] = until;
        self.cpu_last[c] = r;
        self.finish[r as usize] = self.finish[r as usize].max(until);
    }

    #[inline]
    fn kind(&self, r: u32, op: u32) -> OpKind {
        self.kinds[self.base[r as usize] + op as usize]
    }

    fn mark(&mut self, r: u32, op: u32, started: bool) {
        let g = self.base[r as usize] + op as usize;
        if !started {
            self.completed += 1;
        }
        let (start, to) = if started {
            &self.start_deps
        } else {
            &self.done_deps
        };
        for &d in &to[start[g]..start[g + 1]] {
            let dg = self.base[r as usize] + d as usize;
            self.remaining[dg] -= 1;
            if self.remaining[dg] == 0 {
                let t = match self.kind(r, d) {
                    OpKind::Send { .. } => 1,
                    OpKind::Recv { .. } => 2,
                    OpKind::Calc { .. } => 3,
                };
                let seq = self.freed.len() as u32;
                self.freed.push((r, t, seq, d));
            }
        }
    }

    fn push_new(&mut self, time: f64, r: u32, op: u32, msg: bool) {
        let order = self.next_ts << 1 | if msg { MSG } else { 0 };
        self.next_ts += 1;
        self.queue.push(time, order, (r, op));
    }

    /// Queues the ops freed by the last event, at the time their resource is free.
    fn schedule_freed(&mut self) {
        if self.freed.len() > 1 {
            self.freed.sort_unstable();
        }
        for i in 0..self.freed.len() {
            let (r, t, _, op) = self.freed[i];
            let time = if t == 1 {
                self.next_o(r).max(self.next_gs[r as usize])
            } else {
                self.next_o(r)
            };
            self.push_new(time, r, op, false);
        }
        self.freed.clear();
    }

    fn run(&mut self) {
        for r in 0..self.s.num_ranks {
            // The ops without dependencies, from the flat arrays (not the
            // schedule's ops, several cache lines each).
            let ops = self.base[r as usize]..self.base[r as usize + 1];
            for (i, g) in ops.enumerate() {
                if self.remaining[g] == 0 {
                    let t = match self.kinds[g] {
                        OpKind::Send { .. } => 1,
                        OpKind::Recv { .. } => 2,
                        OpKind::Calc { .. } => 3,
                    };
                    self.freed.push((r, t, i as u32, i as u32));
                }
            }
            self.freed.sort_unstable();
            for k in 0..self.freed.len() {
                let (r, _, _, op) = self.freed[k];
                self.push_new(0.0, r, op, false);
            }
            self.freed.clear();
        }
        while let Some((t, order, (r, op))) = self.queue.pop() {
            self.pops += 1;
            if order & MSG == MSG {
                self.message(t, order, r, op);
            } else {
                self.op(t, order, r, op);
            }
            if !self.freed.is_empty() {
                self.schedule_freed();
            }
        }
    }

    fn extra(bytes: u64, per_byte: f64) -> f64 {
        bytes.saturating_sub(1) as f64 * per_byte
    }

    fn op(&mut self, t: f64, order: u64, r: u32, op: u32) {
        let p = self.p;
        if !self.meet.is_empty() {
            let code = self.meet[self.base[r as usize] + op as usize];
            if code != 0 {
                self.meeting_op(t, order, r, op, code);
                return;
            }
        }
        match self.kind(r, op) {
            OpKind::Calc { ns } => {
                let free = self.next_o(r);
                if free <= t {
                    self.set_o(r, t + ns as f64);
                    self.mark(r, op, true);
                    self.mark(r, op, false);
                } else {
                    self.queue.push(free, order, (r, op));
                }
            }
            OpKind::Send { bytes, .. } => {
                let free = self.next_o(r).max(self.next_gs[r as usize]);
                if free <= t {
                    self.mark(r, op, true);
                    self.set_o(r, t + p.o_ns + Self::extra(bytes, p.big_o_ns_per_byte));
                    self.next_gs[r as usize] = t + p.g_ns + Self::extra(bytes, p.big_g_ns_per_byte);
                    self.messages += 1;
                    let l = self.latency(r, t);
                    self.push_new(t + p.o_ns + l, r, op, true);
                    if bytes <= p.s_bytes {
                        self.mark(r, op, false);
                    }
                } else {
                    self.queue.push(free, order, (r, op));
                }
            }
            OpKind::Recv { bytes, peer, tag } => {
                self.mark(r, op, true);
                let k = key(r, peer, tag);
                match self.unexpected.pop(k) {
                    Some(send) => {
                        if bytes > p.s_bytes {
                            self.rendezvous_done(peer, send, t);
                        }
                        self.mark(r, op, false);
                    }
                    None => self.posted.push(k, op),
                }
            }
        }
    }

    /// The sender of a rendezvous message learns at `t` that it was matched.
    fn rendezvous_done(&mut self, src: u32, send: u32, t: f64) {
        self.mark(src, send, false);
        let c = self.cpu[src as usize] as usize;
        if self.cpu_free[c] < t {
            self.cpu_free[c] = t;
        }
        let f = &mut self.finish[src as usize];
        *f = f.max(t);
        let gs = &mut self.next_gs[src as usize];
        *gs = gs.max(t);
    }

    /// The message of `src`'s send `send` reaches its destination at `t`.
    fn message(&mut self, t: f64, order: u64, src: u32, send: u32) {
        let p = self.p;
        let OpKind::Send {
            bytes,
            peer: r,
            tag,
        } = self.kind(src, send)
        else {
            unreachable!("a message comes from a send");
        };
        let free = self.next_o(r).max(self.next_gr[r as usize]);
        if free > t {
            if self.ops_first {
                self.push_new(free, src, send, true);
            } else {
                self.queue.push(free, order, (src, send));
            }
            return;
        }
        let cpu =
            Self::extra(bytes, p.big_o_ns_per_byte).max(Self::extra(bytes, p.big_g_ns_per_byte));
        self.set_o(r, t + p.o_ns + cpu);
        self.next_gr[r as usize] = t + p.g_ns + Self::extra(bytes, p.big_g_ns_per_byte);
        if self.cold.is_some() {
            self.last_message[r as usize] = t;
        }
        let k = key(r, src, tag);
        match self.posted.pop(k) {
            Some(recv) => {
                if bytes > p.s_bytes {
                    self.rendezvous_done(src, send, t);
                }
                self.mark(r, recv, false);
            }
            None => self.unexpected.push(k, send),
        }
    }

    fn finish(self, wall_seconds: f64) -> Result<GoalSimResult, GoalSimError> {
        let total = *self.base.last().unwrap_or(&0) as u64;
        if self.completed < total {
            // The first op, in rank order, that never completed: one still
            // waiting on dependencies, or a posted receive, or a rendezvous send.
            let left = total - self.completed;
            let stuck = self.remaining.iter().position(|&n| n > 0);
            let (r, i) = match stuck {
                Some(g) => {
                    let r = self.base.partition_point(|&b| b <= g) - 1;
                    (r, g - self.base[r])
                }
                None => {
                    let posted = self.posted.least_head(|(host, _, _)| host);
                    let unmatched = self.unexpected.least_head(|(_, src, _)| src);
                    let (r, op) = posted.or(unmatched).unwrap_or((0, 0));
                    (r as usize, op as usize)
                }
            };
            let op = self.s.ranks.get(r).and_then(|rank| rank.ops.get(i));
            return Err(GoalSimError::Stuck {
                file: self.s.name.clone(),
                line: op.map_or(0, |o| o.line),
                rank: r as u32,
                label: op.map_or_else(String::new, |o| o.label.to_string()),
                left,
            });
        }
        let end_ns = self.finish.iter().copied().fold(0.0, f64::max);
        if end_ns > (1u64 << 53) as f64 {
            return Err(GoalSimError::TimeOverflow);
        }
        let events = self.next_ts;
        Ok(GoalSimResult {
            finish_ns: self.finish,
            end_ns,
            events,
            pops: self.pops,
            messages: self.messages,
            wall_seconds,
            events_per_second: if wall_seconds > 0.0 {
                events as f64 / wall_seconds
            } else {
                0.0
            },
        })
    }
}
