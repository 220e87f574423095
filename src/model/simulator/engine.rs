//! Event handling of the simulator (the model is described in the parent module).
#![forbid(unsafe_code)]

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Exp1, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::queue::{ChannelQueue, ChannelSpill, EventKind, EventQueue, IDLE, RingArena, ShortFifo};
use crate::platform::prefetch;

use super::{BurstDist, ChannelOrder, ReceiveAt, Receivers, Router, SendHold, SimConfig};

/// Draws of a burst rejected before falling back to the mean (reached only in
/// degenerate cases such as zero remaining work).
const MAX_REDRAWS: u32 = 1000;

/// How many places ahead in a lane of the event queue [`Engine::look_ahead`]
/// fetches a node's lines ...
const FAR: usize = 16;
/// ... and what they point to: far enough for a miss to the last-level cache
/// (hundreds of cycles at some tens of cycles an event), near enough for the
/// lines to stay in L1 until used.
const NEAR: usize = 8;
/// Size of the nodes' lines above which the engine looks ahead: below, they and
/// the queues stay in a core's L2 cache and fetching ahead only costs
/// instructions (256 nodes ran some 8 % slower with it, 2048 faster).
const LOOK_AHEAD_FROM_BYTES: usize = 256 << 10;

/// What a task's processor time is currently spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Activity {
    Burst,
    Startup,
    Finished,
}

/// One node's state, three cache lines: the task and the processor's message
/// work in the first, the channel's state and the head of its queue in the
/// second, the tail of its queue in the third, so that an event touches one or
/// two lines of each node it concerns (the nodes of a 4096-node machine take
/// 768 KiB, within a core's L2; its queues' middles are kept apart).
#[derive(Debug)]
#[repr(C, align(64))]
struct Node {
    /// Remaining time of the current activity while it is not running, ms.
    left_ms: f64,
    /// Completion time of the current activity while it runs, ms.
    end_ms: f64,
    /// Messages waiting for this node's processor, by destination: intermediate-node
    /// work (`t_i`) or, at their destination, the receive (`OVERHEAD`), in order of
    /// arrival (Appendix B `PREEMPT` on files 33-64, which no `PRIORITY` ranks).
    forward_queue: ShortFifo,
    work_left_ms: f64,
    bursts_left: u32,
    /// Messages of the current burst already started.
    sent_in_burst: u32,
    activity: Activity,
    running: bool,
    /// Whether a `TaskStep` event of this node is in the queue. Pre-emption only
    /// delays an activity, so that event is never late; at most one is kept.
    step_pending: bool,
    forwarding: bool,
    /// The message on the channel and the destinations of those waiting for it:
    /// the smallest rank first, ties in order of arrival (see [`ChannelOrder`]).
    /// The second and third lines.
    channel_queue: ChannelQueue,
}

/// A destination node as the per-node queues store it: two bytes, so that the
/// queues of a large machine stay in cache (their size bounds the event rate).
type Dest = u16;
const _: () = assert!(super::MAX_NODES <= 1 << Dest::BITS);
const _: () = assert!(std::mem::size_of::<Node>() == 192);
const _: () = assert!(std::mem::offset_of!(Node, channel_queue) == 64);

/// Totals of one run.
pub(super) struct Outcome {
    /// Time at which the process ended, ms.
    pub(super) end_ms: f64,
    pub(super) events: u64,
    pub(super) messages: u64,
    pub(super) hops: u64,
}

struct Engine<'a> {
    config: &'a SimConfig,
    router: Router,
    nodes: Vec<Node>,
    /// Per node, the parts of its channel queue touched now and then.
    spills: Vec<ChannelSpill>,
    /// The entries of the channel queues' middles.
    arena: RingArena,
    /// For `Receivers::Count`, per node: a permutation of the other nodes, the
    /// first `r` of which are the current burst's receivers.
    others: Vec<Vec<u32>>,
    queue: EventQueue,
    rng: Xoshiro256PlusPlus,
    receivers: u32,
    link_ms: f64,
    /// Processor time of a send start-up at the sender, ms.
    startup_ms: f64,
    /// Processor time of a receive at the destination, ms (0: none).
    receive_ms: f64,
    /// Coefficient of variation of the normal bursts.
    burst_cv: f64,
    outcome: Outcome,
}

/// Simulates the process described by a validated configuration.
pub(super) fn run(config: &SimConfig, router: Router) -> Outcome {
    let mut engine = Engine::new(config, router);
    for v in 0..config.nodes {
        engine.start_burst(v, 0.0);
    }
    if std::mem::size_of::<Node>() * config.nodes as usize > LOOK_AHEAD_FROM_BYTES {
        engine.drain::<true>();
    } else {
        engine.drain::<false>();
    }
    engine.outcome
}

impl<'a> Engine<'a> {
    fn new(config: &'a SimConfig, router: Router) -> Self {
        let n = config.nodes;
        let node_mean_ms = config.uniprocessor_ms / f64::from(n);
        let sigma_ms = config.burst_dist.sigma_ms();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
        let with_table = matches!(config.receivers, Receivers::Count(_));
        let nodes = (0..n)
            .map(|_| {
                let z: f64 = StandardNormal.sample(&mut rng);
                Node {
                    activity: Activity::Finished,
                    left_ms: 0.0,
                    end_ms: 0.0,
                    running: false,
                    step_pending: false,
                    bursts_left: config.bursts,
                    work_left_ms: (node_mean_ms + sigma_ms * z).max(0.0),
                    sent_in_burst: 0,
                    forward_queue: ShortFifo::default(),
                    forwarding: false,
                    channel_queue: ChannelQueue::default(),
                }
            })
            .collect();
        let others = if with_table {
            (0..n)
                .map(|v| (0..n).filter(|&w| w != v).collect())
                .collect()
        } else {
            Vec::new()
        };
        let link_ms = f64::from(config.message_bytes) * config.costs.tc_ms_per_byte;
        let startup_ms = match config.costs.receive_at {
            ReceiveAt::Sender => config.costs.tl_ms + config.costs.receive_ms,
            ReceiveAt::Destination => config.costs.tl_ms,
        };
        let receive_ms = match config.costs.receive_at {
            ReceiveAt::Sender => 0.0,
            ReceiveAt::Destination => config.costs.receive_ms,
        };
        Self {
            config,
            router,
            nodes,
            spills: (0..n).map(|_| ChannelSpill::default()).collect(),
            arena: RingArena::default(),
            others,
            // Every delay the engine schedules after the present but a burst's
            // and a pre-empted activity's remainder.
            queue: EventQueue::with_lanes(&[link_ms, config.costs.ti_ms, receive_ms, startup_ms]),
            rng,
            receivers: config.receivers_per_burst(),
            link_ms,
            startup_ms,
            receive_ms,
            burst_cv: if node_mean_ms > 0.0 {
                sigma_ms / node_mean_ms
            } else {
                0.0
            },
            outcome: Outcome {
                end_ms: 0.0,
                events: 0,
                messages: 0,
                hops: 0,
            },
        }
    }

    /// Takes and handles events until none is left, looking ahead or not.
    fn drain<const LOOK_AHEAD: bool>(&mut self) {
        while let Some(event) = self.queue.pop() {
            if LOOK_AHEAD {
                self.look_ahead();
            }
            self.handle(event.node, event.kind, event.time_ms);
        }
    }

    /// Fetches the lines that events a few pops ahead will touch, so that their
    /// misses overlap the handling of the events before (at 4096 nodes the nodes'
    /// lines and the rings' middles do not fit a core's L2): a node's lines
    /// [`FAR`] places ahead, and [`NEAR`] places ahead what those lines point
    /// to, the next node of a message leaving a channel and the ring entries of
    /// a channel's next pop or push.
    #[inline(always)]
    fn look_ahead(&self) {
        if let Some(e) = self.queue.ahead(FAR) {
            let node = &self.nodes[e.node as usize];
            if e.kind != EventKind::ChannelDone {
                prefetch(node);
            }
            node.channel_queue.prefetch();
        }
        if let Some(e) = self.queue.ahead(NEAR) {
            let v = e.node as usize;
            let channel = &self.nodes[v].channel_queue;
            if e.kind == EventKind::ChannelDone {
                channel.prefetch_pop(&self.spills[v], &self.arena);
                if channel.transmitting != IDLE {
                    let w = self
                        .router
                        .next_hop(e.node, u32::from(channel.transmitting));
                    prefetch(&self.nodes[w as usize]);
                }
            } else {
                channel.prefetch_push(&self.spills[v], &self.arena);
            }
        }
    }

    #[inline(always)]
    fn handle(&mut self, v: u32, kind: EventKind, now: f64) {
        match kind {
            EventKind::TaskStep => {
                let node = &mut self.nodes[v as usize];
                node.step_pending = false;
                if !node.running {
                    return; // pre-empted: `resume` schedules the step again
                }
                if node.end_ms > now {
                    // Pre-empted and resumed since this event was scheduled.
                    node.step_pending = true;
                    self.queue.push(node.end_ms, v, EventKind::TaskStep);
                    return;
                }
                node.running = false;
                self.task_step(v, now);
            }
            EventKind::ChannelDone => self.channel_done(v, now),
            EventKind::ForwardDone => self.forward_done(v, now),
        }
        self.outcome.events += 1;
    }

    // ---- task: bursts and send start-ups -------------------------------------------

    fn task_step(&mut self, v: u32, now: f64) {
        match self.nodes[v as usize].activity {
            Activity::Burst => {
                self.choose_receivers(v);
                self.nodes[v as usize].sent_in_burst = 0;
                self.next_send_or_burst(v, now);
            }
            Activity::Startup => {
                let i = self.nodes[v as usize].sent_in_burst;
                let destination = self.receiver(v, i);
                self.nodes[v as usize].sent_in_burst = i + 1;
                self.outcome.messages += 1;
                self.enqueue_channel(v, destination, now);
                self.next_send_or_burst(v, now);
            }
            Activity::Finished => {}
        }
    }

    fn next_send_or_burst(&mut self, v: u32, now: f64) {
        let node = &self.nodes[v as usize];
        if node.sent_in_burst < self.receivers {
            self.begin(v, Activity::Startup, self.startup_ms, now);
            return;
        }
        // The task frees its node (Appendix B `REL`): messages that waited for it go
        // first (file 33-64 is allocated before the task's `AWAIT` file 65-96).
        let bursts_left = node.bursts_left;
        self.nodes[v as usize].activity = Activity::Finished;
        self.start_message_work(v, now);
        if bursts_left > 0 {
            self.start_burst(v, now);
        } else {
            self.outcome.end_ms = self.outcome.end_ms.max(now);
        }
    }

    fn start_burst(&mut self, v: u32, now: f64) {
        let burst_ms = self.draw_burst(v);
        self.begin(v, Activity::Burst, burst_ms, now);
    }

    /// Takes the next burst out of the node's remaining work (module docs).
    fn draw_burst(&mut self, v: u32) -> f64 {
        let node = &mut self.nodes[v as usize];
        let left = node.bursts_left;
        node.bursts_left -= 1;
        let remaining = node.work_left_ms;
        let burst = if left == 1 {
            remaining
        } else {
            let mean = remaining / f64::from(left);
            let sd = self.burst_cv * mean;
            let dist = self.config.burst_dist;
            let rng = &mut self.rng;
            let mut draw = || match dist {
                BurstDist::Normal { .. } => {
                    let z: f64 = StandardNormal.sample(rng);
                    mean + sd * z
                }
                BurstDist::Exponential { .. } => {
                    let e: f64 = Exp1.sample(rng);
                    mean * e
                }
            };
            (0..MAX_REDRAWS)
                .map(|_| draw())
                .find(|&x| x >= 0.0 && x < remaining)
                .unwrap_or(mean)
        };
        self.nodes[v as usize].work_left_ms = remaining - burst;
        burst
    }

    fn choose_receivers(&mut self, v: u32) {
        if let Receivers::Count(r) = self.config.receivers {
            let others = &mut self.others[v as usize];
            let n = others.len();
            for i in 0..r as usize {
                let j = self.rng.random_range(i..n);
                others.swap(i, j);
            }
        }
    }

    /// Destination of the `i`-th message of the current burst.
    fn receiver(&self, v: u32, i: u32) -> u32 {
        match self.config.receivers {
            Receivers::All if i < v => i,
            Receivers::All => i + 1,
            Receivers::Count(_) => self.others[v as usize][i as usize],
        }
    }

    /// Starts a task activity of `duration_ms` on a processor that is not forwarding.
    fn begin(&mut self, v: u32, activity: Activity, duration_ms: f64, now: f64) {
        let node = &mut self.nodes[v as usize];
        node.activity = activity;
        node.left_ms = duration_ms;
        self.resume(v, now);
    }

    /// Whether the current activity runs beside the node's message work instead of
    /// on the node (start-ups with [`SendHold::Beside`]).
    fn beside_the_node(&self, v: u32) -> bool {
        self.config.costs.send_hold == SendHold::Beside
            && self.nodes[v as usize].activity == Activity::Startup
    }

    /// Whether arriving messages must wait for the task to free the node (start-ups
    /// with [`SendHold::Held`]).
    fn held_by_sends(&self, v: u32) -> bool {
        self.config.costs.send_hold == SendHold::Held
            && self.nodes[v as usize].activity == Activity::Startup
    }

    fn resume(&mut self, v: u32, now: f64) {
        let beside = self.beside_the_node(v);
        let node = &mut self.nodes[v as usize];
        if node.activity == Activity::Finished || node.running || (node.forwarding && !beside) {
            return;
        }
        node.running = true;
        node.end_ms = now + node.left_ms;
        if !node.step_pending {
            node.step_pending = true;
            self.queue
                .push_after(now, node.left_ms, v, EventKind::TaskStep);
        }
    }

    fn preempt(&mut self, v: u32, now: f64) {
        if self.beside_the_node(v) {
            return;
        }
        let node = &mut self.nodes[v as usize];
        if node.running {
            node.running = false;
            node.left_ms = node.end_ms - now;
        }
    }

    // ---- network --------------------------------------------------------------------

    fn enqueue_channel(&mut self, v: u32, destination: u32, now: f64) {
        let rank = match self.config.costs.channel_order {
            ChannelOrder::Dimension => self.router.dimension(v, destination),
            ChannelOrder::Fifo => 0,
        };
        let channel = &mut self.nodes[v as usize].channel_queue;
        if channel.transmitting == IDLE {
            channel.transmitting = destination as Dest;
            self.queue
                .push_after(now, self.link_ms, v, EventKind::ChannelDone);
        } else {
            channel.push(
                rank,
                destination,
                &mut self.spills[v as usize],
                &mut self.arena,
            );
        }
    }

    fn channel_done(&mut self, v: u32, now: f64) {
        let channel = &mut self.nodes[v as usize].channel_queue;
        let destination = u32::from(channel.transmitting);
        assert!(
            channel.transmitting != IDLE,
            "a transmitting channel has a message"
        );
        channel.transmitting = IDLE;
        if let Some(next) = channel.pop(&mut self.spills[v as usize], &self.arena) {
            channel.transmitting = next as Dest;
            self.queue
                .push_after(now, self.link_ms, v, EventKind::ChannelDone);
        }
        self.outcome.hops += 1;
        let next = self.router.next_hop(v, destination);
        self.arrive(next, destination, now);
    }

    /// Processor time node `w` spends on a message for `destination`.
    fn message_work_ms(&self, w: u32, destination: u32) -> f64 {
        if w == destination {
            self.receive_ms
        } else {
            self.config.costs.ti_ms
        }
    }

    fn arrive(&mut self, w: u32, destination: u32, now: f64) {
        if w == destination && self.receive_ms == 0.0 {
            self.outcome.end_ms = self.outcome.end_ms.max(now);
            return;
        }
        self.nodes[w as usize]
            .forward_queue
            .push(destination as Dest);
        if !self.held_by_sends(w) {
            self.start_message_work(w, now);
        }
    }

    /// Starts the processor on the message at the head of the node's forward queue,
    /// pre-empting its task, unless it is busy with messages already.
    fn start_message_work(&mut self, w: u32, now: f64) {
        let node = &self.nodes[w as usize];
        let Some(destination) = node.forward_queue.front() else {
            return;
        };
        let destination = u32::from(destination);
        if node.forwarding {
            return;
        }
        let work_ms = self.message_work_ms(w, destination);
        self.preempt(w, now);
        self.nodes[w as usize].forwarding = true;
        self.queue
            .push_after(now, work_ms, w, EventKind::ForwardDone);
    }

    fn forward_done(&mut self, w: u32, now: f64) {
        let node = &mut self.nodes[w as usize];
        let destination = u32::from(
            node.forward_queue
                .pop()
                .expect("a forwarding node has a message"),
        );
        match node.forward_queue.front().map(u32::from) {
            None => {
                node.forwarding = false;
                self.resume(w, now);
            }
            Some(next) => {
                let work_ms = self.message_work_ms(w, next);
                self.queue
                    .push_after(now, work_ms, w, EventKind::ForwardDone);
            }
        }
        if w == destination {
            self.outcome.end_ms = self.outcome.end_ms.max(now);
        } else {
            self.enqueue_channel(w, destination, now);
        }
    }
}
