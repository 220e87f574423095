//! scibench (Gonzalez, *Performance Modeling and Evaluation of Topologies for
//! Low-Latency SCI Systems*, 2000): one-way (OW) and ping-pong (PP) latency
//! between two processors that communicate by remote write and local read
//! (section 5.1, Figs. 6 and 7, Appendix A), and the core-to-core latency matrix.
//!
//! - `pingpong`: the server sends, the client answers, `reps` times; the PP
//!   latency is half the round trip. Fitted as `t_startup + N t_per_byte`.
//! - `oneway`: the server streams `reps` messages and waits for the client's
//!   acknowledgement of the final one; the OW latency is the time over `reps`.
//! - `c2c`: 8-byte mailbox PP between every pair of CPUs.
//!
//! As in scibench, each point is the minimum of NUMREPS trials (15; 5 with
//! `--quick`), each trial a batch of repetitions sized from the clock, with a
//! warning when (max - min) exceeds ACCURACY x min.

mod baseline;
mod c2c;
mod oneway;
mod pair;
mod pingpong;

pub use baseline::atomic_flag_round_trip;
pub use pair::{Pattern, choose_pair, default_sizes, round_trip_time};

use super::KernelSpec;

/// The scibench kernels.
pub static KERNELS: [KernelSpec; 3] = [pingpong::PINGPONG, oneway::ONEWAY, c2c::C2C];
