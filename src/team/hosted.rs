//! Polled virtual nodes: many ranks hosted on a few pinned, spinning workers.
//!
//! A [`HostedTeam`] has one worker thread per CPU, pinned, that never parks. Each
//! worker hosts several virtual ranks, dealt round-robin (rank `r` on worker
//! `r mod W`), so that every hop between consecutive ranks crosses a CPU whenever
//! there are two or more. Every rank owns a real transport endpoint (mailbox or
//! channel, from [`crate::transport::Transport::endpoints`]), and a
//! [`VirtualNode`]: a small state machine that the worker's poll loop calls in turn
//! with the other ranks it hosts. A node never blocks: it looks at its endpoint
//! (`probe`, `try_recv`, `try_send`), does what it can, and returns, so that a
//! message reaching a node is handled within one round of its worker's loop
//! instead of after a thread wake-up (tens of microseconds on a virtual machine).
//!
//! Rank 0 is the test node. Its program runs on worker 0 as a closure given a
//! [`Host`]: its own node and endpoint, and the ranks worker 0 hosts besides it.
//! While rank 0 waits or computes it calls [`Host::poll_others`] (or
//! [`Host::poll_all`], which polls its own node first), so the co-hosted ranks
//! keep moving — and the time they take is taken from rank 0's program, as an
//! operating system's interrupt routines take it from the user's computation.
//!
//! A [`Mailroom`] (a node's message system, [`crate::transport::mailroom`]) is a
//! virtual node by itself: polling it pumps it, so a chain of mailrooms with routes
//! is a chain of forwarding nodes.
//!
//! # Errors, deadlines, cancellation
//! A node's error (or panic) ends the team with [`TeamError::Rank`] naming that
//! rank; the other workers see the team's abort flag at their next poll round and
//! return, so no thread is left spinning. Rank 0's waits ([`Host::wait_until`])
//! have the team's deadline and end with [`RankError::Deadline`] naming the peer.
//! When the cancel flag given in [`HostedSpec`] is raised, every worker stops at its
//! next round and the run ends with [`TeamError::Cancelled`]. When rank 0's program
//! returns, the workers stop; what the nodes still hold is dropped.
//!
//! # Washing the caches
//! [`Host::wash_caches`] has every worker read a buffer of
//! [`HostedSpec::wash_bytes`] once, its own first, and returns when all have: each
//! CPU's private caches then hold the buffer instead of whatever the nodes last
//! touched. A kernel calls it between the iterations it times, so that every
//! iteration finds the transport's memory in the same place however much the
//! previous one touched (see the `decomposition` kernel).

use super::{TeamError, check_cpus, panic_message};
use crate::control::{Placement, RankError, TeamControl, WaitStrategy};
use crate::platform::{LineAligned, pin_current_thread};
use crate::transport::Endpoint;
use crate::transport::mailroom::Mailroom;
use crossbeam_utils::CachePadded;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What a hosted team is asked to be.
#[derive(Debug, Clone)]
pub struct HostedSpec {
    /// The CPUs, distinct: one spinning worker on each.
    pub cpus: Vec<usize>,
    /// Number of virtual ranks, at least 1 (any number: they are dealt round-robin).
    pub ranks: usize,
    /// How long any single wait of rank 0 may last before the kernel fails.
    pub wait_timeout: Duration,
    /// Raised from outside (Ctrl-C) to end the run; `None`: never cancelled.
    pub cancel: Option<Arc<AtomicBool>>,
    /// What each worker reads when [`Host::wash_caches`] asks it to, bytes (0:
    /// washing does nothing).
    pub wash_bytes: usize,
}

/// Virtual ranks hosted on pinned, spinning workers, one per CPU.
#[derive(Debug)]
pub struct HostedTeam {
    cpus: Vec<usize>,
    ranks: usize,
    control: Arc<TeamControl>,
    cancel: Option<Arc<AtomicBool>>,
    wash_bytes: usize,
}

/// What a node is told when its worker polls it.
#[derive(Debug)]
pub struct NodeCtx<'a> {
    /// The node's rank.
    pub rank: usize,
    /// Number of ranks.
    pub size: usize,
    /// The worker hosting it.
    pub worker: usize,
    /// That worker's CPU.
    pub cpu: usize,
    /// The team's control block.
    pub control: &'a TeamControl,
}

/// A virtual rank's program, run by its worker's poll loop.
///
/// `poll` must not block or spin: it does what it can now and returns whether it
/// did anything (a worker that polled all its nodes without work spins once).
pub trait VirtualNode<E: Endpoint> {
    /// Handles what has arrived and moves the node's program on.
    fn poll(&mut self, ep: &mut E, ctx: &NodeCtx<'_>) -> Result<bool, RankError>;
}

/// One hosted rank on its worker.
struct Slot<E, N> {
    rank: usize,
    ep: E,
    node: N,
}

/// Rank 0's view of the team: its own node and endpoint, and the ranks its worker
/// hosts besides it.
pub struct Host<'a, E, N> {
    me: Slot<E, N>,
    others: Vec<Slot<E, N>>,
    size: usize,
    cpu: usize,
    control: &'a TeamControl,
    cancel: Option<&'a AtomicBool>,
    /// The rank whose poll failed, if one did.
    fault: Option<usize>,
    /// The requests to wash and the other workers' answers.
    wash: &'a Wash,
    /// Worker 0's own wash buffer.
    washer: Washer,
}

impl<E, N> std::fmt::Debug for Host<'_, E, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("size", &self.size)
            .field("cpu", &self.cpu)
            .field(
                "co_hosted",
                &self.others.iter().map(|s| s.rank).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<'a, E: Endpoint, N: VirtualNode<E>> Host<'a, E, N> {
    /// Rank 0.
    pub fn rank(&self) -> usize {
        0
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The CPU of worker 0.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    /// The team's control block.
    pub fn control(&self) -> &TeamControl {
        self.control
    }

    /// The ranks worker 0 hosts besides rank 0.
    pub fn co_hosted(&self) -> Vec<usize> {
        self.others.iter().map(|s| s.rank).collect()
    }

    /// Rank 0's node and endpoint, for its program's own calls.
    #[inline(always)]
    pub fn parts(&mut self) -> (&mut N, &mut E) {
        (&mut self.me.node, &mut self.me.ep)
    }

    /// A co-hosted rank's node, for inspection between experiments.
    pub fn node(&self, rank: usize) -> Option<&N> {
        if rank == 0 {
            return Some(&self.me.node);
        }
        self.others.iter().find(|s| s.rank == rank).map(|s| &s.node)
    }

    /// Whether the team was stopped (another worker failed) or cancelled.
    #[inline(always)]
    fn stopped(&self) -> Result<(), RankError> {
        // Relaxed: a flag with no data behind it, seen within a poll round.
        if self.control.aborted() || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(RankError::Aborted);
        }
        Ok(())
    }

    /// Polls rank 0's own node once.
    #[inline(always)]
    pub fn poll_self(&mut self) -> Result<bool, RankError> {
        let ctx = NodeCtx {
            rank: 0,
            size: self.size,
            worker: 0,
            cpu: self.cpu,
            control: self.control,
        };
        self.me.node.poll(&mut self.me.ep, &ctx).inspect_err(|_| {
            self.fault = Some(0);
        })
    }

    /// Polls every rank worker 0 hosts besides rank 0, once each; fails when the
    /// team was stopped or cancelled, or with the error of a node (which the team
    /// then names).
    #[inline(always)]
    pub fn poll_others(&mut self) -> Result<bool, RankError> {
        self.stopped()?;
        let mut work = false;
        for s in &mut self.others {
            let ctx = NodeCtx {
                rank: s.rank,
                size: self.size,
                worker: 0,
                cpu: self.cpu,
                control: self.control,
            };
            match s.node.poll(&mut s.ep, &ctx) {
                Ok(w) => work |= w,
                Err(e) => {
                    self.fault = Some(s.rank);
                    return Err(e);
                }
            }
        }
        Ok(work)
    }

    /// [`Host::poll_self`] then [`Host::poll_others`].
    #[inline(always)]
    pub fn poll_all(&mut self) -> Result<bool, RankError> {
        let mine = self.poll_self()?;
        Ok(self.poll_others()? | mine)
    }

    /// Polls everything worker 0 hosts until `ready` gives a value, with the
    /// team's deadline (the error names `peer`, the rank waited for).
    #[inline]
    pub fn wait_until<T>(
        &mut self,
        peer: usize,
        mut ready: impl FnMut(&mut N, &mut E) -> Result<Option<T>, RankError>,
    ) -> Result<T, RankError> {
        let mut polls: u32 = 0;
        let mut started: Option<Instant> = None;
        loop {
            if let Some(v) = ready(&mut self.me.node, &mut self.me.ep)? {
                return Ok(v);
            }
            // Rank 0's own system first, and a look at once if it did something:
            // a message it just took in is not kept waiting behind the polls of
            // the ranks co-hosted with it.
            let mine = self.poll_self()?;
            if mine && let Some(v) = ready(&mut self.me.node, &mut self.me.ep)? {
                return Ok(v);
            }
            if !(self.poll_others()? | mine) {
                crate::primitive::spin_hint();
            }
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(1024) {
                self.control.check(peer, &mut started)?;
            }
        }
    }

    /// Washes every CPU's private caches: worker 0 reads its buffer of
    /// [`HostedSpec::wash_bytes`], then waits ([`Host::wait_until`]: polling
    /// everything it hosts, with the team's deadline) until every other worker has
    /// read its own (each looks every 16 rounds of its loop). Does nothing when
    /// `wash_bytes` is 0.
    ///
    /// Call it where nothing is timed and nothing is in flight: a message arriving
    /// meanwhile waits for its receiver's wash.
    pub fn wash_caches(&mut self) -> Result<(), RankError> {
        if self.wash.bytes == 0 {
            return Ok(());
        }
        // Relaxed: only this thread writes `asked`.
        let n = self.wash.asked.load(Ordering::Relaxed) + 1;
        // Relaxed: a request with no data behind it; the workers see it within a
        // few rounds.
        self.wash.asked.store(n, Ordering::Relaxed);
        self.washer.wash();
        let wash = self.wash;
        for (i, done) in wash.done.iter().enumerate() {
            // Worker `i + 1` hosts rank `i + 1` first. Acquire: pairs with the
            // worker's Release store after its wash.
            self.wait_until(i + 1, |_, _| {
                Ok((done.load(Ordering::Acquire) == n).then_some(()))
            })?;
        }
        Ok(())
    }

    /// The number of the last wash each worker but worker 0 has done (for tests).
    #[cfg(test)]
    fn washes_done(&self) -> Vec<u64> {
        // Relaxed: a count for inspection.
        self.wash
            .done
            .iter()
            .map(|d| d.load(Ordering::Relaxed))
            .collect()
    }
}

impl HostedTeam {
    /// Forms a hosted team: validates the CPUs.
    pub fn new(spec: &HostedSpec) -> Result<HostedTeam, TeamError> {
        check_cpus(&spec.cpus, spec.ranks)?;
        Ok(HostedTeam {
            cpus: spec.cpus.clone(),
            ranks: spec.ranks,
            // Spin: no rank ever parks, so transports never wake one.
            control: TeamControl::new(vec![WaitStrategy::Spin; spec.ranks], spec.wait_timeout),
            cancel: spec.cancel.clone(),
            wash_bytes: spec.wash_bytes,
        })
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.ranks
    }

    /// Number of workers (CPUs).
    pub fn workers(&self) -> usize {
        self.cpus.len()
    }

    /// The worker hosting `rank`.
    pub fn worker_of(&self, rank: usize) -> usize {
        rank % self.cpus.len()
    }

    /// The CPU of each rank.
    pub fn hosts(&self) -> Vec<usize> {
        (0..self.ranks)
            .map(|r| self.cpus[self.worker_of(r)])
            .collect()
    }

    /// [`Placement::Hosted`].
    pub fn placement(&self) -> Placement {
        Placement::Hosted
    }

    /// The control block the transports for this team must share.
    pub fn control(&self) -> &Arc<TeamControl> {
        &self.control
    }

    /// Runs rank 0's `main` on worker 0 and every other rank's node on its worker
    /// until `main` returns; gives `main`'s result. `endpoints[r]` and `nodes[r]`
    /// belong to rank `r` (`nodes[0]` is rank 0's own, polled by
    /// [`Host::poll_self`]).
    pub fn run<E, N, R, F>(
        &self,
        kernel: &str,
        endpoints: Vec<E>,
        nodes: Vec<N>,
        main: F,
    ) -> Result<R, TeamError>
    where
        E: Endpoint,
        N: VirtualNode<E> + Send,
        R: Send,
        F: FnOnce(&mut Host<'_, E, N>) -> Result<R, RankError> + Send,
    {
        for got in [endpoints.len(), nodes.len()] {
            if got != self.ranks {
                return Err(TeamError::EndpointCount {
                    kernel: kernel.into(),
                    got,
                    ranks: self.ranks,
                });
            }
        }
        self.control.rearm();
        let workers = self.workers();
        let mut slots: Vec<Vec<Slot<E, N>>> = (0..workers).map(|_| Vec::new()).collect();
        for (rank, (ep, node)) in endpoints.into_iter().zip(nodes).enumerate() {
            slots[rank % workers].push(Slot { rank, ep, node });
        }
        let stop = AtomicBool::new(false);
        let arrived = AtomicUsize::new(0);
        let control = &*self.control;
        let cancel = self.cancel.as_deref();
        let size = self.ranks;
        let (stop, arrived) = (&stop, &arrived);
        let wash = Wash {
            bytes: self.wash_bytes,
            asked: CachePadded::new(AtomicU64::new(0)),
            done: (1..workers)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        };
        let wash = &wash;
        let shared = Shared {
            control,
            cancel,
            stop,
            arrived,
            size,
            workers,
            wash,
        };
        let shared = &shared;
        type Outcome<T> = Result<T, (usize, RankError)>;
        let (main_outcome, worker_outcomes): (Outcome<R>, Vec<Outcome<()>>) =
            std::thread::scope(|scope| {
                let mut slots = slots.into_iter();
                let mine = slots.next().expect("at least one worker");
                let handles: Vec<_> = slots
                    .enumerate()
                    .map(|(i, hosted)| {
                        let (w, cpu) = (i + 1, self.cpus[i + 1]);
                        std::thread::Builder::new()
                            .name(format!("halfperf-host-{w}"))
                            .spawn_scoped(scope, move || worker(shared, w, cpu, hosted))
                            .expect("spawning a worker thread")
                    })
                    .collect();
                let cpu = self.cpus[0];
                let outcome = std::thread::Builder::new()
                    .name("halfperf-host-0".into())
                    .spawn_scoped(scope, move || {
                        let mut fault = None;
                        let out = catch_unwind(AssertUnwindSafe(|| {
                            pin_current_thread(cpu).map_err(|e| (0, e.into()))?;
                            // After pinning: its pages are first touched on this CPU.
                            let washer = Washer::new(wash.bytes);
                            super::start_gate(control, arrived, workers).map_err(|e| (0, e))?;
                            let mut it = mine.into_iter();
                            let me = it.next().expect("rank 0 is on worker 0");
                            let mut host = Host {
                                me,
                                others: it.collect(),
                                size,
                                cpu,
                                control,
                                cancel,
                                fault: None,
                                wash,
                                washer,
                            };
                            let r = main(&mut host);
                            fault = host.fault;
                            r.map_err(|e| (host.fault.unwrap_or(0), e))
                        }))
                        .unwrap_or_else(|p| {
                            Err((fault.unwrap_or(0), RankError::Panicked(panic_message(&*p))))
                        });
                        if out.is_err() {
                            control.abort();
                        }
                        // Relaxed: the workers only need to see it eventually; the
                        // scope's join orders everything else.
                        stop.store(true, Ordering::Relaxed);
                        out
                    })
                    .expect("spawning worker 0");
                let main_outcome = outcome
                    .join()
                    .unwrap_or_else(|p| Err((0, RankError::Panicked(panic_message(&*p)))));
                let rest = handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|p| Err((0, RankError::Panicked(panic_message(&*p)))))
                    })
                    .collect();
                (main_outcome, rest)
            });
        // Relaxed: read after the scope joined every thread.
        let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        settle(kernel, main_outcome, worker_outcomes, cancelled)
    }
}

/// A run's result from rank 0's outcome and the workers': `main`'s value
/// where every rank succeeded; else the error of the rank that caused the
/// failure (the lowest rank among equal causes), or `Cancelled` where the
/// user's cancel (`cancelled`) aborted the run.
fn settle<R>(
    kernel: &str,
    main_outcome: Result<R, (usize, RankError)>,
    worker_outcomes: Vec<Result<(), (usize, RankError)>>,
    cancelled: bool,
) -> Result<R, TeamError> {
    let mut failure: Option<(usize, RankError)> = None;
    let mut consider = |f: (usize, RankError)| {
        let better = failure.as_ref().is_none_or(|(r, e)| {
            f.1.cause_rank() > e.cause_rank() || (f.1.cause_rank() == e.cause_rank() && f.0 < *r)
        });
        if better {
            failure = Some(f);
        }
    };
    let result = match main_outcome {
        Ok(r) => Some(r),
        Err(f) => {
            consider(f);
            None
        }
    };
    for w in worker_outcomes {
        if let Err(f) = w {
            consider(f);
        }
    }
    match (result, failure) {
        (Some(r), None) => Ok(r),
        (_, Some((_, RankError::Aborted))) | (None, None) if cancelled => {
            Err(TeamError::Cancelled {
                kernel: kernel.into(),
            })
        }
        (_, Some((rank, error))) => Err(TeamError::Rank {
            kernel: kernel.into(),
            rank,
            error,
        }),
        (None, None) => unreachable!("rank 0 failed without an error"),
    }
}

/// What every worker of one run shares.
struct Shared<'a> {
    control: &'a TeamControl,
    cancel: Option<&'a AtomicBool>,
    /// Raised when rank 0's program has ended.
    stop: &'a AtomicBool,
    /// The start gate's count.
    arrived: &'a AtomicUsize,
    size: usize,
    workers: usize,
    wash: &'a Wash,
}

/// Rank 0's requests to wash the caches, and the other workers' answers.
struct Wash {
    /// What each worker reads, bytes.
    bytes: usize,
    /// The number of the last wash rank 0 asked for (0: none yet).
    asked: CachePadded<AtomicU64>,
    /// The number of the last wash each worker but worker 0 did (index `w - 1`).
    done: Vec<CachePadded<AtomicU64>>,
}

/// A buffer that a worker reads end to end to wash its CPU's private caches.
struct Washer {
    bytes: LineAligned<u8>,
}

impl Washer {
    /// A buffer of `len` bytes, every one written, so that its pages are its own
    /// and not the zero page that untouched memory reads from.
    fn new(len: usize) -> Washer {
        Washer {
            bytes: LineAligned::from_fn(len, |i| (i as u8) | 1),
        }
    }

    /// Reads one byte of every cache line: each line of the buffer goes into the
    /// CPU's caches, and as many of what they held go out.
    #[inline(never)]
    fn wash(&self) {
        let mut sum = 0u8;
        for line in self.bytes.chunks(crate::platform::LINE) {
            sum = sum.wrapping_add(line[0]);
        }
        black_box(sum);
    }
}

/// The poll loop of worker `w` (not 0): polls its ranks' nodes in turn until rank
/// 0's program ends, the team is stopped, or the run is cancelled.
fn worker<E: Endpoint, N: VirtualNode<E>>(
    sh: &Shared<'_>,
    w: usize,
    cpu: usize,
    mut hosted: Vec<Slot<E, N>>,
) -> Result<(), (usize, RankError)> {
    let control = sh.control;
    let mut current = hosted.first().map_or(w, |s| s.rank);
    let out = catch_unwind(AssertUnwindSafe(|| -> Result<(), (usize, RankError)> {
        pin_current_thread(cpu).map_err(|e| (current, e.into()))?;
        // After pinning: its pages are first touched on this CPU.
        let washer = Washer::new(sh.wash.bytes);
        let mut washed = 0u64;
        super::start_gate(control, sh.arrived, sh.workers).map_err(|e| (current, e))?;
        let mut rounds: u32 = 0;
        loop {
            let mut work = false;
            for s in &mut hosted {
                current = s.rank;
                let ctx = NodeCtx {
                    rank: s.rank,
                    size: sh.size,
                    worker: w,
                    cpu,
                    control,
                };
                work |= s.node.poll(&mut s.ep, &ctx).map_err(|e| (s.rank, e))?;
            }
            rounds = rounds.wrapping_add(1);
            // Relaxed: flags with no data behind them, checked every 16 rounds (a
            // few microseconds at most).
            if rounds.is_multiple_of(16) {
                if sh.stop.load(Ordering::Relaxed)
                    || control.aborted()
                    || sh.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
                {
                    return if control.aborted() {
                        Err((current, RankError::Aborted))
                    } else {
                        Ok(())
                    };
                }
                // Relaxed: a request with no data behind it.
                let asked = sh.wash.asked.load(Ordering::Relaxed);
                if asked != washed {
                    washer.wash();
                    washed = asked;
                    // Release: pairs with rank 0's Acquire load, so that this
                    // worker's wash happens before what rank 0 does next.
                    sh.wash.done[w - 1].store(asked, Ordering::Release);
                }
            }
            if !work {
                crate::primitive::spin_hint();
            }
        }
    }))
    .unwrap_or_else(|p| Err((current, RankError::Panicked(panic_message(&*p)))));
    if out.is_err() {
        control.abort();
    }
    out
}

/// A mailroom alone is a forwarding node: polling it pumps it.
impl<E: Endpoint> VirtualNode<E> for Mailroom {
    #[inline]
    fn poll(&mut self, ep: &mut E, _ctx: &NodeCtx<'_>) -> Result<bool, RankError> {
        self.pump(ep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::channel::Channel;
    use crate::transport::mailbox::Mailbox;
    use crate::transport::{Transport, TransportConfig};

    const RANKS: usize = 6;
    const MAX: usize = 3000;

    /// The workers spin: two teams at once would share CPUs between spinning
    /// threads, so these tests run one at a time.
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        SERIAL.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn spec(timeout: Duration, cancel: Option<Arc<AtomicBool>>) -> HostedSpec {
        HostedSpec {
            cpus: crate::platform::allowed_cpus()
                .into_iter()
                .take(2)
                .collect(),
            ranks: RANKS,
            wait_timeout: timeout,
            cancel,
            wash_bytes: 0,
        }
    }

    /// Message `i`: its number, then bytes that depend on it and the position.
    fn message(i: u32, buf: &mut [u8]) -> usize {
        let len = 4 + (i as usize * 97) % (MAX - 4);
        buf[..4].copy_from_slice(&i.to_le_bytes());
        for (j, b) in buf[4..len].iter_mut().enumerate() {
            *b = ((i as usize + j) % 251) as u8;
        }
        len
    }

    fn check(i: u32, got: &[u8]) -> Result<(), RankError> {
        let mut want = vec![0u8; MAX];
        let len = message(i, &mut want);
        if got != &want[..len] {
            return Err(RankError::Failed(format!(
                "message {i}: {} bytes, not the {len} sent, or its payload differs",
                got.len()
            )));
        }
        Ok(())
    }

    enum TestNode {
        /// A forwarding node (or rank 0's mailroom).
        Room(Mailroom),
        /// The end of the chain: checks each message in order and sends it back.
        Echo {
            room: Mailroom,
            buf: Vec<u8>,
            next: u32,
        },
        /// Fails at its first poll.
        Faulty,
    }

    impl<E: Endpoint> VirtualNode<E> for TestNode {
        fn poll(&mut self, ep: &mut E, ctx: &NodeCtx<'_>) -> Result<bool, RankError> {
            match self {
                TestNode::Room(room) => room.pump(ep),
                TestNode::Echo { room, buf, next } => {
                    let mut work = room.pump(ep)?;
                    if let Some(n) = room.take(ctx.rank - 1, buf)? {
                        check(*next, &buf[..n])?;
                        *next += 1;
                        room.post(ctx.rank - 1, &buf[..n])?;
                        work = true;
                    }
                    Ok(work)
                }
                TestNode::Faulty => Err(RankError::Failed("injected fault".into())),
            }
        }
    }

    fn chain_nodes(messages: u64) -> Vec<TestNode> {
        (0..RANKS)
            .map(|r| {
                let mut room = Mailroom::new(r, RANKS, 8, MAX);
                if r == RANKS - 1 {
                    return TestNode::Echo {
                        room,
                        buf: vec![0; MAX],
                        next: 0,
                    };
                }
                if r > 0 {
                    room.route(r - 1, r + 1, messages).unwrap();
                    room.route(r + 1, r - 1, messages).unwrap();
                }
                TestNode::Room(room)
            })
            .collect()
    }

    /// Rank 0 sends `messages` down the chain, three in flight, and checks each
    /// echo in order; returns how many came back.
    fn drive<E: Endpoint>(
        host: &mut Host<'_, E, TestNode>,
        messages: u32,
    ) -> Result<u32, RankError> {
        let mut out = vec![0u8; MAX];
        let mut inbuf = vec![0u8; MAX];
        let (mut sent, mut back) = (0u32, 0u32);
        while back < messages {
            while sent < messages && sent < back + 3 {
                let len = message(sent, &mut out);
                let (TestNode::Room(room), _) = host.parts() else {
                    unreachable!("rank 0 has a mailroom")
                };
                room.post(1, &out[..len])?;
                sent += 1;
            }
            let n = host.wait_until(1, |node, _| match node {
                TestNode::Room(room) => room.take(1, &mut inbuf),
                _ => unreachable!("rank 0 has a mailroom"),
            })?;
            check(back, &inbuf[..n])?;
            back += 1;
        }
        Ok(back)
    }

    /// Rank 0 sends the next message down the chain and waits for its echo.
    fn drive_one<E: Endpoint>(host: &mut Host<'_, E, TestNode>) -> Result<(), RankError> {
        let mut buf = vec![0u8; MAX];
        let (TestNode::Room(room), _) = host.parts() else {
            unreachable!("rank 0 has a mailroom")
        };
        let i = u32::try_from(room.transmitted()).expect("few messages");
        let len = message(i, &mut buf);
        room.post(1, &buf[..len])?;
        let n = host.wait_until(1, |node, _| match node {
            TestNode::Room(room) => room.take(1, &mut buf),
            _ => unreachable!("rank 0 has a mailroom"),
        })?;
        check(i, &buf[..n])
    }

    fn chain_on<T: Transport>() {
        let _serial = one_at_a_time();
        const N: u32 = 300;
        let team = HostedTeam::new(&spec(Duration::from_secs(20), None)).unwrap();
        assert_eq!(team.placement(), Placement::Hosted);
        let eps = T::endpoints(team.control(), &TransportConfig::for_messages(MAX));
        let back = team
            .run("hosted-chain", eps, chain_nodes(u64::from(N)), |host| {
                drive(host, N)
            })
            .unwrap();
        assert_eq!(back, N);
    }

    #[test]
    fn ranks_alternate_over_the_workers() {
        let team = HostedTeam::new(&HostedSpec {
            cpus: vec![4, 7],
            ..spec(Duration::from_secs(1), None)
        })
        .unwrap();
        assert_eq!(team.hosts(), vec![4, 7, 4, 7, 4, 7]);
        assert_eq!(team.worker_of(5), 1);
        assert!(matches!(
            HostedTeam::new(&HostedSpec {
                cpus: vec![1, 1],
                ..spec(Duration::from_secs(1), None)
            }),
            Err(TeamError::RepeatedCpu(1))
        ));
    }

    #[test]
    fn a_chain_of_six_hosted_ranks_forwards_in_order_over_the_mailbox() {
        chain_on::<Mailbox>();
    }

    #[test]
    fn a_chain_of_six_hosted_ranks_forwards_in_order_over_channels() {
        chain_on::<Channel>();
    }

    /// Every worker washes when rank 0 asks, and rank 0 goes on only after all
    /// have, between messages that still arrive in order; with `wash_bytes` 0 no
    /// worker is asked.
    #[test]
    fn a_wash_returns_once_every_worker_has_washed() {
        let _serial = one_at_a_time();
        for bytes in [96 * 1024, 0] {
            let team = HostedTeam::new(&HostedSpec {
                wash_bytes: bytes,
                ..spec(Duration::from_secs(20), None)
            })
            .unwrap();
            let eps = Mailbox::endpoints(team.control(), &TransportConfig::for_messages(MAX));
            let done = team
                .run("hosted-wash", eps, chain_nodes(5), |host| {
                    let mut seen = Vec::new();
                    for _ in 0..5 {
                        drive_one(host)?;
                        host.wash_caches()?;
                        seen.push(host.washes_done());
                    }
                    Ok(seen)
                })
                .unwrap();
            let others = team.workers() - 1;
            let want: Vec<Vec<u64>> = (1..=5u64)
                .map(|i| vec![if bytes > 0 { i } else { 0 }; others])
                .collect();
            assert_eq!(done, want, "{bytes} bytes");
        }
    }

    /// A wash that a failed worker can never answer ends in that failure.
    #[test]
    fn a_wash_in_a_failed_team_ends_in_an_error() {
        let _serial = one_at_a_time();
        let team = HostedTeam::new(&HostedSpec {
            wash_bytes: 4096,
            ..spec(Duration::from_secs(20), None)
        })
        .unwrap();
        let eps = Channel::endpoints(team.control(), &TransportConfig::for_messages(MAX));
        let mut nodes = chain_nodes(0);
        nodes[1] = TestNode::Faulty;
        let started = Instant::now();
        let err = team
            .run(
                "hosted-wash-fault",
                eps,
                nodes,
                |host| -> Result<(), RankError> {
                    loop {
                        host.wash_caches()?;
                    }
                },
            )
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10), "{err}");
        assert!(err.to_string().contains("rank 1"), "{err}");
    }

    /// A node's error ends the team with an error naming that rank, whether its
    /// worker is another (rank 3) or rank 0's own (rank 2, polled by rank 0).
    #[test]
    fn an_error_in_a_hosted_rank_ends_the_team_naming_it() {
        let _serial = one_at_a_time();
        for faulty in [3usize, 2] {
            let team = HostedTeam::new(&spec(Duration::from_secs(20), None)).unwrap();
            let eps = Mailbox::endpoints(team.control(), &TransportConfig::for_messages(MAX));
            let mut nodes = chain_nodes(10);
            nodes[faulty] = TestNode::Faulty;
            let started = Instant::now();
            let err = team
                .run("hosted-fault", eps, nodes, |host| drive(host, 10))
                .unwrap_err();
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the fault must end the run before the deadline"
            );
            match &err {
                TeamError::Rank { rank, error, .. } => {
                    assert_eq!(*rank, faulty, "{err}");
                    assert!(error.to_string().contains("injected fault"), "{err}");
                }
                other => panic!("unexpected {other}"),
            }
            assert!(err.to_string().contains(&format!("rank {faulty}")));
        }
    }

    #[test]
    fn a_lost_peer_ends_in_a_deadline_naming_it() {
        let _serial = one_at_a_time();
        let team = HostedTeam::new(&spec(Duration::from_millis(200), None)).unwrap();
        let eps = Channel::endpoints(team.control(), &TransportConfig::for_messages(MAX));
        let err = team
            .run("hosted-deadline", eps, chain_nodes(0), |host| {
                host.wait_until(4, |_, _| Ok(None::<()>))
            })
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("rank 0") && text.contains("rank 4") && text.contains("deadline"),
            "{text}"
        );
    }

    #[test]
    fn cancellation_ends_the_run() {
        let _serial = one_at_a_time();
        let cancel = Arc::new(AtomicBool::new(false));
        let team =
            HostedTeam::new(&spec(Duration::from_secs(30), Some(Arc::clone(&cancel)))).unwrap();
        let eps = Mailbox::endpoints(team.control(), &TransportConfig::for_messages(MAX));
        let started = Instant::now();
        let err = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(50));
                // Relaxed: a flag with no data behind it.
                cancel.store(true, Ordering::Relaxed);
            });
            team.run("hosted-cancel", eps, chain_nodes(0), |host| {
                host.wait_until(1, |_, _| Ok(None::<()>))
            })
            .unwrap_err()
        });
        assert!(matches!(err, TeamError::Cancelled { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
