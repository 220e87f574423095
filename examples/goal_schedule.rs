//! Prints a schedule of the validation set's generators at any rank count, for
//! the engine's speed comparison with LogGOPSim (`scripts/engine-rate.sh`):
//!
//! ```text
//! cargo run --release --example goal_schedule -- lamanna-alltoall P > a.goal
//! cargo run --release --example goal_schedule -- recursive-doubling-allreduce P > r.goal
//! ```
//!
//! `lamanna-alltoall` is Lamanna's matrix benchmark with R = P - 1 (every rank
//! computes U/P, then sends its block to every other rank): the all-to-all of the
//! Lamanna front end's rate figures, as a GOAL file both simulators read.
use halfperf::workload::replay_schedules::{lamanna_matrix, recursive_doubling_allreduce};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let p = args.get(1).and_then(|t| t.parse::<u32>().ok());
    let text = match (args.first().map(String::as_str), p) {
        (Some("lamanna-alltoall"), Some(p)) if p >= 2 => {
            lamanna_matrix(p, 1_000_000_000, 1024, p - 1)
        }
        (Some("recursive-doubling-allreduce"), Some(p)) if p >= 2 && p.is_power_of_two() => {
            recursive_doubling_allreduce(p, 8192, 0.125)
        }
        _ => {
            eprintln!(
                "usage: goal_schedule lamanna-alltoall P | recursive-doubling-allreduce P (P >= 2, a power of two for the allreduce)"
            );
            std::process::exit(2);
        }
    };
    print!("{text}");
}
