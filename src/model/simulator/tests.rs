//! Tests of the simulator against hand-counted cases and the thesis's Table 6.

use super::*;

/// t_l = 1 ms at the sender, nothing at the destination, L t_c = 0.5 ms for the
/// tests' one-byte messages, t_i = 0.25 ms, FIFO channels, pre-emptible start-ups.
const COSTS: MessageCosts = MessageCosts {
    tl_ms: 1.0,
    receive_ms: 0.0,
    receive_at: ReceiveAt::Destination,
    channel_order: ChannelOrder::Fifo,
    send_hold: SendHold::Preemptible,
    tc_ms_per_byte: 0.5,
    ti_ms: 0.25,
};

fn config(nodes: u32, uniprocessor_ms: f64) -> SimConfig {
    SimConfig {
        topology: Topology::Hypercube,
        nodes,
        bursts: 1,
        receivers: Receivers::All,
        burst_dist: BurstDist::Normal { sigma_ms: 0.0 },
        uniprocessor_ms,
        costs: COSTS,
        message_bytes: 1,
        calibration: None,
        seed: 1,
    }
}

/// Two nodes, one burst, sigma 0: both bursts end at U/2, each node pays t_l and its
/// channel L t_c, so the process ends at U/2 + t_l + L t_c (eq. 7), plus no
/// calibration for two nodes. With the thesis's eq. 9 and the benchmark's 128-byte
/// messages: 100 + 1.1232 + 128 * 0.0008968 = 101.2379904 ms.
#[test]
fn two_nodes_one_burst_is_eq7_exactly() {
    let mut c = SimConfig::lamanna_validation(200.0, 2, 3);
    c.burst_dist = BurstDist::Normal { sigma_ms: 0.0 };
    let r = simulate(&c).unwrap();
    assert_eq!(c.message_bytes, 128);
    assert!((r.time_ms - (100.0 + 1.1232 + 128.0 * 0.0008968)).abs() < 1e-9);
    assert_eq!(r.calibration_ms, 0.0);
    assert_eq!((r.messages, r.hops), (2, 2));
    // 2 bursts + 2 start-ups + 2 transmissions.
    assert_eq!(r.events, 6);
}

/// Four hypercube nodes, every node sends to the three others after a 100 ms burst;
/// t_l = 1, L t_c = 0.5, t_i = 0.25 ms. Counted by hand (e-cube: 0->3 and 3->0 go
/// through the node that differs in bit 0, i.e. 1 and 2; 1->2 via 0; 2->1 via 3):
///
/// - start-ups of each node run 100-101, 101-102, 102-103 unless pre-empted;
/// - 3->0 reaches node 2 at 101.5 and pre-empts its 2nd start-up (0.5 ms left),
///   forwarded 101.5-101.75, sent 101.75-102.25; node 2's start-up ends 102.25;
/// - 1->2 reaches node 0 at 102.5, pre-empts its 3rd start-up, forwarded until
///   102.75; node 0's start-up ends 103.25;
/// - 2->1 leaves node 2 at 102.25-102.75, pre-empts node 3 at 102.75, forwarded
///   until 103.0, sent 103.0-103.5; node 3's start-up ends 103.25 and its 3->2 waits
///   for the channel until 103.5, arriving 104.0;
/// - 0->3 waits for node 0's channel until 103.25, reaches node 1 at 103.75,
///   forwarded until 104.0, sent 104.0-104.5: the last arrival.
///
/// So T = 104.5 ms; 12 messages over 16 links; 16 task steps + 16 transmissions + 4
/// forwards = 36 events.
#[test]
fn four_node_cube_matches_hand_count() {
    let r = simulate(&config(4, 400.0)).unwrap();
    assert!((r.time_ms - 104.5).abs() < 1e-9, "T = {}", r.time_ms);
    assert_eq!((r.messages, r.hops, r.events), (12, 16, 36));
}

/// With several bursts the node's work is conserved: one node, 5 bursts, sigma 0,
/// exponential or normal bursts, ends at exactly U.
#[test]
fn bursts_split_the_node_work_exactly() {
    for burst_dist in [
        BurstDist::Normal { sigma_ms: 0.0 },
        BurstDist::Exponential { sigma_ms: 0.0 },
    ] {
        let c = SimConfig {
            bursts: 5,
            burst_dist,
            ..config(1, 1000.0)
        };
        let r = simulate(&c).unwrap();
        assert!((r.time_ms - 1000.0).abs() < 1e-9);
        assert_eq!((r.messages, r.events), (0, 5));
    }
}

/// Identical seeds give identical results; a different seed changes the time.
#[test]
fn seeded_runs_are_reproducible() {
    let c = SimConfig {
        nodes: 16,
        bursts: 5,
        receivers: Receivers::Count(8),
        burst_dist: BurstDist::Exponential { sigma_ms: 3.0 },
        seed: 42,
        ..config(16, 1000.0)
    };
    let a = simulate(&c).unwrap();
    let b = simulate(&c).unwrap();
    assert_eq!(
        (a.time_ms, a.events, a.messages, a.hops),
        (b.time_ms, b.events, b.messages, b.hops)
    );
    assert_eq!(a.messages, 16 * 5 * 8);
    let other = simulate(&SimConfig { seed: 43, ..c }).unwrap();
    assert_ne!(a.time_ms, other.time_ms);
}

/// Table 6, "Benchmark Versus Simulation Times", simulation column (ms), for
/// U = 200, 1205, 3615, 8010 ms and N = 2, 4, 8, 16, 32. (Table 6 labels the third
/// load "65 recalculations"; its benchmark column is Appendix C's 90-recalculation
/// data, 3620 ms, and its simulation used Table 3's 3615 ms, used here too.)
const TABLE_6_SIMULATION_MS: [(f64, [f64; 5]); 4] = [
    (200.0, [104.0, 95.0, 112.0, 184.0, 351.0]),
    (1205.0, [607.0, 346.0, 238.0, 247.0, 382.0]),
    (3615.0, [1814.0, 950.0, 540.0, 398.0, 458.0]),
    (8010.0, [4009.0, 2048.0, 1089.0, 672.0, 595.0]),
];

/// The thesis's validation runs (eq. 9 costs, eq. 10 calibration for N > 2, sigma
/// 2.5 ms, one burst, all-to-all, 256/N-byte messages), mean of 5 runs as in
/// Appendix D, land within 15 % of Table 6's simulation column in every row.
///
/// The largest gaps are at N = 32 (about -11 % for U = 200): this simulator charges
/// each message exactly eq. 9 (t_l = 1.12 ms, all at the sender), while the SLAM
/// listing of Appendix B charges 1.667 ms at the sender (`MSG_INIT`) plus 0.616 ms at
/// the receiver (`OVERHEAD`), about twice eq. 9's start-up, so its 31 messages per
/// node cost some 35 ms more.
#[test]
fn table_6_simulation_column_within_15_percent() {
    let nodes = [2, 4, 8, 16, 32];
    for (u, expected) in TABLE_6_SIMULATION_MS {
        for (&n, &paper_ms) in nodes.iter().zip(&expected) {
            let mean_ms = (0..5)
                .map(|seed| {
                    simulate(&SimConfig::lamanna_validation(u, n, seed))
                        .unwrap()
                        .time_ms
                })
                .sum::<f64>()
                / 5.0;
            let error = (mean_ms - paper_ms) / paper_ms;
            println!(
                "U = {u:>6} N = {n:>2}: simulated {mean_ms:8.1} ms, \
                 Table 6 {paper_ms:6.0} ms, {:+5.1} %",
                100.0 * error
            );
            assert!(
                error.abs() < 0.15,
                "U = {u}, N = {n}: {mean_ms} vs {paper_ms}"
            );
            // What the messages cost, T - U/N, is where eq. 9's costs and the
            // listing's differ: for N >= 4 it comes out 7.6 to 10.6 % under
            // Table 6's in every row (the listing's start-ups, 2.28 ms a
            // message against eq. 9's 1.12, less the eq. 10 calibration), and
            // a forwarded message charged twice t_i would take it to -2.5 to
            // -6.5 % at N = 8 to 32. (At N = 2, 2.8 ms of 4 to 6.5, the
            // calibration dominates; T alone is held there.)
            if n >= 4 {
                let per_node_ms = u / f64::from(n);
                let rest = (mean_ms - per_node_ms) / (paper_ms - per_node_ms) - 1.0;
                assert!(
                    (-0.12..-0.07).contains(&rest),
                    "U = {u}, N = {n}: T - U/N {:.1} ms vs Table 6's {:.1}, {:+.1} %",
                    mean_ms - per_node_ms,
                    paper_ms - per_node_ms,
                    100.0 * rest
                );
            }
        }
    }
}

#[test]
fn invalid_configurations_are_rejected() {
    let base = config(8, 100.0);
    let check = |c: SimConfig, e: SimConfigError| assert_eq!(simulate(&c), Err(e));
    check(
        SimConfig {
            nodes: 6,
            ..base.clone()
        },
        SimConfigError::NodesNotPowerOfTwo { nodes: 6 },
    );
    check(
        SimConfig {
            topology: Topology::Torus2D,
            ..base.clone()
        },
        SimConfigError::NodesNotSquare { nodes: 8 },
    );
    check(
        SimConfig {
            nodes: 0,
            ..base.clone()
        },
        SimConfigError::ZeroNodes,
    );
    check(
        SimConfig {
            nodes: 8192,
            ..base.clone()
        },
        SimConfigError::TooManyNodes {
            nodes: 8192,
            max: MAX_NODES,
        },
    );
    check(
        SimConfig {
            bursts: 0,
            ..base.clone()
        },
        SimConfigError::ZeroBursts,
    );
    check(
        SimConfig {
            receivers: Receivers::Count(8),
            ..base.clone()
        },
        SimConfigError::TooManyReceivers {
            receivers: 8,
            nodes: 8,
        },
    );
    check(
        SimConfig {
            costs: MessageCosts {
                tl_ms: -1.0,
                ..COSTS
            },
            ..base.clone()
        },
        SimConfigError::InvalidTime {
            name: "tl_ms",
            value: -1.0,
        },
    );
    assert!(matches!(
        simulate(&SimConfig {
            burst_dist: BurstDist::Normal { sigma_ms: f64::NAN },
            ..base.clone()
        }),
        Err(SimConfigError::InvalidTime {
            name: "sigma_ms",
            ..
        })
    ));
    assert!(matches!(
        simulate(&SimConfig {
            calibration: Some((f64::INFINITY, 0.0)),
            ..base
        }),
        Err(SimConfigError::InvalidTime {
            name: "calibration",
            ..
        })
    ));
}

/// Ring and torus run with the same model; on a 9-node torus every node reaches every
/// other in at most 2 hops, 72 messages cover 9 * (4 * 1 + 4 * 2) = 108 links.
#[test]
fn ring_and_torus_run() {
    let torus = simulate(&SimConfig {
        topology: Topology::Torus2D,
        ..config(9, 900.0)
    })
    .unwrap();
    assert_eq!((torus.messages, torus.hops), (72, 108));
    let ring = simulate(&SimConfig {
        topology: Topology::Ring,
        ..config(5, 500.0)
    })
    .unwrap();
    // 5-ring: each node has 2 neighbours at distance 1 and 2 at distance 2.
    assert_eq!((ring.messages, ring.hops), (20, 30));
}

/// Performance check: 1024-node hypercube, 5 bursts, every node sends to all 1023
/// others (5.2 million messages, about 26 million link traversals). Run with
/// `cargo test --release -- --ignored --nocapture`.
#[test]
#[ignore = "takes a few seconds; run explicitly in release mode"]
fn large_hypercube_events_per_second() {
    let c = SimConfig {
        topology: Topology::Hypercube,
        nodes: 1024,
        bursts: 5,
        receivers: Receivers::All,
        burst_dist: BurstDist::Normal { sigma_ms: 10.0 },
        uniprocessor_ms: 1024.0 * 1000.0,
        message_bytes: 1024,
        calibration: None,
        seed: 7,
        ..SimConfig::lamanna_validation(1024.0 * 1000.0, 1024, 7)
    };
    let r = simulate(&c).unwrap();
    println!(
        "1024-node cube: {} messages, {} hops, {} events in {:.2} s = {:.3e} events/s, \
         T = {:.1} ms",
        r.messages, r.hops, r.events, r.wall_seconds, r.events_per_second, r.time_ms
    );
    assert_eq!(r.messages, 1024 * 1023 * 5);
    assert_eq!(r.hops, 5 * 1024 * (10 * 512));
}

/// With Appendix B's processor cost per message (1.667 + 0.6158 ms) in place of eq.
/// 9's t_l, the same validation runs reproduce every row of Table 6 within 1.5 %.
#[test]
fn appendix_b_costs_reproduce_table_6() {
    let nodes = [2, 4, 8, 16, 32];
    for (u, expected) in TABLE_6_SIMULATION_MS {
        for (&n, &paper_ms) in nodes.iter().zip(&expected) {
            let mean_ms = (0..5)
                .map(|seed| {
                    let c = SimConfig {
                        costs: MessageCosts {
                            tl_ms: APPENDIX_B_TL_MS,
                            ..MessageCosts::EQ9
                        },
                        ..SimConfig::lamanna_validation(u, n, seed)
                    };
                    simulate(&c).unwrap().time_ms
                })
                .sum::<f64>()
                / 5.0;
            let error = (mean_ms - paper_ms) / paper_ms;
            assert!(
                error.abs() < 0.015,
                "U = {u}, N = {n}: {mean_ms} vs {paper_ms}"
            );
        }
    }
}

/// A 3-node ring, every node a neighbour of the others: one 100 ms burst each
/// (sigma 0), then two messages (node v sends to the others in increasing order),
/// start-up t_l = 1 ms, L t_c = 0.5 ms, receive 0.25 ms on the destination's CPU.
/// Counted by hand: start-ups run 100-101 and 101-102 unless delayed; the first
/// messages reach node 0 (from 1 and 2) and node 1 (from 0) at 101.5, the second
/// ones reach node 2 (from 0 and 1) and node 1 (from 2) about 102.5.
///
/// - `Preemptible`: node 0's second start-up is pre-empted at 101.5 by two receives
///   (to 102.0) and ends at 102.5, so 0 -> 2 arrives at 103.0; node 1's ends at
///   102.25, 1 -> 2 arrives at 102.75; node 2 receives 102.75-103.0 and
///   103.0-103.25: T = 103.25;
/// - `Held` (Appendix B): the arrivals at 101.5 wait for the `FREE` at 102, every
///   second message leaves at 102 and arrives at 102.5; node 2 receives
///   102.5-103.0: T = 103.0;
/// - `Beside`: the start-ups are not delayed either, the same 103.0;
/// - the receive charged at the sender instead: start-ups of 1.25 ms, the last
///   message leaves at 102.5 and is received on arrival at 103.0;
/// - no receive cost (eq. 9): T = 102 + 0.5 = 102.5.
#[test]
fn ring_of_three_counts_each_placement_of_the_costs() {
    let costs = MessageCosts {
        receive_ms: 0.25,
        ..COSTS
    };
    let base = SimConfig {
        topology: Topology::Ring,
        costs,
        ..config(3, 300.0)
    };
    let time = |c: SimConfig| simulate(&c).unwrap();
    for (hold, expected) in [
        (SendHold::Preemptible, 103.25),
        (SendHold::Held, 103.0),
        (SendHold::Beside, 103.0),
    ] {
        let r = time(SimConfig {
            costs: MessageCosts {
                send_hold: hold,
                ..costs
            },
            ..base.clone()
        });
        assert!(
            (r.time_ms - expected).abs() < 1e-9,
            "{hold:?}: {}",
            r.time_ms
        );
        // 3 bursts, 6 start-ups, 6 transmissions, 6 receives.
        assert_eq!((r.messages, r.hops, r.events), (6, 6, 21), "{hold:?}");
    }
    let sender = time(SimConfig {
        costs: MessageCosts {
            receive_at: ReceiveAt::Sender,
            ..costs
        },
        ..base.clone()
    });
    assert!((sender.time_ms - 103.0).abs() < 1e-9, "{}", sender.time_ms);
    assert_eq!(sender.events, 15);
    let eq9 = time(SimConfig {
        costs: COSTS,
        ..base
    });
    assert!((eq9.time_ms - 102.5).abs() < 1e-9, "{}", eq9.time_ms);
}

/// Transmit queues ranked by the hop's dimension (Appendix B `LVF(9)`) change the
/// order only where a channel holds hops of several dimensions: on a ring (every hop
/// dimension 0) the two orders give the same run, on an 8-node cube whose channels
/// queue (links slower than start-ups) they do not, and both deliver every message
/// over its e-cube route.
#[test]
fn channel_order_by_dimension() {
    let ring = |order| {
        simulate(&SimConfig {
            topology: Topology::Ring,
            costs: MessageCosts {
                channel_order: order,
                ..COSTS
            },
            ..config(8, 800.0)
        })
        .unwrap()
    };
    assert_eq!(
        ring(ChannelOrder::Dimension).time_ms,
        ring(ChannelOrder::Fifo).time_ms
    );
    // 2 ms a link against 1 ms a start-up: the channels queue.
    let cube = |order| {
        simulate(&SimConfig {
            costs: MessageCosts {
                channel_order: order,
                ..COSTS
            },
            bursts: 5,
            burst_dist: BurstDist::Normal { sigma_ms: 3.0 },
            message_bytes: 4,
            ..config(8, 800.0)
        })
        .unwrap()
    };
    let (by_dimension, fifo) = (cube(ChannelOrder::Dimension), cube(ChannelOrder::Fifo));
    assert_ne!(by_dimension.time_ms, fifo.time_ms);
    // 8 x 7 messages a burst over 12 links from each node (1 x 3 + 2 x 3 + 3 x 1).
    assert_eq!((by_dimension.hops, fifo.hops), (5 * 8 * 12, 5 * 8 * 12));
}
