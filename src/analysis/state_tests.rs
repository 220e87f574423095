//! Tests of [`super`]: the judge on the figures of real runs.

use super::*;
use crate::results::{COPY_PROBE_PARAM, RATE_PROBE_PARAM, ratio_to_probe};

fn probed(value: f64, ci: [f64; 2], probe: Option<(f64, [f64; 2])>) -> Probed {
    Probed {
        value,
        ci95: Some(ci),
        probe,
        probe_kind: ProbeKind::RoundTrip,
        moves_with_probe: probe.is_some(),
        mode: None,
        both_ways: false,
        also: None,
    }
}

/// A method's `r_inf` with the round trip 100 ns [98, 102] and the rate
/// probe `rate` (Gflop/s, with its interval) as `hockney-sync` records
/// them, read back as `compare` reads a card row.
fn r_inf(value: f64, ci: [f64; 2], rate: Option<(f64, [f64; 2])>) -> Probed {
    use crate::control::Placement;
    let g = |v: f64| v * 1e9;
    let mut k = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1]);
    let of = Some("spin-nohint");
    k.headline = vec![
        Param::new("r_inf_flop_per_s", of, g(value)).with_ci(Some(ci.map(g)), "b"),
        Param::new(PROBE_PARAM, of, 100.0).with_ci(Some([98.0, 102.0]), "r"),
    ];
    if let Some((r, [lo, hi])) = rate {
        k.headline
            .push(Param::new(RATE_PROBE_PARAM, of, g(r)).with_ci(Some([g(lo), g(hi)]), "r"));
    }
    Probed::in_kernel(&k, "r_inf_flop_per_s", of, g(value), Some(ci.map(g)))
}

/// spin-nohint's r_inf in two quiet runs: 7.70 [7.34, 7.91]
/// then 9.43 [9.34, 9.45] Gflop/s, with the round trip unmoved. Widened to
/// the 5 % floor the change is x[8.9585 / 8.085, 9.9015 / 7.315] =
/// x[1.108, 1.354]. With rate probes 8.18 [8.0, 8.3] then 9.21 [9.1, 9.3]
/// (x[1.096, 1.1625]) it reaches 1..1.1625: the processors computed
/// faster, `~`. With the rate probes unmoved (8.9 [8.7, 9.2], 9.0 [8.8,
/// 9.3]), or falling (9.21 then 8.18), or missing in one file, it is `*`.
#[test]
fn a_rate_is_judged_against_the_rate_probe() {
    let base = r_inf(7.70, [7.34, 7.91], Some((8.18, [8.0, 8.3])));
    assert_eq!(base.probe_kind, ProbeKind::Rate);
    assert_eq!(base.probe.map(|p| p.0), Some(8.18e9));
    let (why, note) = judge(
        &base,
        &r_inf(9.43, [9.34, 9.45], Some((9.21, [9.1, 9.3]))),
        0.05,
    );
    assert_eq!(why, Why::MachineMoved);
    let note = note.unwrap();
    assert!(
        note.contains("rate probe went from 8.180 to 9.210 Gflop/s"),
        "{note}"
    );
    let (why, note) = judge(
        &r_inf(7.70, [7.34, 7.91], Some((8.9, [8.7, 9.2]))),
        &r_inf(9.43, [9.34, 9.45], Some((9.0, [8.8, 9.3]))),
        0.05,
    );
    assert_eq!(why, Why::IntervalsDisjoint);
    assert!(note.unwrap().contains("Gflop/s serial rate times P"));
    let (why, _) = judge(
        &r_inf(7.70, [7.34, 7.91], Some((9.21, [9.1, 9.3]))),
        &r_inf(9.43, [9.34, 9.45], Some((8.18, [8.0, 8.3]))),
        0.05,
    );
    assert_eq!(why, Why::IntervalsDisjoint);
    let older = r_inf(9.43, [9.34, 9.45], None);
    assert_eq!(older.probe_kind, ProbeKind::RoundTrip);
    assert_eq!(judge(&base, &older, 0.05), (Why::IntervalsDisjoint, None));
}

/// spin-hint's `s_1/2` as `hockney-sync` records it: the value with its
/// interval, the round trip (ns) and the rate probe (Gflop/s), each with
/// its interval.
fn s_half(value: f64, ci: [f64; 2], rt: (f64, [f64; 2]), rate: (f64, [f64; 2])) -> Probed {
    use crate::control::Placement;
    let g = |v: f64| v * 1e9;
    let mut k = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1]);
    let of = Some("spin-hint");
    k.headline = vec![
        Param::new("s_half_flop", of, value).with_ci(Some(ci), "b"),
        Param::new(PROBE_PARAM, of, rt.0).with_ci(Some(rt.1), "r"),
        Param::new(RATE_PROBE_PARAM, of, g(rate.0)).with_ci(Some(rate.1.map(g)), "r"),
    ];
    Probed::in_kernel(&k, "s_half_flop", of, value, Some(ci))
}

/// s_1/2 = r_inf t0 moves with both probes. 640 [639, 642] flop with the
/// round trip 99.1 [97, 101] ns and the rate 9.0 [8.9, 9.1] Gflop/s, then
/// 571 [570, 571] flop with 98.8 [97, 101] ns and 8.0 [7.9, 8.1] Gflop/s:
/// the round trips overlap, but the products, 891.9 [863.3, 919.1] then
/// 790.4 [766.3, 818.1] flop, do not; the parameter's factor widened to
/// the floor, [542.45 / 672, 599.55 / 608] = [0.807, 0.986], lies within
/// the products' [0.834, 1] (and their phase modes): `~`. With the rate
/// unmoved (9.0 both) the same change is `*`.
#[test]
fn s_half_is_judged_against_both_probes() {
    let base = s_half(
        640.0,
        [639.0, 642.0],
        (99.1, [97.0, 101.0]),
        (9.0, [8.9, 9.1]),
    );
    assert_eq!(base.probe_kind, ProbeKind::Product);
    // 571 flop beside the round trip 98.8 ns and the rate `rate` Gflop/s.
    let at_rate =
        |rate: (f64, [f64; 2])| s_half(571.0, [570.0, 571.0], (98.8, [97.0, 101.0]), rate);
    let slower = at_rate((8.0, [7.9, 8.1]));
    let (why, note) = judge(&base, &slower, DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    let note = note.unwrap();
    assert!(
        note.contains("probes' product went from 891.9 to 790.4 flop"),
        "{note}"
    );
    let still = at_rate((9.0, [8.9, 9.1]));
    let (why, note) = judge(&base, &still, DEFAULT_FLOOR);
    assert_eq!(why, Why::IntervalsDisjoint, "{note:?}");
}

/// barrier-spin's `t0` in two quick runs: 83 ns [80, 86] then
/// 135 [130, 140], the round trip unmoved (127 [124, 131], 129 [125, 133]),
/// the system-call probe 304 ns [300, 308] then 431 [425, 437]. Widened to
/// the 5 % floor the change is x[128.25 / 87.15, 141.75 / 78.85] =
/// x[1.472, 1.798]; the system call's x[425 / 308, 437 / 300] = x[1.380,
/// 1.457] explains up to x1.457^2 = x2.122 with the phase modes: `~`, in its
/// words. With the system call unmoved (306 [301, 310]) the round trip's
/// verdict stands, `*`; so it does where `t0` rose to 400 ns (x4.5 at least).
/// Only `t0` takes the second probe.
#[test]
fn a_t0_the_round_trip_does_not_explain_may_follow_the_system_call() {
    use crate::control::Placement;
    let run = |t0: f64, ci: [f64; 2], rt: [f64; 3], sys: [f64; 3]| {
        let mut k = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1]);
        let of = Some("barrier-spin");
        k.headline = vec![
            Param::new("t0_ns", of, t0).with_ci(Some(ci), "b"),
            Param::new(PROBE_PARAM, of, rt[0]).with_ci(Some([rt[1], rt[2]]), "r"),
            Param::new(SYSCALL_PROBE_PARAM, of, sys[0]).with_ci(Some([sys[1], sys[2]]), "b"),
        ];
        k
    };
    let t0 = |k: &KernelResult, v: f64, ci: [f64; 2]| {
        Probed::in_kernel(k, "t0_ns", Some("barrier-spin"), v, Some(ci))
    };
    let base_k = run(
        83.0,
        [80.0, 86.0],
        [127.0, 124.0, 131.0],
        [304.0, 300.0, 308.0],
    );
    let base = t0(&base_k, 83.0, [80.0, 86.0]);
    assert_eq!(base.also, Some((304.0, [300.0, 308.0])));
    let slow = run(
        135.0,
        [130.0, 140.0],
        [129.0, 125.0, 133.0],
        [431.0, 425.0, 437.0],
    );
    let (why, note) = judge(&base, &t0(&slow, 135.0, [130.0, 140.0]), DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    let note = note.unwrap();
    assert!(
        note.contains("system-call probe went from 304.0 to 431.0 ns"),
        "{note}"
    );
    assert!(note.contains("x2.122"), "{note}");
    let still = run(
        135.0,
        [130.0, 140.0],
        [129.0, 125.0, 133.0],
        [306.0, 301.0, 310.0],
    );
    let (why, note) = judge(&base, &t0(&still, 135.0, [130.0, 140.0]), DEFAULT_FLOOR);
    assert_eq!(why, Why::IntervalsDisjoint);
    assert!(note.unwrap().contains("round trip"));
    let far = t0(&slow, 400.0, [390.0, 410.0]);
    assert_eq!(judge(&base, &far, DEFAULT_FLOOR).0, Why::IntervalsDisjoint);
    let s_half = Probed::in_kernel(&base_k, "s_half_flop", Some("barrier-spin"), 600.0, None);
    assert_eq!(s_half.also, None);
}

/// A lock's t0: 105 ns [100, 110] with its hand-overs sleeping 0.02 times
/// a segment, then 38 us [37, 40] sleeping 1.9 times: the method changed
/// mode, `~`, whatever the probes ((38,000 - 105) / 1.88 = 20,157 ns a
/// sleep). The same jump with the sleeps unmoved (0.02 then 0.1), or
/// against them (t0 fell while they rose), is `*`; so is 2.5 ms with 0.58
/// sleeps (4.3 ms a sleep: a busy loop took the woken thread's CPU).
#[test]
fn a_hand_over_that_slept_differently_is_a_change_of_mode() {
    let with = |value: f64, ci: [f64; 2], blocks: f64| Probed {
        mode: Some(Mode {
            blocks,
            t0_ns: value,
            of: ModeOf::Segment,
        }),
        ..probed(value, ci, Some((90.0, [88.0, 92.0])))
    };
    let spun = with(105.0, [100.0, 110.0], 0.02);
    let (why, note) = judge(&spun, &with(38_000.0, [37_000.0, 40_000.0], 1.9), 0.05);
    assert_eq!(why, Why::ModeChanged);
    assert_eq!(why.mark(), "~");
    let note = note.unwrap();
    assert!(note.contains("0.02 then 1.90"), "{note}");
    assert!(note.contains("20156.9 ns of t0 a sleep"), "{note}");
    let (why, _) = judge(&spun, &with(2.5e6, [2.4e6, 2.6e6], 0.6), 0.05);
    assert_eq!(why, Why::IntervalsDisjoint);
    let (why, _) = judge(&spun, &with(38_000.0, [37_000.0, 40_000.0], 0.1), 0.05);
    assert_eq!(why, Why::IntervalsDisjoint);
    let (why, _) = judge(
        &with(38_000.0, [37_000.0, 40_000.0], 0.02),
        &with(105.0, [100.0, 110.0], 1.9),
        0.05,
    );
    assert_eq!(why, Why::IntervalsDisjoint);
    // Overlapping intervals stay unmarked whatever the sleeps.
    let (why, _) = judge(&spun, &with(107.0, [101.0, 112.0], 1.9), 0.05);
    assert_eq!(why, Why::IntervalsOverlap);
}

/// 120 ns [110, 130] over a 120 ns round trip [100, 140]: 2, from 110 / 70
/// to 130 / 50.
#[test]
fn the_ratio_is_over_the_one_way_time_with_opposite_bounds() {
    let (r, ci) = ratio_to_probe(120.0, Some([110.0, 130.0]), 120.0, Some([100.0, 140.0])).unwrap();
    let [lo, hi] = ci.unwrap();
    assert_eq!(r, 2.0);
    assert!((lo - 110.0 / 70.0).abs() < 1e-12 && (hi - 2.6).abs() < 1e-12);
    assert!(ratio_to_probe(1.0, None, 0.0, None).is_none());
    assert!(latency_like("t0_ns") && latency_like("s_half_flop"));
    assert!(!latency_like("t_per_byte_ns") && !latency_like(PROBE_PARAM));
    assert!(!latency_like("r_inf_flop_per_s") && !latency_like("t0_over_probe"));
    // Times in any unit, and times per byte in any unit, move with it.
    assert!(latency_like("tl_ms") && !latency_like("tc_ms_per_byte"));
    assert!(latency_like("one_way_ns_min") && latency_like("one_way_ns_median"));
    assert!(!latency_like("one_way_over_probe_median"));
    for name in [
        "t_per_byte_ns",
        "int_f1_ns_per_byte",
        "tc_ms_per_byte",
        "ti_ms",
    ] {
        assert!(moves_with_probe(name), "{name}");
    }
    for name in [
        "r_inf_flop_per_s",
        "mailbox_over_baseline",
        "b",
        PROBE_PARAM,
    ] {
        assert!(!moves_with_probe(name), "{name}");
    }
}

/// A t_startup of 120 [115, 125] ns beside probes of 120 [118, 124] ns, then
/// 440 [420, 460] ns beside 440 [430, 450] ns: the intervals are apart, the
/// probes too, and the ratios (1.85-2.12 and 1.87-2.14) overlap: `~`, with
/// both probes in the note. The same 440 beside an unmoved probe is `*`.
#[test]
fn a_latency_that_moved_with_the_probe_is_the_machine() {
    let a = probed(120.0, [115.0, 125.0], Some((120.0, [118.0, 124.0])));
    let b = probed(440.0, [420.0, 460.0], Some((440.0, [430.0, 450.0])));
    let (why, note) = judge(&a, &b, DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved);
    let note = note.unwrap();
    assert!(note.contains("from 120.0 to 440.0 ns"), "{note}");
    let still = probed(440.0, [420.0, 460.0], Some((121.0, [119.0, 125.0])));
    assert_eq!(judge(&a, &still, DEFAULT_FLOOR).0, Why::IntervalsDisjoint);
    assert_eq!(Why::MachineMoved.mark(), "~");
}

/// A fixed cost plus line transfers: 500 ns [495, 505] with the probe at
/// 430 [420, 440] ns, then 175 [170, 180] ns with it at 100 [95, 105] ns.
/// The parameter's factor, widened to the floor [166.25/525, 183.75/475] =
/// [0.317, 0.387], lies between the probe's far bound 95/440 = 0.216 and
/// 1: `~`. Down to 80 [78, 82] ns, a factor [0.145, 0.177], it moved by
/// more than the probe but within the floor's phase modes (0.216 x 0.5 =
/// 0.108): `~`. Down to 40 [39, 41] ns, [0.072, 0.088], beyond them: `*`;
/// up to 900 ns while the probe fell, against it: `*`.
#[test]
fn a_latency_moves_by_a_factor_between_one_and_the_probes() {
    let slow = probed(500.0, [495.0, 505.0], Some((430.0, [420.0, 440.0])));
    let fast = |v: f64, ci| probed(v, ci, Some((100.0, [95.0, 105.0])));
    let (why, note) = judge(&slow, &fast(175.0, [170.0, 180.0]), DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    assert!(note.unwrap().contains("in its direction"));
    let more = judge(&slow, &fast(80.0, [78.0, 82.0]), DEFAULT_FLOOR);
    assert_eq!(more.0, Why::MachineMoved, "{:?}", more.1);
    assert!(more.1.unwrap().contains("phase modes up to x0.108"));
    let beyond = judge(&slow, &fast(40.0, [39.0, 41.0]), DEFAULT_FLOOR);
    assert_eq!(beyond.0, Why::IntervalsDisjoint, "{:?}", beyond.1);
    let against = judge(&slow, &fast(900.0, [890.0, 910.0]), DEFAULT_FLOOR);
    assert_eq!(against.0, Why::IntervalsDisjoint);
    // The same figures the other way round: the probe rose, and so did the
    // parameter, by less.
    let back = judge(&fast(175.0, [170.0, 180.0]), &slow, DEFAULT_FLOOR);
    assert_eq!(back.0, Why::MachineMoved);
}

/// T_ML's `t_i` of 25.4 [-45.8, 96.6] ns then 186 [136, 236] ns beside
/// probes of 96.7 then 420.5 ns: a time, its first interval
/// reaching below zero, cut there, so the change is x[136 / 96.6, inf] =
/// x[1.408, inf], which the probe's x[4.14, 4.57] (x[1, 9.15] with the phase
/// modes) reaches: `~`. The other way round, 186 then 25.4 with the probe
/// rising, the change x[0, 96.6 / 136 = 0.71] is against it: `*`. And the
/// decomposition's mailbox `int_s1` (six virtual processors)
/// 0.439 [0.282, 0.596] ns/B beside probes of 422 [409, 480] ns, then
/// 0.0736 [-0.0984, 0.246] beside 92.0 [89.5, 99.5]: x[0, 0.246 / 0.282 =
/// 0.872] against the probe's x[0.186, 0.243] (x[0.093, 1]): `~`. A value
/// at zero or below has no factor: `*`, and the note says why.
#[test]
fn an_interval_through_zero_is_cut_there() {
    let a = probed(25.4, [-45.8, 96.6], Some((96.7, [94.0, 99.0])));
    let b = probed(186.0, [136.0, 236.0], Some((420.5, [410.0, 430.0])));
    let (why, note) = judge(&a, &b, DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    let note = note.unwrap();
    assert!(note.contains("[1.408, inf]"), "{note}");
    let b_first = probed(186.0, [136.0, 236.0], Some((96.7, [94.0, 99.0])));
    let a_then = probed(25.4, [-45.8, 96.6], Some((420.5, [410.0, 430.0])));
    assert_eq!(
        judge(&b_first, &a_then, DEFAULT_FLOOR).0,
        Why::IntervalsDisjoint
    );
    let s1 = probed(0.439, [0.282, 0.596], Some((422.0, [409.0, 480.0])));
    let s1_then = probed(0.0736, [-0.0984, 0.246], Some((92.0, [89.5, 99.5])));
    assert_eq!(judge(&s1, &s1_then, DEFAULT_FLOOR).0, Why::MachineMoved);
    let negative = probed(-0.053, [-0.055, -0.051], Some((92.0, [89.5, 99.5])));
    let (why, note) = judge(&negative, &s1, DEFAULT_FLOOR);
    assert_eq!(why, Why::IntervalsDisjoint);
    assert!(note.unwrap().contains("not above zero"));
}

/// spin-nohint's t0 342 [334, 347] ns beside probes of 427 [420, 440] ns
/// (2-vCPU EPYC VM), then 71.8 [69.9, 72.4] ns beside 102 [99, 105] ns:
/// a factor [0.201, 0.217] by its own intervals, within the probe's far
/// bound 99/440 = 0.225: `~`, with the floor or without. The range goes on
/// to 0.225 x 0.5 = 0.1125 (the phase modes). 36 [35, 37] ns, by its own
/// intervals [0.1009, 0.1108], falls short of it: `*` with no floor;
/// widened to the 5 % floor, [37.8 / 324.9 = 0.1163 at the top], it
/// reaches it: `~`. Down to 25 ns (a factor of at most 0.081 widened), `*`.
#[test]
fn the_factor_is_taken_from_intervals_widened_to_the_floor() {
    let slow = probed(342.0, [334.0, 347.0], Some((427.0, [420.0, 440.0])));
    let fast = |v: f64, ci| probed(v, ci, Some((102.0, [99.0, 105.0])));
    for floor in [DEFAULT_FLOOR, 0.0] {
        let (why, note) = judge(&slow, &fast(71.8, [69.9, 72.4]), floor);
        assert_eq!(why, Why::MachineMoved, "{note:?}");
    }
    let (why, note) = judge(&slow, &fast(36.0, [35.0, 37.0]), DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    assert_eq!(
        judge(&slow, &fast(36.0, [35.0, 37.0]), 0.0).0,
        Why::IntervalsDisjoint
    );
    let more = judge(&slow, &fast(25.0, [24.0, 26.0]), DEFAULT_FLOOR);
    assert_eq!(more.0, Why::IntervalsDisjoint, "{:?}", more.1);
}

/// The phase modes' range: a probe that rose x[1.1, 1.2] explains up to
/// 1.2 x 1.2 = 1.44; one that rose x[4, 4.5], up to 4.5 x 2 = 9; one that
/// fell x[0.2, 0.25], down to 0.2 x 0.5 = 0.1.
#[test]
fn the_phase_modes_widen_the_probes_range() {
    let close = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() + (a[1] - b[1]).abs() < 1e-12;
    assert!(close(explained([1.1, 1.2], true), [1.0, 1.44]));
    assert!(close(explained([4.0, 4.5], true), [1.0, 9.0]));
    assert!(close(explained([0.2, 0.25], false), [0.1, 1.0]));
}

/// pingpong's mailbox `n_half_bytes = t_startup / t_per_byte`, two quick
/// runs: 475 [382, 570] B beside probes of 96 [94, 102] ns,
/// then 1090 [819, 1360] B beside 53.4 [34, 55] ns, when the round trip
/// fell x0.55 and `t_per_byte` x0.30. Against the probe's direction, but
/// a ratio of two quantities that fall with it: from the probe's far
/// bound 34 / 102 = 0.333 and its phase modes, 0.333 x 0.5 = 0.167, it
/// may move from x0.167 to x6.0: `~`. As a plain latency, `*`; and x10
/// is beyond it either way.
#[test]
fn n_half_moves_either_way_with_the_machine() {
    let n_half = |v: f64, ci, rt: f64, rt_ci| Probed {
        both_ways: true,
        ..probed(v, ci, Some((rt, rt_ci)))
    };
    let a = n_half(475.0, [382.0, 570.0], 96.0, [94.0, 102.0]);
    let b = n_half(1090.0, [819.0, 1360.0], 53.4, [34.0, 55.0]);
    let (why, note) = judge(&a, &b, DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    assert!(note.unwrap().contains("either way"));
    let plain = |p: &Probed| Probed {
        both_ways: false,
        ..p.clone()
    };
    assert_eq!(
        judge(&plain(&a), &plain(&b), DEFAULT_FLOOR).0,
        Why::IntervalsDisjoint
    );
    let far = n_half(4750.0, [4700.0, 4800.0], 53.4, [34.0, 55.0]);
    assert_eq!(judge(&a, &far, DEFAULT_FLOOR).0, Why::IntervalsDisjoint);
    assert!(moves_both_ways("n_half_bytes") && !moves_both_ways("t_startup_ns"));
}

/// oneway's mailbox `t_per_byte` 0.122 [0.1215, 0.1225] ns/B beside probes
/// of 100 [99, 103] ns, then 0.0369 [0.0364, 0.0375] ns/B in a run whose
/// probes spanned 39 to 117 ns: the probes' bounds allow
/// x[39 / 103, 117 / 99] = [0.379, 1.182], with the phase modes [0.189,
/// 1.397]; the parameter's factor, widened [0.0351 / 0.1281, 0.0387 /
/// 0.1159] = [0.274, 0.334], lies within: `~`.
#[test]
fn a_mixed_run_allows_the_phase_modes_too() {
    let a = probed(0.122, [0.1215, 0.1225], Some((100.0, [99.0, 103.0])));
    let b = probed(0.0369, [0.0364, 0.0375], Some((53.3, [39.0, 117.0])));
    let (why, note) = judge(&a, &b, DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    let c = probed(0.02, [0.0195, 0.0205], Some((53.3, [39.0, 117.0])));
    assert_eq!(judge(&a, &c, DEFAULT_FLOOR).0, Why::IntervalsDisjoint);
}

/// oneway's mailbox `t_per_byte`, two quick runs: 0.121
/// [0.1205, 0.1215] ns/B beside probes of 100 [97, 104] ns, then 0.597
/// [0.595, 0.599] ns/B beside probes whose median was 456 ns but whose
/// range, 98 to 470 ns, spans the machine's change from its fast state to
/// its slow one during the run. The probes' intervals overlap, but the
/// second spans x4.8 (more than [`STATE_SPAN`]); the parameter's factor,
/// widened [0.567 / 0.127, 0.627 / 0.115] = [4.46, 5.45], reaches their
/// bounds' [98 / 104, 470 / 97] = [0.94, 4.85]: `~`, the note giving both
/// ranges. x20 is beyond them, even with the floor's phase modes (up to
/// x9.7): `*`. With both runs' probes settled (100
/// [97, 104] then 102 [99, 106]), the same change is `*`, as before.
#[test]
fn a_run_whose_probes_spanned_a_change_of_state() {
    let fast = probed(0.121, [0.1205, 0.1215], Some((100.0, [97.0, 104.0])));
    let mixed = |v: f64, ci| probed(v, ci, Some((456.0, [98.0, 470.0])));
    let (why, note) = judge(&fast, &mixed(0.597, [0.595, 0.599]), DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    let note = note.unwrap();
    assert!(
        note.contains("changed state during a run")
            && note.contains("97.000 to 104.0 ns then 98.000 to 470.0 ns"),
        "{note}"
    );
    let (why, _) = judge(&fast, &mixed(2.42, [2.4, 2.44]), DEFAULT_FLOOR);
    assert_eq!(why, Why::IntervalsDisjoint);
    let settled = probed(0.597, [0.595, 0.599], Some((102.0, [99.0, 106.0])));
    let (why, note) = judge(&fast, &settled, DEFAULT_FLOOR);
    assert_eq!(why, Why::IntervalsDisjoint);
    assert!(note.unwrap().contains("do not show that the machine moved"));
}

/// 100 [99, 101] then 104 [103.5, 104.5]: apart by their intervals, but
/// within the 5 % floor (widened: [95, 105] and [98.8, 109.2]); 100 then
/// 112 [111, 113] is not (widened [106.4, 117.6]). With no floor, 104 is
/// marked.
#[test]
fn the_floor_widens_both_intervals() {
    let a = Probed::plain(100.0, Some([99.0, 101.0]));
    let near = Probed::plain(104.0, Some([103.5, 104.5]));
    let far = Probed::plain(112.0, Some([111.0, 113.0]));
    assert_eq!(judge(&a, &near, 0.05).0, Why::WithinFloor);
    assert_eq!(Why::WithinFloor.mark(), "");
    assert_eq!(judge(&a, &far, 0.05).0, Why::IntervalsDisjoint);
    assert_eq!(judge(&a, &near, 0.0).0, Why::IntervalsDisjoint);
}

/// oneway's mailbox `t_per_byte` as the sweep records it: the value with its
/// interval, the round trip 100 ns [98, 106], and the copy probe (ns/B with
/// its interval) where the file has one.
fn per_byte(value: f64, ci: [f64; 2], copy: Option<(f64, [f64; 2])>) -> Probed {
    use crate::control::Placement;
    let mut k = KernelResult::new("oneway", "scibench", Placement::Pinned, vec![0, 1]);
    k.headline = vec![
        Param::new("t_per_byte_ns", None, value).with_ci(Some(ci), "fit"),
        Param::new(PROBE_PARAM, None, 100.0).with_ci(Some([98.0, 106.0]), "r"),
    ];
    if let Some((c, ci)) = copy {
        k.headline
            .push(Param::new(COPY_PROBE_PARAM, None, c).with_ci(Some(ci), "r"));
    }
    Probed::in_kernel(&k, "t_per_byte_ns", None, value, Some(ci))
}

/// Three quick runs on a 2-vCPU VM, their round trips all
/// about 100 ns: `t_per_byte` 0.1185 [0.1179, 0.1191] ns/B with the copy
/// probe 0.1651 [0.1562, 0.1729], then 0.1534 [0.1529, 0.1539] with 0.2107
/// [0.2012, 0.2129]: the probes' factor is x[0.2012 / 0.1729, 0.2129 /
/// 0.1562] = x[1.164, 1.363], the parameter's (widened to 5 %) x[0.14571 /
/// 0.12443, 0.16107 / 0.11258] = x[1.171, 1.431]; they overlap: the copies
/// slowed, `~`. A third run, 0.1241 [0.1232, 0.1249] with the copy probe
/// 0.2074 [0.1998, 0.2113], against the second: the probes overlap, `*`.
/// Without the copy probe the round trip judges it, as before.
#[test]
fn a_time_per_byte_is_judged_against_the_copy_probe() {
    let two = per_byte(0.1185, [0.1179, 0.1191], Some((0.1651, [0.1562, 0.1729])));
    let six = per_byte(0.1534, [0.1529, 0.1539], Some((0.2107, [0.2012, 0.2129])));
    let seven = per_byte(0.1241, [0.1232, 0.1249], Some((0.2074, [0.1998, 0.2113])));
    assert_eq!(two.probe_kind, ProbeKind::Copy);
    let (why, note) = judge(&two, &six, 0.05);
    assert_eq!(why, Why::MachineMoved);
    let note = note.unwrap();
    assert!(
        note.contains("copy probe went from 0.1651 to 0.2107 ns/B"),
        "{note}"
    );
    assert!(
        note.contains("the copy probe by x1.276 [1.164, 1.363]"),
        "{note}"
    );
    let (why, note) = judge(&seven, &six, 0.05);
    assert_eq!(why, Why::IntervalsDisjoint);
    assert!(note.unwrap().contains("ns/B copied one way"));
    let old = per_byte(0.1185, [0.1179, 0.1191], None);
    assert_eq!(old.probe_kind, ProbeKind::RoundTrip);
    assert!(old.moves_with_probe);
    // T_ML's time per byte and link, in ms/B, beside `speedup`'s copy probe.
    let mut k = KernelResult::new(
        "speedup",
        "lamanna",
        crate::control::Placement::Pinned,
        vec![0, 1],
    );
    k.headline = vec![
        Param::new("tc_ms_per_byte", None, 1.17e-7).with_ci(Some([1.1e-7, 1.2e-7]), "fit"),
        Param::new(COPY_PROBE_PARAM, None, 0.15).with_ci(Some([0.14, 0.16]), "r"),
    ];
    let tc = Probed::in_kernel(&k, "tc_ms_per_byte", None, 1.17e-7, Some([1.1e-7, 1.2e-7]));
    assert_eq!(tc.probe_kind, ProbeKind::Copy);
    assert!(moves_with_copy("tc_ms_per_byte") && !moves_with_copy("copy_probe_ns_per_byte"));
}

/// `pingpong/atomic-flags`' `channel_over_baseline` with its baseline, the
/// flags' 8-byte one-way time.
fn over_baseline(value: f64, ci: [f64; 2], flags: f64, flags_ci: [f64; 2]) -> Probed {
    let mut k = KernelResult::new(
        "pingpong",
        "scibench",
        crate::control::Placement::Pinned,
        vec![0, 1],
    )
    .with_transport(Some("atomic-flags"));
    k.headline = vec![
        Param::new("one_way_ns", Some("8 B"), flags).with_ci(Some(flags_ci), "r"),
        Param::new(PROBE_PARAM, None, 100.0).with_ci(Some([98.0, 106.0]), "r"),
    ];
    Probed::in_kernel(&k, "channel_over_baseline", Some("8 B"), value, Some(ci))
}

/// Two quick runs on a 2-vCPU VM: `channel_over_baseline`
/// 6.27 [6.00, 6.57] with the flags at 50.5 [49.3, 55.0] ns, then 4.43
/// [4.14, 4.55] with the flags at 220.0 [217.8, 233.5] (the slow state; the
/// channel's 8 bytes 320 then 991 ns). The ratio fell as its baseline rose:
/// `~`, the baseline's move. A ratio that rose to 8.0 [7.6, 8.3] with the
/// flags at 48 [46, 52] is `*`: its baseline did not move.
#[test]
fn a_ratio_over_the_baseline_moves_against_it() {
    let one = over_baseline(6.27, [6.0, 6.57], 50.5, [49.3, 55.0]);
    let two = over_baseline(4.43, [4.14, 4.55], 220.0, [217.8, 233.5]);
    assert_eq!(one.probe_kind, ProbeKind::Baseline);
    let (why, note) = judge(&one, &two, 0.05);
    let note = note.unwrap();
    assert_eq!(why, Why::MachineMoved, "{note}");
    assert!(
        note.contains("two-flag baseline went from 50.500 to 220.0 ns")
            && note.contains("against it")
            && note.contains("the two-flag baseline by x4.356 [3.960, 4.736]"),
        "{note}"
    );
    let three = over_baseline(8.0, [7.6, 8.3], 48.0, [46.0, 52.0]);
    let (why, note) = judge(&one, &three, 0.05);
    assert_eq!(why, Why::IntervalsDisjoint);
    assert!(note.unwrap().contains("ns one way"));
}

/// `comet-barrier`'s std barrier at P = 2 in two quick runs
/// (2-vCPU EPYC VM): 16.8 us [16.5, 17.1] where its waiter slept about once
/// a barrier, 0.411 us [0.403, 0.420] where it did not, the probe unmoved:
/// a change of mode, `~`, with the sleeps in the note; without the sleeps
/// recorded, `*`.
#[test]
fn a_barrier_whose_waiters_slept_differently_changed_mode() {
    let barrier = |value: f64, ci: [f64; 2], sleeps: Option<f64>| {
        let mut k = KernelResult::new(
            "comet-barrier",
            "comet",
            crate::control::Placement::Pinned,
            vec![0, 1],
        );
        let mut point = crate::results::Point::new().with("processors", 2.0);
        if let Some(s) = sleeps {
            point = point.with(SLEEPS_PARAM, s);
        }
        k.points = vec![point];
        k.headline = vec![Param::new(PROBE_PARAM, None, 100.0).with_ci(Some([98.0, 106.0]), "r")];
        Probed::in_kernel(&k, "barrier_ns", Some("P = 2"), value, Some(ci))
    };
    let slept = barrier(16_800.0, [16_500.0, 17_100.0], Some(1.02));
    let spun = barrier(411.0, [403.0, 420.0], Some(0.01));
    let (why, note) = judge(&slept, &spun, 0.05);
    let note = note.unwrap();
    assert_eq!(why, Why::ModeChanged, "{note}");
    assert!(
        note.contains("the barrier's waiters slept 1.02 then 0.01 times a barrier"),
        "{note}"
    );
    let (why, _) = judge(
        &barrier(16_800.0, [16_500.0, 17_100.0], None),
        &barrier(411.0, [403.0, 420.0], None),
        0.05,
    );
    assert_eq!(why, Why::IntervalsDisjoint);
}

/// `hockney-vector`'s f64 triad, L1 `n_1/2`, in three of five quick runs on a
/// 2-vCPU VM, as `compare` reads a card row: 13.2 [11.9,
/// 14.5] flop beside a rate probe of 16.29 [16.29, 16.30] Gflop/s; then
/// 27.6 [22.5, 33.0] where the probe read 8.94 [8.90, 9.05] (`r_inf` fell
/// x0.57, `t0` rose x3.5). The probe's far bound 8.90 / 16.30 = 0.546 with
/// the phase modes gives 0.546 x 0.546 = 0.298, so `r_inf t0` may move from
/// x0.298 to x3.36: the change, x[22.5 / 14.5, 33.0 / 11.9] = x[1.55,
/// 2.77], lies within it, `~`. In the third run, 31.7 [28.0, 35.6] with the
/// probe at 14.0 [13.65, 14.41] (x[0.837, 0.885], so x[0.70, 1.43] either
/// way), the change x[1.93, 2.99] is more than the probe explains: `*`.
#[test]
fn a_vector_n_half_moves_either_way_with_the_rate_probe() {
    use crate::control::Placement;
    let n_half = |value: f64, ci: [f64; 2], rate: f64, rate_ci: [f64; 2]| {
        let g = |v: f64| v * 1e9;
        let mut k = KernelResult::new("hockney-vector", "hockney", Placement::Pinned, vec![0]);
        k.headline = vec![
            Param::new("l1_n_half_flop", Some("L1"), value).with_ci(Some(ci), "b"),
            Param::new(RATE_PROBE_PARAM, None, g(rate)).with_ci(Some(rate_ci.map(g)), "r"),
        ];
        Probed::in_kernel(&k, "l1_n_half_flop", Some("L1"), value, Some(ci))
    };
    let first = n_half(13.2, [11.9, 14.5], 16.29, [16.29, 16.30]);
    assert!(first.both_ways && first.probe_kind == ProbeKind::Rate);
    let slow = n_half(27.6, [22.5, 33.0], 8.94, [8.90, 9.05]);
    let (why, note) = judge(&first, &slow, DEFAULT_FLOOR);
    assert_eq!(why, Why::MachineMoved, "{note:?}");
    let note = note.unwrap();
    assert!(
        note.contains("rate probe went from 16.290 to 8.940"),
        "{note}"
    );
    assert!(note.contains("either way"), "{note}");
    let mixed = n_half(31.7, [28.0, 35.6], 14.0, [13.65, 14.41]);
    assert_eq!(
        judge(&first, &mixed, DEFAULT_FLOOR).0,
        Why::IntervalsDisjoint
    );
    assert!(moves_both_ways("l1_n_half_flop") && !moves_both_ways("s_half_flop"));
}
