//! The discrete-event engine and its two front ends: one future-event list (`queue`,
//! earliest first, ties by an order each front end defines) and its pop-and-handle
//! loop; Lamanna's process model (`engine`) and GOAL dependency graphs under LogGOPS
//! ([`loggops`], LogGOPSim's semantics: `halfperf simulate SCHEDULE.goal --loggp`).
//!
//! Lamanna's front end follows the SLAM II model of "A Performance Study of the
//! Hypercube Architecture" (AFIT thesis, 1988), chapter III (Figs. 5-7, eqs. 7-10)
//! and Appendix B (source listing).
//! A process of uniprocessor time `U` is split into `N` tasks, one per node. Each
//! node is a single processor (a resource) with one transmitting channel and a FIFO
//! queue in front of it (the iPSC lets only one of a node's links transmit at a
//! time). Each task runs `B` bursts; after each burst it sends its result to `R`
//! receivers, one message per receiver:
//! [`Receivers::All`] (every other node, in increasing node order, as in Appendix
//! B) or [`Receivers::Count`]`(r)` (`r` distinct other nodes drawn at random per burst).
//! Burst lengths (Appendix B, labels `COMP`, `BTM`, `LSTB`): the node's total work is
//! drawn once, `W ~ Normal(U/N, sigma_ms)` (truncated at 0), so that the load is
//! balanced in expectation whatever the burst shape; each burst but the last has mean
//! `m = remaining / bursts left`, from `Normal(m, sigma_ms * m / (U/N))` or
//! `Exponential(mean m)`, redrawn while negative or not shorter than the remaining
//! work; the last burst is the remainder. This is what makes the thesis's exponential
//! runs identical to the normal ones when the node totals are equal (Appendix E).
//! Message costs follow eq. 8/9, `T = t_l + L H t_c + I t_i` for an `L`-byte message
//! over `H` links and `I = H - 1` intermediate nodes. Two models of where a message's
//! processor time goes are offered ([`MessageCosts`], `halfperf simulate --params`):
//! - **the listing's model** (Appendix B, whence the thesis's Tables 6-7; the
//!   experiment's default): `MSG_INIT` = 1.667 ms at the sender, `OVERHEAD` = 0.6158
//!   ms at the destination, `INT_TIME` = 0.485 ms per intermediate node, `XMT_TIME` =
//!   0.0008968 ms per byte and link ([`LISTING_MSG_INIT_MS`], [`LISTING_OVERHEAD_MS`]);
//! - **eq. 9's model** (chapter III): one start-up `t_l` = 1.1232 ms at the sender,
//!   so an isolated message arrives exactly `T` after its burst ([`THESIS_TL_MS`]).
//!
//! Charged as follows (line numbers count the listing's non-blank lines from `GEN`):
//! - `t_l` (`tl_ms`, `MSG_INIT`): the **sender's processor**, once per message, right
//!   after the burst, then the channel queue (`XQ`, lines 302-303).
//!   [`SendHold::Held`] (the listing): the task holds its node from `AWAIT` (`BRST`,
//!   line 275) through its `R` `MSG_INIT`s until `FREE` (`REL`, line 308), so a
//!   message pre-empts a start-up as it does a burst. [`SendHold::Beside`]: start-ups
//!   run beside the node's message work;
//! - `L t_c` (`tc_ms_per_byte`): each link, paid by the **channel** of the node the
//!   message leaves (`XFER`, lines 318-319; store and forward). One channel per node
//!   transmits at a time; [`ChannelOrder::Dimension`] (the listing): its queue is
//!   ranked by the hop's dimension, lowest first, then first come first served
//!   (`PRIORITY/1,LVF(9)/...`, line 31); [`ChannelOrder::Fifo`]: first come first served;
//! - `t_i` (`ti_ms`, `INT_TIME`): each **intermediate node's processor**. An arriving
//!   message pre-empts the node's task (`PREEMPT`, line 321), which resumes after;
//!   messages wait in order of arrival (file 33-64 has no `PRIORITY`);
//! - `receive_ms` (`OVERHEAD`, line 322): the destination's processor time.
//!   [`ReceiveAt::Destination`] (the listing): on the **destination's processor**,
//!   pre-empting its task and queueing behind other arrivals like `t_i`; the message
//!   counts as received when it is done (`QUIT`, line 331). [`ReceiveAt::Sender`]: added
//!   to the sender's start-up instead (exact in total processor time when every node
//!   sends and receives equally many messages). With `receive_ms` = 0 (eq. 9) a
//!   message is received on arrival.
//!
//! Routing is deterministic store-and-forward ([`Topology`]): e-cube on the hypercube,
//! dimension order on the 2-D torus, shorter way round on the ring. The process ends
//! when the last message is received and the last task has sent. An optional
//! calibration `C = c_0 + c_1 N` ms (eq. 10, the benchmark's message-checking
//! overhead) is added when `N > 2` (its `USERF(2)` returns 0 below).
#![forbid(unsafe_code)]

mod engine;
pub mod experiment;
pub mod loggops;
mod queue;
pub mod routing;

use std::time::Instant;

use serde::{Deserialize, Serialize};

pub use experiment::{
    BurstShape, ExperimentError, ExperimentReport, ExperimentUnit, LamannaParams,
    run_lamanna_experiment,
};
pub use loggops::{
    Charges, ColdLatency, GoalSimError, GoalSimResult, LogGops, Placement, simulate_goal,
    simulate_goal_charged,
};
pub use routing::{Router, Topology};

/// Eq. 9: message start-up latency `t_l`, ms.
pub const THESIS_TL_MS: f64 = 1.1232;
/// Eq. 9: transmission time per byte per link `t_c`, ms/byte.
pub const THESIS_TC_MS_PER_BYTE: f64 = 0.0008968;
/// Eq. 9: intermediate-node forwarding time `t_i`, ms.
pub const THESIS_TI_MS: f64 = 0.485;
/// Appendix B `MSG_INIT` (listing line 86): the sender's processor time per message, ms.
pub const LISTING_MSG_INIT_MS: f64 = 1.667;
/// Appendix B `OVERHEAD` (listing line 84): the destination's processor time per
/// message, ms.
pub const LISTING_OVERHEAD_MS: f64 = 0.6158445;
/// Appendix B `INT_TIME` (listing line 83): an intermediate node's processor time, ms.
pub const LISTING_INT_TIME_MS: f64 = 0.4849987;
/// Appendix B `XMT_TIME` (listing line 82): transmission time per byte and link, ms.
pub const LISTING_XMT_TIME_MS_PER_BYTE: f64 = 0.0008968224;
/// Appendix B's processor time per message, ms: `MSG_INIT` = 1.667 ms at the sender
/// plus `OVERHEAD` = 0.6158445 ms at the destination, about twice eq. 9's start-up.
/// Charged as `tl_ms` (all at the sender) it approximates the listing's model.
pub const APPENDIX_B_TL_MS: f64 = LISTING_MSG_INIT_MS + LISTING_OVERHEAD_MS;
/// Eq. 10: calibration `C = 5 + 7.5 N` ms, as `(c_0, c_1)`.
pub const THESIS_CALIBRATION_MS: (f64, f64) = (5.0, 7.5);
/// Validation runs: standard deviation of a node's computation time, ms.
pub const THESIS_VALIDATION_SIGMA_MS: f64 = 2.5;
/// Largest simulated machine (bounds the per-node receiver tables).
pub const MAX_NODES: u32 = 4096;

/// Who receives the message of each burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Receivers {
    /// Every other node (`R = N - 1`).
    All,
    /// This many distinct other nodes, drawn at random for every burst.
    Count(u32),
}

/// Where a message's receive cost (`receive_ms`, Appendix B `OVERHEAD`) is charged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReceiveAt {
    /// On the destination's processor, pre-empting its task and queueing behind other
    /// arrivals (Appendix B `PREEMPT` ... `ACT,OVERHEAD`, listing lines 321-322).
    #[default]
    Destination,
    /// Added to the sender's start-up.
    Sender,
}

/// Order of a node's transmit queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChannelOrder {
    /// Ranked by the dimension of the hop, lowest first, ties first come first served
    /// (Appendix B `PRIORITY/...,LVF(9)`, listing line 31).
    #[default]
    Dimension,
    /// First come, first served.
    Fifo,
}

/// How a task's send start-ups share its node with message work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SendHold {
    /// The task holds its node from `AWAIT` through its `R` `MSG_INIT` activities
    /// until `FREE` (listing lines 275-308): messages arriving meanwhile wait for the
    /// `FREE` (SLAM pre-empts only the activity that follows the `AWAIT`, the burst),
    /// then go before the task's next burst.
    #[default]
    Held,
    /// Arriving messages pre-empt a start-up as they pre-empt a burst.
    Preemptible,
    /// Start-ups run beside the node's message work, which does not delay them; the
    /// next burst still waits for both.
    Beside,
}

/// Distribution of the computation bursts (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum BurstDist {
    /// Node total `Normal(U/N, sigma_ms)`; bursts normal with the same coefficient of
    /// variation.
    Normal {
        /// Standard deviation of a node's total computation time, ms.
        sigma_ms: f64,
    },
    /// Node total `Normal(U/N, sigma_ms)`; bursts exponential.
    Exponential {
        /// Standard deviation of a node's total computation time, ms.
        sigma_ms: f64,
    },
}

impl BurstDist {
    fn sigma_ms(self) -> f64 {
        match self {
            Self::Normal { sigma_ms } | Self::Exponential { sigma_ms } => sigma_ms,
        }
    }
}

/// What a message costs in Lamanna's model and where its processor time goes
/// (eqs. 8-9 and Appendix B; the module documentation says how each is charged):
/// one struct for a simulation ([`SimConfig`]), the experiment
/// ([`LamannaParams`]) and `halfperf simulate`'s options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MessageCosts {
    /// Message start-up `t_l`, ms (paid by the sender's processor; Appendix B
    /// `MSG_INIT`).
    pub tl_ms: f64,
    /// Receive cost, ms (Appendix B `OVERHEAD`; 0 in eq. 9's model).
    #[serde(default)]
    pub receive_ms: f64,
    /// Where `receive_ms` is charged.
    #[serde(default)]
    pub receive_at: ReceiveAt,
    /// Order of each node's transmit queue.
    #[serde(default)]
    pub channel_order: ChannelOrder,
    /// Whether start-ups hold the node.
    #[serde(default)]
    pub send_hold: SendHold,
    /// Transmission time per byte and link `t_c`, ms/byte.
    pub tc_ms_per_byte: f64,
    /// Intermediate-node forwarding time `t_i`, ms.
    pub ti_ms: f64,
}

impl MessageCosts {
    /// The thesis's simulation model, the SLAM listing of Appendix B: `MSG_INIT` =
    /// 1.667 ms on the sender's node, held through its start-ups, `OVERHEAD` =
    /// 0.6158 ms on the destination's processor, `INT_TIME` = 0.485 ms per
    /// intermediate node, `XMT_TIME` = 0.0008968 ms per byte and link, transmit
    /// queues ranked by the hop's dimension.
    pub const LISTING: Self = Self {
        tl_ms: LISTING_MSG_INIT_MS,
        receive_ms: LISTING_OVERHEAD_MS,
        receive_at: ReceiveAt::Destination,
        channel_order: ChannelOrder::Dimension,
        send_hold: SendHold::Held,
        tc_ms_per_byte: LISTING_XMT_TIME_MS_PER_BYTE,
        ti_ms: LISTING_INT_TIME_MS,
    };

    /// The text's model, eq. 9: one start-up `t_l` = 1.1232 ms at the sender,
    /// nothing at the destination, `t_c` = 0.0008968 ms/byte, `t_i` = 0.485 ms,
    /// first-come first-served channels, start-ups pre-empted by arrivals.
    pub const EQ9: Self = Self {
        tl_ms: THESIS_TL_MS,
        receive_ms: 0.0,
        receive_at: ReceiveAt::Destination,
        channel_order: ChannelOrder::Fifo,
        send_hold: SendHold::Preemptible,
        tc_ms_per_byte: THESIS_TC_MS_PER_BYTE,
        ti_ms: THESIS_TI_MS,
    };

    /// The listing's costs, both charged at the sender (`MSG_INIT + OVERHEAD` =
    /// 2.283 ms per start-up) with first-come first-served channels and start-ups
    /// pre-empted by arrivals: the listing's processor time per message without
    /// its placement.
    pub const APPENDIX_B: Self = Self {
        receive_at: ReceiveAt::Sender,
        channel_order: ChannelOrder::Fifo,
        send_hold: SendHold::Preemptible,
        ..Self::LISTING
    };

    /// The model's name: `listing`, `eq9`, `appendix-b`, or `custom`.
    pub fn model_name(&self) -> &'static str {
        [
            (Self::LISTING, "listing"),
            (Self::EQ9, "eq9"),
            (Self::APPENDIX_B, "appendix-b"),
        ]
        .iter()
        .find(|(c, _)| c == self)
        .map_or("custom", |(_, name)| name)
    }
}

/// One simulation run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// Interconnection network.
    pub topology: Topology,
    /// Number of nodes `N`.
    pub nodes: u32,
    /// Bursts per task `B`.
    pub bursts: u32,
    /// Receivers of each burst's message `R`.
    pub receivers: Receivers,
    /// Burst-length distribution.
    pub burst_dist: BurstDist,
    /// Uniprocessor time `U` of the whole process, ms.
    pub uniprocessor_ms: f64,
    /// What a message costs and where its processor time goes.
    #[serde(flatten)]
    pub costs: MessageCosts,
    /// Message length `L`, bytes.
    pub message_bytes: u32,
    /// Eq. 10 calibration `(c_0, c_1)` in ms, added as `c_0 + c_1 N` when `N > 2`.
    pub calibration: Option<(f64, f64)>,
    /// Seed of the random-number generator.
    pub seed: u64,
}

impl SimConfig {
    /// The thesis's validation runs (Table 6, Appendix D) on `nodes` hypercube nodes:
    /// one burst, every node sends its `256 / N`-byte share of the 8 x 8 float matrix
    /// to every other node, eq. 9 costs, eq. 10 calibration, sigma = 2.5 ms.
    pub fn lamanna_validation(uniprocessor_ms: f64, nodes: u32, seed: u64) -> Self {
        Self {
            topology: Topology::Hypercube,
            nodes,
            bursts: 1,
            receivers: Receivers::All,
            burst_dist: BurstDist::Normal {
                sigma_ms: THESIS_VALIDATION_SIGMA_MS,
            },
            uniprocessor_ms,
            costs: MessageCosts::EQ9,
            message_bytes: 256 / nodes.max(1),
            calibration: Some(THESIS_CALIBRATION_MS),
            seed,
        }
    }

    /// Receivers per burst `R`.
    pub fn receivers_per_burst(&self) -> u32 {
        match self.receivers {
            Receivers::All => self.nodes.saturating_sub(1),
            Receivers::Count(r) => r,
        }
    }

    /// Checks the configuration and returns the router of its topology.
    pub fn validate(&self) -> Result<Router, SimConfigError> {
        if self.nodes > MAX_NODES {
            return Err(SimConfigError::TooManyNodes {
                nodes: self.nodes,
                max: MAX_NODES,
            });
        }
        let router = Router::new(self.topology, self.nodes)?;
        if self.bursts == 0 {
            return Err(SimConfigError::ZeroBursts);
        }
        if let Receivers::Count(r) = self.receivers
            && r >= self.nodes
        {
            return Err(SimConfigError::TooManyReceivers {
                receivers: r,
                nodes: self.nodes,
            });
        }
        let (c0, c1) = self.calibration.unwrap_or((0.0, 0.0));
        let times = [
            ("uniprocessor_ms", self.uniprocessor_ms),
            ("sigma_ms", self.burst_dist.sigma_ms()),
            ("tl_ms", self.costs.tl_ms),
            ("receive_ms", self.costs.receive_ms),
            ("tc_ms_per_byte", self.costs.tc_ms_per_byte),
            ("ti_ms", self.costs.ti_ms),
        ];
        if let Some(&(name, value)) = times.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
            return Err(SimConfigError::InvalidTime { name, value });
        }
        if let Some(value) = [c0, c1].into_iter().find(|v| !v.is_finite()) {
            return Err(SimConfigError::InvalidTime {
                name: "calibration",
                value,
            });
        }
        Ok(router)
    }
}

/// Outcome of one simulation run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    /// Total execution time including the calibration, ms.
    pub time_ms: f64,
    /// Simulated execution time (start to last message received), ms.
    pub simulated_ms: f64,
    /// Calibration added (eq. 10), ms.
    pub calibration_ms: f64,
    /// Events handled (postponed steps of pre-empted activities not counted).
    pub events: u64,
    /// Messages sent (and received).
    pub messages: u64,
    /// Link traversals of all messages.
    pub hops: u64,
    /// Host time spent simulating, s.
    pub wall_seconds: f64,
    /// `events / wall_seconds`.
    pub events_per_second: f64,
}

/// Invalid simulation configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimConfigError {
    /// No nodes.
    #[error("the machine needs at least one node")]
    ZeroNodes,
    /// More nodes than [`MAX_NODES`].
    #[error("{nodes} nodes exceed the simulator's limit of {max}")]
    TooManyNodes {
        /// Requested nodes.
        nodes: u32,
        /// Limit.
        max: u32,
    },
    /// Hypercube size not a power of two.
    #[error("a hypercube has 2^n nodes; {nodes} is not a power of two")]
    NodesNotPowerOfTwo {
        /// Requested nodes.
        nodes: u32,
    },
    /// 2-D torus size not a perfect square.
    #[error("a square 2-D torus has k*k nodes; {nodes} is not a perfect square")]
    NodesNotSquare {
        /// Requested nodes.
        nodes: u32,
    },
    /// No bursts.
    #[error("each task needs at least one burst")]
    ZeroBursts,
    /// More receivers than other nodes.
    #[error("{receivers} receivers per burst but only {nodes} - 1 other nodes; use at most N - 1")]
    TooManyReceivers {
        /// Requested receivers.
        receivers: u32,
        /// Nodes.
        nodes: u32,
    },
    /// A time parameter is negative, NaN or infinite.
    #[error("`{name}` = {value} must be a finite time >= 0 (calibration terms: finite)")]
    InvalidTime {
        /// Field name.
        name: &'static str,
        /// Offending value.
        value: f64,
    },
}

/// Runs one simulation.
pub fn simulate(config: &SimConfig) -> Result<SimResult, SimConfigError> {
    let router = config.validate()?;
    let start = Instant::now();
    let outcome = engine::run(config, router);
    let wall_seconds = start.elapsed().as_secs_f64();
    let calibration_ms = match config.calibration {
        Some((c0, c1)) if config.nodes > 2 => c0 + c1 * f64::from(config.nodes),
        _ => 0.0,
    };
    Ok(SimResult {
        time_ms: outcome.end_ms + calibration_ms,
        simulated_ms: outcome.end_ms,
        calibration_ms,
        events: outcome.events,
        messages: outcome.messages,
        hops: outcome.hops,
        wall_seconds,
        events_per_second: if wall_seconds > 0.0 {
            outcome.events as f64 / wall_seconds
        } else {
            0.0
        },
    })
}

#[cfg(test)]
mod tests;
