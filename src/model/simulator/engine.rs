//! Event handling of the simulator (the model is described in the parent module).
#![forbid(unsafe_code)]

use std::collections::VecDeque;

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Exp1, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::queue::{EventKind, EventQueue};
use super::{BurstDist, Receivers, Router, SimConfig};

/// Draws of a burst rejected before falling back to the mean (reached only in
/// degenerate cases such as zero remaining work).
const MAX_REDRAWS: u32 = 1000;

/// What a task's processor time is currently spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Activity {
    Burst,
    Startup,
    Finished,
}

#[derive(Debug)]
struct Node {
    activity: Activity,
    /// Remaining time of the current activity while it is not running, ms.
    left_ms: f64,
    /// Completion time of the current activity while it runs, ms.
    end_ms: f64,
    running: bool,
    /// Whether a `TaskStep` event of this node is in the queue. Pre-emption only
    /// delays an activity, so that event is never late; at most one is kept.
    step_pending: bool,
    bursts_left: u32,
    work_left_ms: f64,
    /// Messages of the current burst already started.
    sent_in_burst: u32,
    /// Messages waiting for this node's processor (intermediate-node work).
    forward_queue: VecDeque<u32>,
    forwarding: bool,
    /// Messages waiting for this node's channel, by destination.
    channel_queue: VecDeque<u32>,
    transmitting: bool,
    /// For `Receivers::Count`: a permutation of the other nodes, the first `r` of
    /// which are the current burst's receivers.
    others: Vec<u32>,
}

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
    queue: EventQueue,
    rng: Xoshiro256PlusPlus,
    receivers: u32,
    link_ms: f64,
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
    while let Some(event) = engine.queue.pop() {
        engine.handle(event.node, event.kind, event.time_ms);
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
            .map(|v| {
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
                    forward_queue: VecDeque::new(),
                    forwarding: false,
                    channel_queue: VecDeque::new(),
                    transmitting: false,
                    others: if with_table {
                        (0..n).filter(|&w| w != v).collect()
                    } else {
                        Vec::new()
                    },
                }
            })
            .collect();
        Self {
            config,
            router,
            nodes,
            queue: EventQueue::default(),
            rng,
            receivers: config.receivers_per_burst(),
            link_ms: f64::from(config.message_bytes) * config.tc_ms_per_byte,
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
            self.begin(v, Activity::Startup, self.config.tl_ms, now);
        } else if node.bursts_left > 0 {
            self.start_burst(v, now);
        } else {
            self.nodes[v as usize].activity = Activity::Finished;
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
            let others = &mut self.nodes[v as usize].others;
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
            Receivers::Count(_) => self.nodes[v as usize].others[i as usize],
        }
    }

    /// Starts a task activity of `duration_ms` on a processor that is not forwarding.
    fn begin(&mut self, v: u32, activity: Activity, duration_ms: f64, now: f64) {
        let node = &mut self.nodes[v as usize];
        node.activity = activity;
        node.left_ms = duration_ms;
        self.resume(v, now);
    }

    fn resume(&mut self, v: u32, now: f64) {
        let node = &mut self.nodes[v as usize];
        if node.activity == Activity::Finished || node.running || node.forwarding {
            return;
        }
        node.running = true;
        node.end_ms = now + node.left_ms;
        if !node.step_pending {
            node.step_pending = true;
            self.queue.push(node.end_ms, v, EventKind::TaskStep);
        }
    }

    fn preempt(&mut self, v: u32, now: f64) {
        let node = &mut self.nodes[v as usize];
        if node.running {
            node.running = false;
            node.left_ms = node.end_ms - now;
        }
    }

    // ---- network --------------------------------------------------------------------

    fn enqueue_channel(&mut self, v: u32, destination: u32, now: f64) {
        let node = &mut self.nodes[v as usize];
        node.channel_queue.push_back(destination);
        if !node.transmitting {
            node.transmitting = true;
            self.queue
                .push(now + self.link_ms, v, EventKind::ChannelDone);
        }
    }

    fn channel_done(&mut self, v: u32, now: f64) {
        let node = &mut self.nodes[v as usize];
        let destination = node
            .channel_queue
            .pop_front()
            .expect("a transmitting channel has a message");
        if node.channel_queue.is_empty() {
            node.transmitting = false;
        } else {
            self.queue
                .push(now + self.link_ms, v, EventKind::ChannelDone);
        }
        self.outcome.hops += 1;
        let next = self.router.next_hop(v, destination);
        self.arrive(next, destination, now);
    }

    fn arrive(&mut self, w: u32, destination: u32, now: f64) {
        if w == destination {
            self.outcome.end_ms = self.outcome.end_ms.max(now);
            return;
        }
        let node = &mut self.nodes[w as usize];
        node.forward_queue.push_back(destination);
        if !node.forwarding {
            self.preempt(w, now);
            self.nodes[w as usize].forwarding = true;
            self.queue
                .push(now + self.config.ti_ms, w, EventKind::ForwardDone);
        }
    }

    fn forward_done(&mut self, w: u32, now: f64) {
        let node = &mut self.nodes[w as usize];
        let destination = node
            .forward_queue
            .pop_front()
            .expect("a forwarding node has a message");
        if node.forward_queue.is_empty() {
            node.forwarding = false;
            self.resume(w, now);
        } else {
            self.queue
                .push(now + self.config.ti_ms, w, EventKind::ForwardDone);
        }
        self.enqueue_channel(w, destination, now);
    }
}
