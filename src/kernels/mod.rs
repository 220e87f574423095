//! The kernels: one module per source method, each kernel one file that declares
//! what it sweeps, runs on a [`Team`](crate::team::Team), and returns points and
//! fits. Every kernel is listed once in its method's `KERNELS`, and [`registry()`]
//! gathers them; the CLI, the JSON and the benches read that list. The methods
//! measure with the [`harness`] (sweep plan, transport loop, flag primitives,
//! probes, timer), which imports none of them.
//!
//! Each entry, a [`KernelSpec`], carries the kernel's run, its MPI support,
//! its card rows and its estimate for the run plan ([`work`]); [`plan`] reads
//! those, never a kernel's name. Modules of one folder here import one
//! another one way (`tests/layers.rs` finds circles): what siblings share
//! sits in a module below them.

pub mod card;
pub mod comet;
mod context;
pub mod convert;
pub mod decomposition;
pub mod effort;
pub mod harness;
pub mod headline;
pub mod hockney;
pub mod plan;
mod registry;
pub mod reliability;
pub mod scibench;
mod spec;
pub mod speedup;
pub mod work;

pub use context::{Fault, KernelError, NoProgress, Progress, RunConfig, RunContext};
#[cfg(feature = "mpi")]
pub use registry::over_mpi_refusal;
pub use registry::{
    IDLE_SAMPLE, IDLE_SAMPLE_REUSE, LoadCheck, card_entries, card_rows_of, default_suite, find,
    over_mpi_names, presented_as, registry, run_kernel, run_kernel_checked,
};
pub(crate) use spec::mpi_run;
pub use spec::{KernelSpec, MpiRun, OverMpi, mpi_processes_needed, not_over_mpi, runs_over_mpi};
