//! Krumme & Greenfield, *Communication Timing on the NCUBE Multiprocessor* (Tufts
//! TR 88-1, 1988): a message's cost split into six times F, S, R, A, U, E, each
//! measured with a background computation `Q` running on the timing processor, and
//! the interference of several active channels.
//!
//! - `decomposition` (sections 2 to 4, 5.1, Appendix A): the six parameters per
//!   transport, message size and version of `Q` (Tables 1 and 2), their lines
//!   `X0 + X1 n` (Table 3), and `E` measured again with the processors idle.
//! - `interference` (section 5.2): one rank times a fixed computation while 1, 2 and
//!   3 neighbours stream messages through it, against the slowdown predicted from
//!   `R + S` per message.
//!
//! # Processors on a multicore
//! The NCUBE's operating system did part of every transfer in interrupt routines on
//! both processors (`S`, `R`) and forwarded messages through intermediate nodes
//! without the user program. Here a processor is a rank (a thread); there are no
//! interrupts and no forwarding system: the send call copies the message into memory
//! the receiver polls (mailbox) or into a buffer it hands over (channel), and the
//! receive call copies it out. So:
//! - `F` is the send call (copy in, publish, wake a parked receiver), `A + U` the
//!   receive of a message that has arrived (`A` the call itself, `U` the copy out);
//! - `S` and `R` are what is left for the cache and memory system to take from a
//!   computation running on the same thread after its call returned (the receiver
//!   pulling the sender's lines; the sender's stores invalidating the receiver's):
//!   small by design, and the kernel shows how small;
//! - forwarding is done by ranks in user code (receive, then send), so every
//!   intermediate hop of the echo also costs the forwarder's own receive and send.
//!   That work, which the NCUBE's operating system did not do, is measured on rank 0
//!   (the timed receive of an arrived message plus the timed send call) and taken
//!   out of each echo step, so that `E` stays the elapsed time of a hop; the raw
//!   echo times are kept in the points.
//!
//! Both kernels run virtual processors on two CPUs (ranks dealt round-robin, so
//! every hop between consecutive ranks crosses a CPU; ranks sharing a CPU park while
//! they wait), and their results say so.

mod background;
mod interference;
mod parameters;
mod protocol;

pub use background::{Background, QKind, qfloat, qint};
pub use parameters::{PAPER_SIZES, paper_table};

use super::KernelSpec;

/// The Krumme & Greenfield kernels.
pub static KERNELS: [KernelSpec; 2] = [parameters::DECOMPOSITION, interference::INTERFERENCE];
