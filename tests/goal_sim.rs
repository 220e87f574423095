//! The engine's GOAL front end under LogGOPS: hand-counted finish times of two- and
//! three-rank schedules, and LogGOPSim's own per-host finish times on Schedgen
//! schedules (`tests/data/goal/loggopsim_finish_times.txt`, with its provenance),
//! reproduced to the nanosecond, rendezvous messages included.

use halfperf::model::goal;
use halfperf::model::simulator::{GoalSimError, LogGops, Placement, simulate_goal};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/goal");

/// L = 100, o = 10, g = 20, G = 1, O = 0, S = 1000 (ns, ns per byte, bytes).
const P: LogGops = LogGops {
    l_ns: 100.0,
    o_ns: 10.0,
    g_ns: 20.0,
    big_g_ns_per_byte: 1.0,
    big_o_ns_per_byte: 0.0,
    s_bytes: 1000,
};

fn finish(text: &str, p: &LogGops) -> Vec<f64> {
    let s = goal::parse(text, "hand.goal").expect("valid");
    goal::check(&s).expect("consistent");
    simulate_goal(&s, p, None).expect("completes").finish_ns
}

/// One eager message: the sender's CPU is busy o = 10; the message arrives at
/// o + L = 110 and the receiver's CPU is busy o + (s-1) G = 10 + 9 until 129.
#[test]
fn two_ranks_one_message() {
    let text = "num_ranks 2\nrank 0 {\ns: send 10b to 1\n}\nrank 1 {\nr: recv 10b from 0\n}\n";
    assert_eq!(finish(text, &P), vec![10.0, 129.0]);
}

/// A ping-pong and a calc: 0 sends at 0 (CPU to 10, arrives 110); 1 receives
/// 110..129 and replies at 129 (CPU to 139, arrives 239); 0 receives 239..258,
/// then calc 50 until 308. LogGOPSim prints 308 and 139 for this file.
#[test]
fn two_ranks_ping_pong_then_calc() {
    let text = "num_ranks 2\nrank 0 {\na: send 10b to 1\nb: recv 10b from 1\nc: calc 50\nc requires b\n}\n\
                rank 1 {\nx: recv 10b from 0\ny: send 10b to 0\ny requires x\n}\n";
    assert_eq!(finish(text, &P), vec![308.0, 139.0]);
}

/// Three ranks and a rendezvous (2000 B > S): 0 sends at 0 (arrives 110) but its
/// send completes only when 1 matches it; 1 computes until 300, so the message
/// waits for 1's CPU until 300 and takes it until 300 + 10 + 1999 = 2309; 1's
/// receive, freed at 300, matches at 300, which completes 0's send at 300 and
/// frees 0's calc 5 (until 305). 1 sends 1 B at 2309 (CPU to 2319), it reaches 2
/// at 2419, whose CPU is busy until 2429. LogGOPSim prints 305, 2319, 2429.
#[test]
fn three_ranks_with_a_rendezvous() {
    let text = "num_ranks 3\nrank 0 {\na: send 2000b to 1\nb: calc 5\nb requires a\n}\n\
                rank 1 {\nc: calc 300\nr: recv 2000b from 0\nr requires c\ns: send 1b to 2\ns requires r\n}\n\
                rank 2 {\nq: recv 1b from 1\n}\n";
    assert_eq!(finish(text, &P), vec![305.0, 2319.0, 2429.0]);
    // Eager instead (S above the size): 0's calc no longer waits for rank 1.
    let eager = LogGops { s_bytes: 4096, ..P };
    assert_eq!(finish(text, &eager)[0], 15.0);
}

/// `irequires`: b may start once a started. Two sends back to back: the second
/// waits for the NIC gap g + (s-1) G = 20 + 9 = 29 > o, and arrives 29 later.
#[test]
fn irequires_and_the_gap() {
    let text = "num_ranks 2\nrank 0 {\na: send 10b to 1\nb: send 10b to 1\nb irequires a\n}\n\
                rank 1 {\nr: recv 10b from 0\nq: recv 10b from 0\n}\n";
    // 0: sends at 0 and 29, CPU to 39. 1: first 110..129; second arrives 139, its
    // receive NIC is free at 110 + 29 = 139, CPU until 158.
    assert_eq!(finish(text, &P), vec![39.0, 158.0]);
}

/// Two ranks on one CPU: their work serialises and each switch costs 5 ns.
#[test]
fn shared_cpu_serialises_and_pays_switches() {
    let text = "num_ranks 2\nrank 0 {\nc: calc 100\n}\nrank 1 {\nc: calc 100\n}\n";
    let s = goal::parse(text, "h").expect("valid");
    let alone = simulate_goal(&s, &P, None).expect("runs");
    assert_eq!(alone.finish_ns, vec![100.0, 100.0]);
    let shared = simulate_goal(&s, &P, Some(&Placement::shared(2, 1, 5.0))).expect("runs");
    assert_eq!(shared.finish_ns, vec![100.0, 205.0]);
}

#[test]
fn a_receive_without_a_send_is_an_error_naming_it() {
    let text = "num_ranks 2\nrank 0 {\nr: recv 8b from 1 tag 4\n}\n";
    let s = goal::parse(text, "u.goal").expect("valid");
    let e = simulate_goal(&s, &P, None).expect_err("stuck");
    assert!(matches!(e, GoalSimError::Stuck { rank: 0, .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "u.goal:3: rank 0 `r` never ran: the schedule cannot complete (1 ops left)"
    );
}

/// Every file and parameter set LogGOPSim was run on, host by host.
#[test]
fn reproduces_loggopsim_finish_times() {
    let text = std::fs::read_to_string(format!("{DATA}/loggopsim_finish_times.txt")).expect("data");
    let mut cases = 0;
    let mut hosts = 0;
    let mut rendezvous = 0;
    for block in text.split("\nfile ").skip(1) {
        let mut lines = block.lines();
        let name = lines.next().expect("a name").trim();
        let params: Vec<f64> = lines
            .next()
            .and_then(|l| l.strip_prefix("params "))
            .expect("params")
            .split_whitespace()
            .map(|v| v.parse().expect("a number"))
            .collect();
        let p = LogGops {
            l_ns: params[0],
            o_ns: params[1],
            g_ns: params[2],
            big_g_ns_per_byte: params[3],
            big_o_ns_per_byte: params[4],
            s_bytes: params[5] as u64,
        };
        let s = goal::read(std::path::Path::new(&format!("{DATA}/{name}"))).expect("valid");
        let r = simulate_goal(&s, &p, None).expect("completes");
        let big = s
            .ranks
            .iter()
            .flat_map(|r| &r.ops)
            .any(|o| matches!(o.kind, goal::OpKind::Send { bytes, .. } if bytes > p.s_bytes));
        rendezvous += usize::from(big);
        for line in lines {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f[..] {
                ["host", h, t] => {
                    let h: usize = h.parse().expect("a host");
                    assert_eq!(
                        r.finish_ns[h],
                        t.parse::<f64>().expect("a time"),
                        "{name} {params:?} host {h}"
                    );
                    hosts += 1;
                }
                ["max", h, t] => {
                    assert_eq!(
                        r.end_ns,
                        t.parse::<f64>().expect("a time"),
                        "{name} {params:?} max"
                    );
                    let h: usize = h.parse().expect("a host");
                    assert_eq!(r.finish_ns[h], r.end_ns, "{name}: the host of the maximum");
                    hosts += 1;
                }
                _ => {}
            }
        }
        cases += 1;
    }
    assert_eq!(cases, 22);
    assert_eq!(hosts, 150, "host figures");
    assert_eq!(rendezvous, 5, "cases with rendezvous messages");
}

/// A `//@ sync` meeting of two ranks after uneven work (rank 0 calc 100, rank
/// 1 calc 300), then calc 50 each. As a plain reader's messages (L = 100,
/// o = 10, g = 20, 0 B as 1 B): rank 1 sends at 300 (arrives 410), rank 0
/// takes it 410-420 and releases at 420 (CPU to 430, arrives 530), calc
/// 430-480; rank 1 takes the release 530-540, calc 540-590. As a meeting
/// costing 40: both leave at 300 + 40 and finish at 390.
#[test]
fn a_meeting_is_its_messages_to_a_plain_reader_and_its_cost_to_predict() {
    use halfperf::model::simulator::{Charges, simulate_goal_charged};
    let met = |s: &goal::Schedule, p: &LogGops, costs: &[f64]| {
        let c = Charges {
            meeting_ns: costs,
            ..Default::default()
        };
        simulate_goal_charged(s, p, None, &c)
    };
    let text = "num_ranks 2\n\
        rank 0 {\nc: calc 100\na: recv 0b from 1 tag 5 //@ sync barrier-spin\n\
        b: send 0b to 1 tag 5 //@ sync barrier-spin\nd: calc 50\n\
        a requires c\nb requires a\nd requires b\n}\n\
        rank 1 {\nc: calc 300\na: send 0b to 0 tag 5 //@ sync barrier-spin\n\
        b: recv 0b from 0 tag 5 //@ sync barrier-spin\ne: calc 50\n\
        a requires c\nb requires a\ne requires b\n}\n";
    let p = LogGops {
        s_bytes: u64::MAX,
        ..P
    };
    assert_eq!(finish(text, &p), vec![480.0, 590.0]);
    let s = goal::parse(text, "meet.goal").unwrap();
    let costed = met(&s, &p, &[40.0]).expect("completes");
    assert_eq!(costed.finish_ns, vec![390.0, 390.0]);
    // No message is sent for a meeting.
    assert_eq!(costed.messages, 0);
    // Free, the meeting still waits for the last arrival.
    let free = met(&s, &p, &[0.0]).unwrap();
    assert_eq!(free.finish_ns, vec![350.0, 350.0]);
    // One cost a meeting, finite and not negative.
    assert_eq!(
        met(&s, &p, &[1.0, 2.0]).unwrap_err(),
        GoalSimError::Meetings {
            given: 2,
            meetings: 1
        }
    );
    assert!(met(&s, &p, &[-1.0]).is_err());
}

/// A cold message: rank 0 sends at 0, computes 20 us, sends again at 20010
/// (its CPU busy 10 per send). L = 100, L_cold = 500 beyond an idle gap of
/// 10 us. The first message arrives at 110 (rank 1 takes it 110-120); the
/// second leaves 20010 after rank 0's last message, so it flies 500 and
/// arrives at 20010 + 10 + 500 = 20520 (taken to 20530). Warm, 20120 and 20130.
#[test]
fn a_message_after_an_idle_gap_pays_the_cold_latency() {
    use halfperf::model::simulator::{Charges, ColdLatency, simulate_goal_charged};
    let text = "num_ranks 2\nrank 0 {\na: send 8b to 1\nc: calc 20000\nb: send 8b to 1\nc requires a\nb requires c\n}\n\
        rank 1 {\nx: recv 8b from 0\ny: recv 8b from 0\ny requires x\n}\n";
    let s = goal::parse(text, "cold.goal").unwrap();
    let p = LogGops {
        g_ns: 0.0,
        big_g_ns_per_byte: 0.0,
        ..P
    };
    let charged = |cold| {
        let c = Charges {
            meeting_ns: &[],
            cold,
            ..Default::default()
        };
        simulate_goal_charged(&s, &p, None, &c).unwrap().finish_ns
    };
    assert_eq!(charged(None), vec![20020.0, 20130.0]);
    let cold = ColdLatency {
        idle_ns: 10_000.0,
        l_ns: 500.0,
    };
    assert_eq!(charged(Some(cold)), vec![20020.0, 20530.0]);
    // A gap below the threshold stays warm.
    let long = ColdLatency {
        idle_ns: 30_000.0,
        ..cold
    };
    assert_eq!(charged(Some(long)), vec![20020.0, 20130.0]);
}
