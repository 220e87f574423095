//! One rank of a replay: follows its operations' dependency graph over an
//! [`Endpoint`], one trial at a time.
//!
//! # Design
//! An operation is *ready* when every op it `requires` has completed and every op
//! it `irequires` has started. Ready ops start in the order they became ready:
//! a `calc` does its work there and then (the rank's CPU is busy); a `send` joins
//! its destination's queue and goes with `try_send` as soon as the transport has
//! credit for it (completing it: the payload has left the buffer); a `recv` is
//! posted and completes when its message has arrived. Between starts the rank
//! pushes queued sends and drains every source with `try_recv`, so no posted
//! operation ever blocks another: sends and receives are non-blocking throughout,
//! on both thread transports.
//!
//! # Matching and verification
//! Every message carries an 8-byte header, its tag and its sequence number among
//! the sends from this source to this destination with this tag (messages shorter
//! than 8 bytes travel as 8, which costs the same: one inline flag store on the
//! mailbox). An arrival is matched to the first posted receive of its (source,
//! tag), as MPI and LogGOPSim match, or else kept as unexpected until one is
//! posted. A receive checks the sequence number (each message once, in order per
//! tag) and the length, and in the warm-up trial every payload byte, which is a
//! function of source, destination, tag and position.
//!
//! # Timing and the trial protocol
//! Rank 0 times, as in every halfperf kernel: it starts its clock, sends `go` to
//! every rank, runs its own operations and stops the clock when every rank has
//! reported `done`. Each rank also reads its own clock from `go` to its last
//! operation's completion: its finish time. Control messages use the reserved tag
//! [`CONTROL_TAG`]. Untimed warm-up trials come first ([`Warmup`]; rank 0's
//! `go` says which trials they are), so that the timed ones reuse the
//! transport's buffers as a program in a loop and the card's kernels do.
//!
//! # Meetings (`//@ sync`)
//! A meeting's ops send no message: when the last of this rank's arrival ops
//! has started, the rank pushes its queued sends and meets the other members
//! through the method ([`Meetings::meet`], blocking, with the deadline); then
//! its arrival ops complete, and its leaving ops complete when they start.
//!
//! # Deadlines
//! A rank that makes no progress for the team's wait deadline fails, naming the
//! operations it was waiting at; the team stops the others.

use super::replay_calc::{CalcRate, VectorWork};
use super::replay_sync::{MeetLocal, Meetings};
use crate::control::{RankError, WaitStrategy};
use crate::model::goal::{OpKind, RankSchedule};
use crate::team::RankCtx;
use crate::transport::Endpoint;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

/// The tag of the replay's own control messages; no schedule may use it.
pub(crate) const CONTROL_TAG: u32 = u32::MAX;
const GO: u32 = 1;
const DONE: u32 = 2;
/// `go` of an untimed warm-up trial.
const GO_WARM: u32 = 3;
/// Header bytes: tag, then sequence number, little-endian u32 each.
pub(crate) const HEADER: usize = 8;

/// The bytes a message of `bytes` occupies on the transport.
pub(crate) fn wire_bytes(bytes: u64) -> usize {
    (bytes as usize).max(HEADER)
}

/// Payload byte `i` of a message from `src` to `dst` with `tag`.
#[inline]
fn pattern(src: usize, dst: usize, tag: u32, i: usize) -> u8 {
    (src.wrapping_mul(131) ^ dst.wrapping_mul(31) ^ (tag as usize).wrapping_mul(7) ^ i) as u8
}

/// What one rank measured over the trials.
#[derive(Debug, Clone, Default)]
pub(crate) struct RankRecord {
    /// Own finish time of each timed trial, ns from `go`.
    pub(crate) finish_ns: Vec<u64>,
    /// Rank 0 only: `go` to the last `done`, each timed trial, ns.
    pub(crate) time_ns: Vec<u64>,
    /// Warm-up: the `calc` time asked for and the time it took, ns.
    pub(crate) calc_asked_ns: u64,
    /// See `calc_asked_ns`.
    pub(crate) calc_took_ns: u64,
    /// Messages received and verified, all trials.
    pub(crate) messages: u64,
    /// Payload bytes received and checked byte by byte (warm-up).
    pub(crate) bytes_checked: u64,
    /// Untimed warm-up trials run before the timed ones.
    pub(crate) warmup_trials: usize,
}

/// How long the untimed warm-up runs: `trials` (at least one, the one that
/// checks every payload byte), cut short once `budget` has passed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Warmup {
    /// Warm-up trials wanted.
    pub(crate) trials: usize,
    /// The most time the warm-up may take beyond its first trial.
    pub(crate) budget: std::time::Duration,
}

/// A receive posted or a message arrived, on one (source, tag).
#[derive(Debug, Clone, Copy)]
struct Arrival {
    seq: u32,
    len: usize,
    payload_ok: bool,
}

/// One rank's engine: the plan, fixed, and the state of the current trial.
pub(crate) struct RankEngine<'s> {
    rank: usize,
    size: usize,
    ops: &'s RankSchedule,
    /// Ops that wait for op `i` to complete / start.
    on_complete: Vec<Vec<u32>>,
    on_start: Vec<Vec<u32>>,
    need_complete0: Vec<u32>,
    need_start0: Vec<u32>,
    /// Per op: index of its (peer, tag) among this rank's sends or receives.
    key: Vec<usize>,
    recv_keys: HashMap<(usize, u32), usize>,
    n_send_keys: usize,
    sources: Vec<usize>,
    send_bufs: Vec<Vec<u8>>,
    staging: Vec<u8>,
    rate: CalcRate,
    /// Per op: the operands of a `//@ vector` calc.
    vectors: Vec<Option<VectorWork>>,
    /// The schedule's meetings, this rank's state in each, its arrival ops
    /// in each, and (trial state) how many of those have started.
    meetings: Option<&'s Meetings>,
    meet_locals: Vec<MeetLocal>,
    meet_arrivals: Vec<Vec<u32>>,
    meet_started: Vec<u32>,
    // Trial state.
    need_complete: Vec<u32>,
    need_start: Vec<u32>,
    started: Vec<bool>,
    completed: usize,
    ready: VecDeque<u32>,
    queues: Vec<VecDeque<u32>>,
    send_seq: Vec<u32>,
    recv_seq: Vec<u32>,
    posted: Vec<VecDeque<(u32, u32)>>,
    arrived: Vec<VecDeque<Arrival>>,
    dones: usize,
    full_check: bool,
    record: RankRecord,
}

impl<'s> RankEngine<'s> {
    /// Prepares rank `rank` of `size` (the schedule was validated by the caller:
    /// peers in range and not the rank itself, no [`CONTROL_TAG`]); `max_wire`
    /// is the schedule's longest message on the wire, so that a message longer
    /// than its receive arrives whole and is reported as such.
    /// `meetings`: the schedule's `//@ sync` meetings (set up here, so on
    /// the rank's own thread); `None` only for a schedule without.
    pub(crate) fn new(
        rank: usize,
        size: usize,
        ops: &'s RankSchedule,
        rate: CalcRate,
        max_wire: usize,
        meetings: Option<&'s Meetings>,
    ) -> Self {
        let n = ops.ops.len();
        let mut on_complete = vec![Vec::new(); n];
        let mut on_start = vec![Vec::new(); n];
        let mut need_complete0 = vec![0; n];
        let mut need_start0 = vec![0; n];
        let mut key = vec![0; n];
        let mut send_keys: HashMap<(usize, u32), usize> = HashMap::new();
        let mut recv_keys: HashMap<(usize, u32), usize> = HashMap::new();
        let mut send_bufs = vec![Vec::new(); n];
        let mut sources: Vec<usize> = if rank == 0 {
            (1..size).collect()
        } else {
            Vec::new()
        };
        let meet_locals = meetings.map_or_else(Vec::new, |m| m.setup(rank));
        let mut meet_arrivals = vec![Vec::new(); meet_locals.len()];
        for (i, op) in ops.ops.iter().enumerate() {
            for &d in &op.requires {
                on_complete[d as usize].push(i as u32);
                need_complete0[i] += 1;
            }
            for &d in &op.irequires {
                on_start[d as usize].push(i as u32);
                need_start0[i] += 1;
            }
            if let Some(sync) = op.sync {
                if sync.arrive {
                    meet_arrivals[sync.meeting as usize].push(i as u32);
                }
                continue;
            }
            match op.kind {
                OpKind::Send { bytes, peer, tag } => {
                    let k = send_keys.len();
                    key[i] = *send_keys.entry((peer as usize, tag)).or_insert(k);
                    let dst = peer as usize;
                    send_bufs[i] = (0..wire_bytes(bytes))
                        .map(|j| pattern(rank, dst, tag, j))
                        .collect();
                    send_bufs[i][..4].copy_from_slice(&tag.to_le_bytes());
                }
                OpKind::Recv { peer, tag, .. } => {
                    let k = recv_keys.len();
                    key[i] = *recv_keys.entry((peer as usize, tag)).or_insert(k);
                    if !sources.contains(&(peer as usize)) {
                        sources.push(peer as usize);
                    }
                }
                OpKind::Calc { .. } => {}
            }
        }
        let nr = recv_keys.len();
        RankEngine {
            rank,
            size,
            ops,
            on_complete,
            on_start,
            need_complete: need_complete0.clone(),
            need_start: need_start0.clone(),
            need_complete0,
            need_start0,
            key,
            n_send_keys: send_keys.len(),
            recv_keys,
            sources,
            send_bufs,
            staging: vec![0; max_wire.max(HEADER)],
            rate,
            vectors: ops
                .ops
                .iter()
                .map(|o| o.vector.as_deref().map(VectorWork::new))
                .collect(),
            meetings,
            meet_started: vec![0; meet_locals.len()],
            meet_locals,
            meet_arrivals,
            started: vec![false; n],
            completed: 0,
            ready: VecDeque::new(),
            queues: vec![VecDeque::new(); size],
            send_seq: Vec::new(),
            recv_seq: vec![0; nr],
            posted: vec![VecDeque::new(); nr],
            arrived: vec![VecDeque::new(); nr],
            dones: 0,
            full_check: false,
            record: RankRecord::default(),
        }
    }

    /// Runs the untimed warm-up (its first trial checks every payload byte)
    /// then `trials` timed ones; returns what this rank measured. Rank 0
    /// decides how long the warm-up runs and tells the others in each `go`.
    pub(crate) fn run<E: Endpoint>(
        mut self,
        ctx: &RankCtx<'_>,
        ep: &mut E,
        trials: usize,
        warmup: Warmup,
    ) -> Result<RankRecord, RankError> {
        let begun = Instant::now();
        let mut timed = 0;
        while timed < trials {
            let warmed = self.record.warmup_trials;
            self.full_check = warmed + timed == 0;
            let warm = warmed == 0 || (warmed < warmup.trials && begun.elapsed() < warmup.budget);
            let (finish, time, warm) = self.trial(ctx, ep, warm)?;
            if warm {
                self.record.warmup_trials += 1;
                continue;
            }
            timed += 1;
            self.record.finish_ns.push(finish);
            if let Some(time) = time {
                self.record.time_ns.push(time);
            }
        }
        Ok(self.record)
    }

    fn reset(&mut self) {
        self.need_complete.clone_from(&self.need_complete0);
        self.need_start.clone_from(&self.need_start0);
        self.started.iter_mut().for_each(|s| *s = false);
        self.completed = 0;
        self.dones = 0;
        self.meet_started.iter_mut().for_each(|s| *s = 0);
        self.send_seq = vec![0; self.n_send_keys];
        self.recv_seq.iter_mut().for_each(|s| *s = 0);
        self.ready.clear();
        for (i, (c, s)) in self.need_complete.iter().zip(&self.need_start).enumerate() {
            if *c == 0 && *s == 0 {
                self.ready.push_back(i as u32);
            }
        }
    }

    /// One trial, a warm-up one if rank 0 says `warm`: (own finish ns, rank
    /// 0's time ns, whether it was a warm-up).
    fn trial<E: Endpoint>(
        &mut self,
        ctx: &RankCtx<'_>,
        ep: &mut E,
        warm: bool,
    ) -> Result<(u64, Option<u64>, bool), RankError> {
        self.reset();
        let control = |code: u32| {
            let mut m = [0u8; HEADER];
            m[..4].copy_from_slice(&CONTROL_TAG.to_le_bytes());
            m[4..].copy_from_slice(&code.to_le_bytes());
            m
        };
        let go = if warm { GO_WARM } else { GO };
        let t0 = Instant::now();
        let warm = if self.rank == 0 {
            for r in 1..self.size {
                ep.send(r, &control(go))?;
            }
            warm
        } else {
            let mut m = [0u8; HEADER];
            let len = ep.recv(0, &mut m)?;
            if len != HEADER || (m != control(GO) && m != control(GO_WARM)) {
                return Err(RankError::Failed(
                    "replay: rank 0's first message of a trial was not `go`".into(),
                ));
            }
            m == control(GO_WARM)
        };
        let start = if self.rank == 0 { t0 } else { Instant::now() };
        let mut finish = None;
        self.progress(
            ctx,
            ep,
            |e| e.completed == e.ops.ops.len(),
            &mut finish,
            start,
        )?;
        let finish = finish.unwrap_or_default();
        let time = if self.rank == 0 {
            let mut unused = None;
            self.progress(ctx, ep, |e| e.dones + 1 == e.size, &mut unused, start)?;
            Some(t0.elapsed().as_nanos() as u64)
        } else {
            ep.send(0, &control(DONE))?;
            None
        };
        if let Some(k) = self.arrived.iter().position(|a| !a.is_empty()) {
            let (src, tag) = self.key_of(k);
            return Err(RankError::Failed(format!(
                "replay: {} message(s) from rank {src} tag {tag} arrived that no receive took",
                self.arrived[k].len()
            )));
        }
        Ok((finish, time, warm))
    }

    fn key_of(&self, k: usize) -> (usize, u32) {
        self.recv_keys
            .iter()
            .find(|(_, v)| **v == k)
            .map_or((usize::MAX, 0), |(key, _)| *key)
    }

    /// Starts ready ops and moves messages until `done`; records the time of the
    /// last completion (from `start`) in `finish`.
    fn progress<E: Endpoint>(
        &mut self,
        ctx: &RankCtx<'_>,
        ep: &mut E,
        done: impl Fn(&Self) -> bool,
        finish: &mut Option<u64>,
        start: Instant,
    ) -> Result<(), RankError> {
        let block = ctx.control.wait_strategy(self.rank) == WaitStrategy::Block;
        let mut idle: u32 = 0;
        let mut idle_since: Option<Instant> = None;
        let ops_total = self.ops.ops.len();
        loop {
            let before = (self.completed, self.dones);
            while let Some(i) = self.ready.pop_front() {
                self.start_op(i, ep, ctx)?;
            }
            self.push_sends(ep)?;
            self.poll(ep)?;
            if self.completed == ops_total && finish.is_none() {
                *finish = Some(start.elapsed().as_nanos() as u64);
            }
            if done(self) {
                return Ok(());
            }
            if (self.completed, self.dones) != before || !self.ready.is_empty() {
                idle = 0;
                idle_since = None;
                continue;
            }
            idle = idle.wrapping_add(1);
            if block {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
            if idle.is_multiple_of(256) {
                if ctx.control.aborted() {
                    return Err(RankError::Aborted);
                }
                let since = *idle_since.get_or_insert_with(Instant::now);
                if since.elapsed() > ctx.control.wait_timeout() {
                    return Err(self.stalled(since.elapsed().as_millis() as u64));
                }
            }
        }
    }

    /// The deadline error, naming the operations this rank waits at.
    fn stalled(&self, waited_ms: u64) -> RankError {
        // Posted operations first: they are what the rank waits at; then those
        // that wait for them.
        let n = self.ops.ops.len();
        let posted = (0..n).filter(|&i| self.started[i] && !self.is_complete(i));
        let later = (0..n).filter(|&i| !self.started[i]);
        let waiting: Vec<String> = posted
            .chain(later)
            .take(3)
            .map(|i| self.describe(i))
            .collect();
        let at = if waiting.is_empty() {
            format!("`done` from {} rank(s)", self.size - 1 - self.dones)
        } else {
            waiting.join("; ")
        };
        RankError::Failed(format!(
            "replay: no progress for {waited_ms} ms (the deadline), waiting at {at}"
        ))
    }

    fn is_complete(&self, i: usize) -> bool {
        // Completed ops have released their dependents; the count of incomplete
        // ones is all the state keeps, so look at what it waits for.
        let op = &self.ops.ops[i];
        match op.kind {
            OpKind::Calc { .. } => self.started[i],
            OpKind::Send { peer, .. } => {
                self.started[i] && !self.queues[peer as usize].contains(&(i as u32))
            }
            OpKind::Recv { .. } => {
                self.started[i] && !self.posted[self.key[i]].iter().any(|(o, _)| *o == i as u32)
            }
        }
    }

    fn describe(&self, i: usize) -> String {
        let op = &self.ops.ops[i];
        let what = match op.kind {
            OpKind::Send { bytes, peer, tag } => format!("send {bytes}b to {peer} tag {tag}"),
            OpKind::Recv { bytes, peer, tag } => format!("recv {bytes}b from {peer} tag {tag}"),
            OpKind::Calc { ns } => format!("calc {ns}"),
        };
        let state = if self.started[i] {
            "posted"
        } else {
            "not started"
        };
        format!("`{}: {what}` (line {}, {state})", op.label, op.line)
    }

    fn start_op<E: Endpoint>(
        &mut self,
        i: u32,
        ep: &mut E,
        ctx: &RankCtx<'_>,
    ) -> Result<(), RankError> {
        let iu = i as usize;
        self.started[iu] = true;
        for k in 0..self.on_start[iu].len() {
            let d = self.on_start[iu][k] as usize;
            self.need_start[d] -= 1;
            self.release(d);
        }
        if let Some(sync) = self.ops.ops[iu].sync {
            return self.meeting_op(iu, sync, ep, ctx);
        }
        match self.ops.ops[iu].kind {
            OpKind::Calc { .. } if self.vectors[iu].is_some() => {
                let v = self.vectors[iu].as_mut().expect("checked by the guard");
                v.run();
                if self.full_check && !v.check() {
                    return Err(RankError::Failed(format!(
                        "replay: {} computed a wrong result",
                        self.describe(iu)
                    )));
                }
                self.complete(iu);
            }
            OpKind::Calc { ns } => {
                if self.full_check {
                    let t = Instant::now();
                    self.rate.work(ns);
                    self.record.calc_took_ns += t.elapsed().as_nanos() as u64;
                    self.record.calc_asked_ns += ns;
                } else {
                    self.rate.work(ns);
                }
                self.complete(iu);
            }
            OpKind::Send { peer, .. } => {
                let k = self.key[iu];
                let seq = self.send_seq[k];
                self.send_seq[k] += 1;
                self.send_bufs[iu][4..8].copy_from_slice(&seq.to_le_bytes());
                let dst = peer as usize;
                self.queues[dst].push_back(i);
                if self.queues[dst].len() == 1 && ep.try_send(dst, &self.send_bufs[iu])? {
                    self.queues[dst].pop_front();
                    self.complete(iu);
                }
            }
            OpKind::Recv { .. } => {
                let k = self.key[iu];
                let seq = self.recv_seq[k];
                self.recv_seq[k] += 1;
                match self.arrived[k].pop_front() {
                    Some(a) => self.take(iu, seq, a)?,
                    None => self.posted[k].push_back((i, seq)),
                }
            }
        }
        Ok(())
    }

    /// Op `i`, part of a meeting: a leaving op completes; the last arrival op
    /// of this rank holds the meeting, then completes every arrival op.
    fn meeting_op<E: Endpoint>(
        &mut self,
        i: usize,
        sync: crate::model::goal::SyncOp,
        ep: &mut E,
        ctx: &RankCtx<'_>,
    ) -> Result<(), RankError> {
        if !sync.arrive {
            self.complete(i);
            return Ok(());
        }
        let k = sync.meeting as usize;
        self.meet_started[k] += 1;
        if self.meet_started[k] as usize != self.meet_arrivals[k].len() {
            return Ok(());
        }
        let Some(meetings) = self.meetings else {
            return Err(RankError::Failed(format!(
                "replay: {} is a `//@ sync` meeting but the replay has no meetings",
                self.describe(i)
            )));
        };
        // What this rank has queued goes first: a member may wait for it.
        self.push_sends(ep)?;
        meetings.meet(k, self.rank, &mut self.meet_locals[k], ctx.control)?;
        for a in 0..self.meet_arrivals[k].len() {
            let op = self.meet_arrivals[k][a] as usize;
            self.complete(op);
        }
        Ok(())
    }

    fn release(&mut self, d: usize) {
        if self.need_complete[d] == 0 && self.need_start[d] == 0 && !self.started[d] {
            self.ready.push_back(d as u32);
        }
    }

    fn complete(&mut self, i: usize) {
        self.completed += 1;
        for k in 0..self.on_complete[i].len() {
            let d = self.on_complete[i][k] as usize;
            self.need_complete[d] -= 1;
            self.release(d);
        }
    }

    /// Completes receive `i` (expecting sequence number `seq`) with arrival `a`.
    fn take(&mut self, i: usize, seq: u32, a: Arrival) -> Result<(), RankError> {
        let op = &self.ops.ops[i];
        let OpKind::Recv { bytes, .. } = op.kind else {
            unreachable!("only receives take arrivals")
        };
        let want = wire_bytes(bytes);
        if a.seq != seq || a.len != want || !a.payload_ok {
            return Err(RankError::Failed(format!(
                "replay: {} got message #{} of {} bytes{} where #{seq} of {want} bytes was due",
                self.describe(i),
                a.seq,
                a.len,
                if a.payload_ok {
                    ""
                } else {
                    " with a corrupt payload"
                }
            )));
        }
        self.record.messages += 1;
        self.complete(i);
        Ok(())
    }

    fn push_sends<E: Endpoint>(&mut self, ep: &mut E) -> Result<(), RankError> {
        for dst in 0..self.size {
            while let Some(&i) = self.queues[dst].front() {
                if !ep.try_send(dst, &self.send_bufs[i as usize])? {
                    break;
                }
                self.queues[dst].pop_front();
                self.complete(i as usize);
            }
        }
        Ok(())
    }

    fn poll<E: Endpoint>(&mut self, ep: &mut E) -> Result<(), RankError> {
        for s in 0..self.sources.len() {
            let src = self.sources[s];
            while let Some(len) = ep.try_recv(src, &mut self.staging)? {
                self.arrive(src, len)?;
            }
        }
        Ok(())
    }

    fn arrive(&mut self, src: usize, len: usize) -> Result<(), RankError> {
        if len < HEADER {
            return Err(RankError::Failed(format!(
                "replay: a message of {len} bytes from rank {src} has no header"
            )));
        }
        let word =
            |k: usize| u32::from_le_bytes(self.staging[k..k + 4].try_into().expect("4 bytes"));
        let (tag, seq) = (word(0), word(4));
        if tag == CONTROL_TAG {
            if seq == DONE && self.rank == 0 {
                self.dones += 1;
                return Ok(());
            }
            return Err(RankError::Failed(format!(
                "replay: control message {seq} from rank {src} out of place"
            )));
        }
        let Some(&k) = self.recv_keys.get(&(src, tag)) else {
            return Err(RankError::Failed(format!(
                "replay: a message from rank {src} tag {tag} that no receive of this rank expects"
            )));
        };
        let payload_ok = !self.full_check || {
            self.record.bytes_checked += (len - HEADER) as u64;
            let (rank, staging) = (self.rank, &self.staging);
            (HEADER..len).all(|j| staging[j] == pattern(src, rank, tag, j))
        };
        let a = Arrival {
            seq,
            len,
            payload_ok,
        };
        match self.posted[k].pop_front() {
            Some((i, want)) => self.take(i as usize, want, a),
            None => {
                self.arrived[k].push_back(a);
                Ok(())
            }
        }
    }
}
