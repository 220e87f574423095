//! Reliability kernels: not a paper's method, but the checks that let the suite's
//! numbers be trusted.
//!
//! - `soak`: both transports carry long streams of messages in every size class
//!   (inline in the flag word, one slot, many slots), each with a sequence number
//!   and a checksum; it counts messages lost, corrupted and reordered, which must
//!   all be zero.

mod soak;

use super::KernelSpec;

/// The reliability kernels.
pub static KERNELS: &[KernelSpec] = &[soak::SOAK];
