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
//! - `sci-topology`: PP on emulated SCI rings and tori (Figs. 10, 11, 13), the
//!   decomposition into `o`, `l_f`, `l_s` (eqs. 18-20, Table 1), the validation of
//!   the analytic model (section 5.4) and its projections (chapter 6); it reports as
//!   `sci-topology`, `sci-decomposition`, `sci-validation` and `sci-projection`.
//!
//! As in scibench, each point is the minimum of NUMREPS trials (15; 5 with
//! `--quick`), each trial a batch of repetitions sized from the clock, with a
//! warning when (max - min) exceeds ACCURACY x min.

mod c2c;
mod c2c_headline;
mod estimate;
mod experiment;
mod oneway;
#[cfg(feature = "mpi")]
mod over_mpi;
mod pair;
mod pingpong;
mod sci_model;
mod topology;

pub(crate) use c2c::NAME as C2C;
pub use c2c::check_against_pingpong;
pub use experiment::{Experiment, NAME as SCI_TOPOLOGY, TorusShape, size_sweep_experiments};
pub(crate) use pair::{PairLayout, PairSamples, SizeSamples, latency_result};
pub use pair::{Pattern, default_sizes};
pub(crate) use pingpong::NAME as PINGPONG;
pub use sci_model::{
    DECOMPOSITION, PROJECTION, PROJECTION_MAX_NODES, PROJECTION_SIZE_BYTES, SciInputsError,
    TABLE1_MODEL, VALIDATION, VALIDATION_BOUND_PCT, components_from_result, projection_inputs,
};

use super::KernelSpec;

/// The results `sci-topology` returns besides its own, under their own names.
pub static SCI_TOPOLOGY_ALSO: &[&str] = &[DECOMPOSITION, VALIDATION, PROJECTION];

/// The scibench kernels.
pub static KERNELS: &[KernelSpec] = &[
    pingpong::PINGPONG,
    oneway::ONEWAY,
    c2c::C2C,
    topology::SCI_TOPOLOGY,
];
