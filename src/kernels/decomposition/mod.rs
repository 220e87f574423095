//! Krumme & Greenfield, *Communication Timing on the NCUBE Multiprocessor* (Tufts
//! TR 88-1, 1988): a message's cost split into six times F, S, R, A, U, E, each
//! measured with a background computation `Q` running on the timing processor, and
//! the interference of several active channels.
//!
//! - `decomposition` (sections 2 to 4, 5.1, Appendix A): the six parameters per
//!   transport, message size and version of `Q` (Tables 1 and 2), their lines
//!   `X0 + X1 n` (Table 3), and `E` measured again with the processors idle.
//! - `overheads` (sections 2 and 3.4): `S` and `R`, the send and receive calls'
//!   CPU time, on two pinned ranks, the placement a schedule's replay uses.
//! - `interference` (section 5.2): one rank times a fixed computation while 1, 2 and
//!   3 neighbours stream messages through it, against the slowdown predicted from
//!   `R + S` per message.
//!
//! # Processors on a multicore
//! The NCUBE's operating system did part of every transfer in interrupt routines on
//! both processors (`S`, `R`) and forwarded messages through intermediate nodes
//! without the user program. Here the six processors are hosted virtual nodes
//! ([`crate::team::hosted`]) on two spinning workers pinned one per CPU (ranks
//! dealt round-robin, so every hop between consecutive ranks crosses a CPU, and no
//! wait parks a thread). Each node has a mailroom of system buffers standing for
//! the node's operating system: the write call copies into a system buffer and
//! hands it to the transport, the system takes arrived messages into system
//! buffers and forwards routed ones without the program, the read call copies out.
//! The computation `Q` runs in chunks of about 2 µs and the worker polls the nodes
//! it hosts between chunks, so a message arriving at or passing through a node
//! takes its time from that node's `Q`, as the interrupt routines did. What each
//! parameter is here, and how each is measured, is in the `decomposition`
//! kernel's documentation; the common machinery in `protocol`. With
//! `--transport mpi` the decomposition's six nodes, and the interference
//! kernel's twelve, are dealt over the MPI processes of the job instead of two
//! threads, and their messages go by MPI (`parameters::over_mpi`).

mod background;
mod estimate;
mod interference;
mod parameters;
mod pinned;
mod protocol;

pub use background::{Background, QKind, qfloat, qint};
pub(crate) use interference::BIGSIZE;
pub(crate) use interference::NAME as INTERFERENCE;
pub(crate) use parameters::NAME as DECOMPOSITION;
pub use parameters::PAPER_SIZES;
pub use pinned::{
    MODEL as OVERHEADS_MODEL, OverheadSamples, SIZES as OVERHEADS_SIZES, overheads_result,
};

use super::KernelSpec;

/// The Krumme & Greenfield kernels.
pub static KERNELS: &[KernelSpec] = &[
    parameters::DECOMPOSITION,
    pinned::OVERHEADS,
    interference::INTERFERENCE,
];
