//! The machine: topology from `/sys`, distance classes between CPUs, pinning with
//! read-back, the clock and its measured overhead, the cost of a system call and
//! of a turn of a CPU between yielding threads, the load check, and the parsers
//! of CPU lists and sizes that `/sys` and the command line share; where a
//! transport's lines are homed (`--home`).
//!
//! Everything above this layer (team, transports, kernels) asks this module which
//! CPUs exist, how far apart two of them are, and how to pin a thread to one.

mod aligned;
mod clock;
mod handover;
mod home;
mod huge;
mod lists;
mod load;
mod order;
mod pin;
mod prefetch;
mod state;
mod switches;
mod syscall;
mod topology;

pub use aligned::{LINE, LineAligned};
pub use clock::{ClockInfo, measure_clock};
pub use handover::yield_turns;
pub use home::{Home, HomeError, first_touch, node_of_address, third_cpu};
pub use huge::{HUGE_PAGE, HugeBuf, Plain};
pub use lists::{CpuListError, SizeError, format_cpu_list, parse_cpu_list, parse_size};
pub use load::{
    BUSY_THRESHOLD_CPUS, IdleSample, LoadReport, LoadSnapshot, LoadWindow, busy_others_cpus,
    count_as_own, counting_error_cpus,
};
pub use order::{CpuPlace, PairKind};
pub use pin::{PinError, allowed_cpus, current_affinity, pin_current_thread};
pub use prefetch::prefetch;
pub use state::{
    MachineRoot, MachineState, differing_settings_text, preheat, state_card_text,
    state_differences, state_lines,
};
pub use switches::{Switches, context_switches};
pub use syscall::futex_wakes;
pub use topology::{Cache, CacheKind, CoreType, Cpu, DistanceClass, Topology, TopologyError};
