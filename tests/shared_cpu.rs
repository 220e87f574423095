//! Ranks sharing CPUs in the engine, as the replay's oversubscribed ranks run
//! (they wait by yielding): hand-worked finish times of four ranks on two CPUs
//! that the models the engine does not use give differently.

use halfperf::model::goal;
use halfperf::model::simulator::{
    Charges, LogGops, Placement, simulate_goal, simulate_goal_charged,
};

/// L = 100, o = 10, g = 20, G = 1, O = 0, S = 1000 (ns, ns per byte, bytes).
const P: LogGops = LogGops {
    l_ns: 100.0,
    o_ns: 10.0,
    g_ns: 20.0,
    big_g_ns_per_byte: 1.0,
    big_o_ns_per_byte: 0.0,
    s_bytes: 1000,
};

/// A turn of a CPU to another rank, ns.
const SWITCH: f64 = 50.0;

/// Ranks 0 and 2 on CPU 0, 1 and 3 on CPU 1 (`Placement::shared(4, 2, _)`).
/// Rank 0 computes 200 then sends 1 byte to rank 1, which computes 100 once it
/// has it; rank 2 computes 300, rank 3 50.
const FOUR: &str = "num_ranks 4\n\
    rank 0 {\nc: calc 200\ns: send 1b to 1\ns requires c\n}\n\
    rank 1 {\nr: recv 1b from 0\nd: calc 100\nd requires r\n}\n\
    rank 2 {\nc: calc 300\n}\n\
    rank 3 {\nc: calc 50\n}\n";

/// By hand, CPU 0: rank 0 computes 0..200 and sends 200..210 (its message
/// arrives at 210 + L = 310); rank 2 waited, yielding, and takes the CPU a
/// turn after rank 0 let it go: 210 + 50 = 260, computing until 560.
/// CPU 1: rank 3 computes 0..50; rank 1 has the CPU a turn later, at 100,
/// long before its message, so the turn is hidden in the flight: it takes the
/// message at 310 (o: 320) and computes until 420.
#[test]
fn four_ranks_on_two_cpus_by_hand() {
    let s = goal::parse(FOUR, "four.goal").expect("valid");
    goal::check(&s).expect("consistent");
    let shared = Placement::shared(4, 2, SWITCH);
    assert_eq!(shared.cpu_of_rank, vec![0, 1, 0, 1]);
    let r = simulate_goal(&s, &P, Some(&shared)).expect("runs");
    assert_eq!(r.finish_ns, vec![210.0, 420.0, 560.0, 50.0]);

    // Wrong models give other times. One rank a CPU: rank 2 is not delayed.
    let alone = simulate_goal(&s, &P, None).expect("runs");
    assert_eq!(alone.finish_ns, vec![210.0, 420.0, 300.0, 50.0]);
    // A turn charged after the arrival (a sleeping waiter woken by the
    // message) would end rank 1 at 310 + 50 + 10 + 100 = 470; the yielding
    // waiter already has its CPU.
    assert!(r.finish_ns[1] < 470.0);
    // A wake-up from sleep as the turn (tens of microseconds) puts rank 2
    // that much later, and rank 1 too: its CPU's turn from rank 3 ends at
    // 50 + 20 000, long after its message arrived.
    let asleep = simulate_goal(&s, &P, Some(&Placement::shared(4, 2, 20_000.0))).expect("runs");
    assert_eq!(asleep.finish_ns[2], 210.0 + 20_000.0 + 300.0);
    assert_eq!(asleep.finish_ns[1], 50.0 + 20_000.0 + 10.0 + 100.0);
}

/// All four ranks meet (`//@ sync`, cost 10) after computing 100 each. CPU 0:
/// rank 0 computes 0..100, rank 2 a turn later 150..250; CPU 1 the same for
/// ranks 1 and 3. The last arrival is at 250, the meeting ends at 260; on each
/// CPU the first member leaves then and the second a turn later, at 310.
#[test]
fn members_sharing_a_cpu_leave_a_turn_apart() {
    let mut text = String::from("num_ranks 4\nrank 0 {\nc: calc 100\n");
    for w in 1..4 {
        text.push_str(&format!(
            "a{w}: recv 0b from {w} tag 7 //@ sync barrier-spin\n"
        ));
        text.push_str(&format!("a{w} requires c\n"));
    }
    for w in 1..4 {
        text.push_str(&format!(
            "l{w}: send 0b to {w} tag 7 //@ sync barrier-spin\n"
        ));
        text.push_str(&format!(
            "l{w} requires a1\nl{w} requires a2\nl{w} requires a3\n"
        ));
    }
    text.push_str("}\n");
    for w in 1..4 {
        text.push_str(&format!(
            "rank {w} {{\nc: calc 100\na: send 0b to 0 tag 7 //@ sync barrier-spin\na requires c\n\
             l: recv 0b from 0 tag 7 //@ sync barrier-spin\nl requires a\n}}\n"
        ));
    }
    let s = goal::parse(&text, "meet.goal").expect("valid");
    goal::check(&s).expect("consistent");
    assert_eq!(s.meetings.len(), 1);
    let charges = Charges {
        meeting_ns: &[10.0],
        cold: None,
        ..Default::default()
    };
    let shared = Placement::shared(4, 2, SWITCH);
    let r = simulate_goal_charged(&s, &P, Some(&shared), &charges).expect("runs");
    assert_eq!(r.finish_ns, vec![260.0, 260.0, 310.0, 310.0]);
    // One rank a CPU: every member leaves at 100 + 10.
    let alone = simulate_goal_charged(&s, &P, None, &charges).expect("runs");
    assert_eq!(alone.finish_ns, vec![110.0; 4]);
}
