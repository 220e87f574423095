//! Hand-worked predictions of two- and three-rank schedules in the replay's
//! frame, and the frame itself.

use super::*;
use crate::model::goal::parse;

/// Inputs `[S0, R0, S1, R1, t_startup, t_per_byte, one-way 8 B, (t_wake)]`, no intervals.
fn inputs(v: &[f64]) -> Inputs {
    let names = [
        ("o", "int_s0_ns"),
        ("o", "int_r0_ns"),
        ("O", "int_s1_ns_per_byte"),
        ("O", "int_r1_ns_per_byte"),
        ("L", "t_startup_ns"),
        ("G", "t_per_byte_ns"),
        ("g", "one_way_ns"),
        ("switch", "t_wake_ns"),
    ];
    Inputs {
        transport: "mailbox".into(),
        rows: v
            .iter()
            .zip(names)
            .map(|(&value, (symbol, name))| Input {
                symbol,
                kernel: "k".into(),
                name: name.into(),
                value,
                unit: "ns".into(),
                ci95: None,
                trust: "ok".into(),
                file: "synthetic".into(),
            })
            .collect(),
    }
}

#[test]
fn the_mapping_of_each_symbol() {
    // o = (100 + 60)/2, L = 300 - 2 o, G = t_per_byte, g = one-way; O from
    // O + max(O, G) = S1 + R1 = 0.625: O = 0.625 - 0.5.
    let inp = inputs(&[100.0, 60.0, 0.375, 0.25, 300.0, 0.5, 200.0, 7.0]);
    let (p, switch, cut) = inp.loggops(&[100.0, 60.0, 0.375, 0.25, 300.0, 0.5, 200.0, 7.0]);
    assert_eq!(
        (
            p.o_ns,
            p.big_o_ns_per_byte,
            p.l_ns,
            p.big_g_ns_per_byte,
            p.g_ns
        ),
        (80.0, 0.125, 140.0, 0.5, 200.0)
    );
    assert_eq!((switch, cut), (7.0, false));
    // S1 + R1 = 1.5 above 2 G: O = G' = 0.75 at both ends; S1 + R1 below G: 0.
    let (p, _, _) = inp.loggops(&[100.0, 60.0, 1.0, 0.5, 300.0, 0.5, 200.0]);
    assert_eq!(p.big_o_ns_per_byte, 0.75);
    let (p, _, _) = inp.loggops(&[100.0, 60.0, 0.25, 0.125, 300.0, 0.5, 200.0]);
    assert_eq!(p.big_o_ns_per_byte, 0.0);
    // S0 + R0 above the start-up: o is cut to its half, L = 0, and says so.
    let (p, _, cut) = inp.loggops(&[200.0, 200.0, 0.0, 0.0, 300.0, 0.5, 200.0]);
    assert_eq!((p.l_ns, cut), (0.0, true));
    // Lines not resolved: o at most t_startup / 2 (L not cut), O = 0.
    let mut loose = inp.clone();
    (0..4).for_each(|i| loose.rows[i].trust = Trust::Unresolved.mark().into());
    let (p, _, cut) = loose.loggops(&[200.0, 200.0, 1.0, 0.5, 300.0, 0.5, 200.0]);
    assert_eq!(
        (p.o_ns, p.l_ns, p.big_o_ns_per_byte, cut),
        (150.0, 0.0, 0.0, false)
    );
    let (p, _, _) = loose.loggops(&[50.0, 30.0, 1.0, 0.5, 300.0, 0.5, 200.0]);
    assert_eq!((p.o_ns, p.l_ns), (40.0, 220.0));
}

/// Rank 0 sends 100 B to rank 1; o = 80, O = 0.125 (S1 + R1 = 0.625), L = 140,
/// G = 0.5, g = 200.
/// go (8 B) leaves at 0: rank 0's CPU to 80.875, NIC to 203.5, arrives at 220;
/// the 100 B at 203.5 (NIC): CPU to 295.875, arrives 423.5. Rank 1 takes go at
/// 220 (CPU to 303.5, NIC to 423.5), the 100 B at 423.5 (CPU to 423.5 + 80 +
/// 99 x 0.5 = 553), sends done at 553 (CPU to 633.875), which arrives at 773;
/// rank 0 takes it: 773 + 80 + 7 x 0.5 = 856.5.
#[test]
fn two_ranks_by_hand() {
    let s = parse(
        "num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\n}\nrank 1 {\nl1: recv 100b from 0 tag 0\n}\n",
        "two.goal",
    )
    .unwrap();
    let p = predict(
        &s,
        &inputs(&[100.0, 60.0, 0.375, 0.25, 300.0, 0.5, 200.0]),
        2,
    )
    .unwrap();
    assert_eq!(p.finish_ns, vec![856.5, 633.875]);
    assert_eq!(p.time_ns, 856.5);
    // No interval on any input: the interval is the value.
    assert_eq!(p.ci95_ns, [856.5, 856.5]);
    assert!(p.notes.is_empty(), "{:?}", p.notes);
}

/// Three ranks, o = 100, L = 300, g = 150, G = O = 0 (every message: sender's
/// CPU 100, NIC 150, arrival 400 later, receiver's CPU 100, NIC 150). Rank 0:
/// go to 1 at 0 and to 2 at 150 (its NIC), calc 1000 from 250 to 1250, send
/// to 2 at 1250 (arrives 1650). Rank 1: go at 400, its send to 2 at 500
/// (arrives 900), done at 650 (arrives 1050; rank 0 is busy until 1350, takes
/// it 1350-1450). Rank 2: go at 550, rank 1's message at 900-1000, rank 0's
/// at 1650-1750, done at 1750 (CPU to 1850, arrives 2150); rank 0: 2250.
#[test]
fn three_ranks_by_hand() {
    let s = parse(
        "num_ranks 3\nrank 0 {\nc: calc 1000\ns: send 8b to 2 tag 0\ns requires c\n}\n\
         rank 1 {\ns: send 8b to 2 tag 1\n}\n\
         rank 2 {\na: recv 8b from 0 tag 0\nb: recv 8b from 1 tag 1\n}\n",
        "three.goal",
    )
    .unwrap();
    let inp = inputs(&[100.0, 100.0, 0.0, 0.0, 500.0, 0.0, 150.0]);
    let p = predict(&s, &inp, 3).unwrap();
    assert_eq!(p.finish_ns, vec![2250.0, 750.0, 1850.0]);
    assert_eq!(p.cpu_of_rank, vec![0, 1, 2]);
    // On two CPUs ranks 0 and 2 share one: later, and later still when each
    // turn of the CPU costs a wake-up.
    let mut wake = inp.clone();
    wake.rows.extend(inputs(&[0.0; 8]).rows.pop());
    wake.rows[7].value = 0.0;
    let free = predict(&s, &wake, 2).unwrap();
    assert_eq!(free.cpu_of_rank, vec![0, 1, 0]);
    wake.rows[7].value = 1000.0;
    let costly = predict(&s, &wake, 2).unwrap();
    assert!(free.time_ns >= p.time_ns, "{} {}", free.time_ns, p.time_ns);
    assert!(
        costly.time_ns >= free.time_ns + 1000.0,
        "{} {}",
        costly.time_ns,
        free.time_ns
    );
    assert_eq!(costly.switch_ns, 1000.0);
}

#[test]
fn intervals_propagate_and_marks_name_the_inputs() {
    let s = parse(
        "num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\n}\nrank 1 {\nl1: recv 100b from 0 tag 0\n}\n",
        "two.goal",
    )
    .unwrap();
    let mut inp = inputs(&[100.0, 60.0, 0.375, 0.25, 300.0, 0.5, 200.0]);
    inp.rows[4].ci95 = Some([250.0, 350.0]);
    inp.rows[4].trust = "noisy".into();
    let p = predict(&s, &inp, 2).unwrap();
    let [lo, hi] = p.ci95_ns;
    assert!(lo < p.time_ns && p.time_ns < hi, "{lo} {} {hi}", p.time_ns);
    // L enters twice (the message, then done): about +-100 ns at the ends.
    assert!(hi - lo > 150.0 && hi - lo < 250.0, "{lo} {hi}");
    assert_eq!(p.marks, vec!["noisy t_startup_ns (k)".to_string()]);
}

#[test]
fn the_frame_wraps_every_rank() {
    let s = parse(
        "num_ranks 3\nrank 0 {\nc: calc 5\n}\nrank 1 {\nc: calc 5\n}\n",
        "f.goal",
    )
    .unwrap();
    let f = framed(&s);
    // Rank 0: two go's, its calc, two done receives; ranks 1, 2: go, (calc), done.
    assert_eq!(f.ranks[0].ops.len(), 5);
    assert_eq!(f.ranks[0].ops[2].requires, vec![1]);
    assert_eq!(f.ranks[1].ops.len(), 3);
    assert_eq!(f.ranks[2].ops.len(), 2);
    assert_eq!(f.ranks[1].ops[2].requires, vec![0, 1]);
    assert_eq!(f.ranks[2].ops[1].requires, vec![0]);
    crate::model::goal::check(&f).unwrap();
}

/// `o` and `O` from the decomposition's hosted nodes: the same figure, and a
/// note naming the pinned kernel to run. Resolved `S0 + R0` above the
/// start-up: `o` cut to its half (150 ns), `L` = 0, and a note.
#[test]
fn hosted_rows_and_a_cut_o_are_named_in_the_notes() {
    let s = parse(
        "num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\n}\nrank 1 {\nl1: recv 100b from 0 tag 0\n}\n",
        "two.goal",
    )
    .unwrap();
    let mut inp = inputs(&[100.0, 60.0, 0.375, 0.25, 300.0, 0.5, 200.0]);
    for r in &mut inp.rows[..4] {
        r.kernel = "decomposition/mailbox".into();
    }
    let p = predict(&s, &inp, 2).unwrap();
    assert_eq!(p.time_ns, 856.5);
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(
        p.notes[0].starts_with(
            "o and O: no pinned S and R (`halfperf run overheads --transport mailbox`)"
        ),
        "{:?}",
        p.notes
    );
    let cut = inputs(&[200.0, 200.0, 0.375, 0.25, 300.0, 0.5, 200.0]);
    let p = predict(&s, &cut, 2).unwrap();
    assert_eq!((p.loggops.o_ns, p.loggops.l_ns), (150.0, 0.0));
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(
        p.notes[0].contains("o = t_startup / 2 = 150.0 ns and L = 0"),
        "{:?}",
        p.notes
    );
}

/// A meeting costed by its method's `t_0` (60 ns, awake). o = 100, L = 300,
/// g = 150, G = O = 0. Rank 0: go at 0 (CPU to 100, arrives 400), calc 1000
/// from 100 to 1100, arrives at the meeting at 1100. Rank 1: go 400-500, calc
/// 200 to 700, arrives at 700. Both leave at 1100 + 60 = 1160; rank 1's done
/// at 1160 (CPU to 1260, arrives 1560), which rank 0 takes 1560-1660.
#[test]
fn a_meeting_costs_its_methods_t0() {
    let s = parse(
        "num_ranks 2\nrank 0 {\nc: calc 1000\na: recv 0b from 1 tag 4 //@ sync spin-hint\n\
         b: send 0b to 1 tag 4 //@ sync spin-hint\na requires c\nb requires a\n}\n\
         rank 1 {\nc: calc 200\na: send 0b to 0 tag 4 //@ sync spin-hint\n\
         b: recv 0b from 0 tag 4 //@ sync spin-hint\na requires c\nb requires a\n}\n",
        "meet.goal",
    )
    .unwrap();
    let mut inp = inputs(&[100.0, 100.0, 0.0, 0.0, 500.0, 0.0, 150.0]);
    inp.rows.push(Input {
        symbol: "t0",
        kernel: "hockney-sync/spin-hint".into(),
        name: "t0_ns".into(),
        value: 60.0,
        unit: "ns".into(),
        ci95: Some([40.0, 80.0]),
        trust: "ok".into(),
        file: "synthetic".into(),
    });
    let p = predict(&s, &inp, 2).unwrap();
    assert_eq!(p.finish_ns, vec![1660.0, 1260.0]);
    assert_eq!(p.time_ns, 1660.0);
    // The interval is t_0's: 1660 -+ about 20.
    let [lo, hi] = p.ci95_ns;
    assert!(
        lo > 1630.0 && lo < 1660.0 && hi > 1660.0 && hi < 1690.0,
        "{lo} {hi}"
    );
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(p.notes[0].contains("awake"), "{:?}", p.notes);
    // A free method: the meeting still waits for the last arrival.
    inp.rows[7].value = 0.0;
    assert_eq!(predict(&s, &inp, 2).unwrap().time_ns, 1600.0);
}

/// `overheads`' `C0 = 1000` with o = 100: `L_cold = 800` against L = 300
/// (g = 150, G = O = 0). Rank 0: go at 0 (warm, arrives 400), calc 100 to
/// 20100, then its message, 20100 after its last: cold, arrives 20100 + 100
/// plus 800 = 21000. Rank 1: go 400-500, the message 21000-21100, done at
/// 21100 (warm: it took a message 100 before), arrives 21500; rank 0: 21600.
/// All warm, the message arrives at 20500 and rank 0 finishes at 21100.
#[test]
fn a_message_after_an_idle_wait_pays_l_cold() {
    let s = parse(
        "num_ranks 2\nrank 0 {\nc: calc 20000\ns: send 8b to 1 tag 0\ns requires c\n}\n\
         rank 1 {\nr: recv 8b from 0 tag 0\n}\n",
        "cold.goal",
    )
    .unwrap();
    let warm = inputs(&[100.0, 100.0, 0.0, 0.0, 500.0, 0.0, 150.0]);
    assert_eq!(predict(&s, &warm, 2).unwrap().time_ns, 21100.0);
    let mut cold = warm.clone();
    cold.rows.push(Input {
        symbol: "L_cold",
        kernel: "overheads/mailbox".into(),
        name: "c0_ns".into(),
        value: 1000.0,
        ..warm.rows[0].clone()
    });
    let p = predict(&s, &cold, 2).unwrap();
    assert_eq!(p.finish_ns, vec![21600.0, 21200.0]);
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(
        p.notes[0].contains("L_cold = C0 - 2o = 800.0 ns, charged instead of L = 300.0 ns"),
        "{:?}",
        p.notes
    );
}

/// An exchange of 1000 B (recursive doubling's round), o = 100, L = 300,
/// g = O = 0, G = 1 ns/B. go leaves rank 0 at 0 (CPU to 100), arrives at 400;
/// rank 0's data leaves at 100 and arrives at 500, while rank 1 takes go
/// (CPU to 507). The replay's rank 1 then sends first (507-607, arriving at
/// 907) and takes rank 0's data at 607 (to 1706), sends done at 1706
/// (CPU to 1806, arriving 2106); rank 0 takes rank 1's data 907-2006 and
/// done 2106-2213. LogGOPSim's order lets the waiting message take rank 1's
/// CPU first (507-1606): rank 1's data leaves at 1606, its NIC holds done to
/// 2605 (CPU to 2705, arriving 3005), rank 0 takes the data 2006-3105 and
/// done 3105-3212.
#[test]
fn an_exchange_sends_before_it_takes_as_the_replay_does() {
    let s = parse(
        "num_ranks 2\nrank 0 {\ns: send 1000b to 1 tag 0\nr: recv 1000b from 1 tag 0\n}\n\
         rank 1 {\ns: send 1000b to 0 tag 0\nr: recv 1000b from 0 tag 0\n}\n",
        "exchange.goal",
    )
    .unwrap();
    let inp = inputs(&[100.0, 100.0, 0.0, 0.0, 500.0, 1.0, 0.0]);
    let p = predict(&s, &inp, 2).unwrap();
    assert_eq!(
        (p.loggops.o_ns, p.loggops.l_ns, p.loggops.g_ns),
        (100.0, 300.0, 0.0)
    );
    assert_eq!(p.finish_ns, vec![2213.0, 1806.0]);
    let loggopsim = simulate_goal_charged(
        &framed(&s),
        &p.loggops,
        Some(&Placement::dedicated(2)),
        &Charges::default(),
    )
    .unwrap();
    assert_eq!(loggopsim.finish_ns, vec![3212.0, 2705.0]);
}

/// The switch input: the median of the batches' times a turn, their range
/// as its interval from 5 batches on; it goes after the message rows and
/// replaces an earlier one.
#[test]
fn the_switch_is_the_median_turn_after_the_message_rows() {
    let s = switch_input(&[900.0, 1100.0, 1000.0, 5000.0, 950.0, 1050.0, 990.0], 3).unwrap();
    assert_eq!(s.value, 1000.0);
    assert_eq!(s.ci95, Some([900.0, 5000.0]));
    assert_eq!(s.symbol, "switch");
    assert_eq!(s.kernel, "platform/yield-turn cpu 3");
    assert_eq!(switch_input(&[700.0, 800.0], 0).unwrap().ci95, None);
    assert!(switch_input(&[], 0).is_none());
    let mut inp = inputs(&[100.0, 60.0, 0.375, 0.25, 300.0, 0.5, 200.0]);
    inp.rows.push(Input {
        symbol: "L_cold",
        ..inp.rows[4].clone()
    });
    with_switch(&mut inp, s.clone());
    with_switch(&mut inp, s);
    let symbols: Vec<_> = inp.rows.iter().map(|r| r.symbol).collect();
    assert_eq!(
        symbols,
        ["o", "o", "O", "O", "L", "G", "g", "switch", "L_cold"]
    );
    // The prediction charges it as the turn of a shared CPU.
    let (_, switch, _) = inp.loggops(&inp.rows.iter().map(|r| r.value).collect::<Vec<_>>());
    assert_eq!(switch, 1000.0);
}
