//! `oneway`: scibench's OW test (Fig. 6): the server streams `reps` messages and
//! waits for the client's acknowledgement of the final one; the latency is the time
//! over `reps`. Streaming lets the mailbox's ring of slots pipeline messages, so OW
//! is at most PP and the gap shows how much the transport overlaps.

use super::super::{KernelError, KernelSpec, RunContext};
use super::pair::{Pattern, sweep};
use crate::results::KernelResult;

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "oneway";

pub(super) const ONEWAY: KernelSpec = KernelSpec {
    name: NAME,
    method: "scibench",
    paper: "Gonzalez 2000, section 5.1, Fig. 6 and Appendix A",
    about: "one-way streaming latency with an acknowledgement of the final message, per transport and message size",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(|ctx, procs| {
        super::over_mpi::latency(ctx, procs, NAME, Pattern::OneWay)
    })),
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::TransportLine {
            eight: "8 B one-way streaming time per message",
            line: "streaming start-up and rate",
        },
    )],
    run,
    plan: super::estimate::oneway,
};

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    sweep(ctx, NAME, Pattern::OneWay)
}
