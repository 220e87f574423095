//! Workloads described in GOAL ([`crate::model::goal`]): replayed on real cores
//! and predicted from a result file, so that the error of a prediction is a
//! measured figure.
//!
//! - [`replay`]: runs a schedule on a team of pinned ranks over a transport,
//!   rank 0 timing, with trials, a 95 % interval and per-rank finish times;
//!   `replay_mpi` (feature `mpi`) the same over the processes of `mpirun`.
//! - [`predict`]: the replay's time simulated under LogGOPS from a result file's
//!   measured costs, with an interval.
//! - [`validate`]: a replay beside its prediction: the error, the coverage,
//!   and whether the machine changed state between them.
//! - [`replay_schedules`]: the generator of the validation set in `workloads/`.

pub mod predict;
mod predict_inputs;
mod predict_sync;
mod predict_vector;
pub mod replay;
mod replay_calc;
mod replay_engine;
#[cfg(feature = "mpi")]
pub mod replay_mpi;
mod replay_result;
pub mod replay_schedules;
mod replay_sync;
pub mod validate;

pub use predict_sync::gather_syncs;
pub use predict_vector::{gather_vectors, vectors_timed};
