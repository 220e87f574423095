//! `compare` conditioned on the machine's state, on hand-built result files: a
//! spin method's t0 and a ping-pong start-up, each beside its kernel's two-flag
//! probe. Same state and same value: no mark; the probe moved and the value
//! moved in its direction by no more than it, or up to twice more (the
//! floor's phase modes): `~`; the probe moved and the value by more than
//! that, or against it: `*`; the value inflated
//! while the probe held still (a busy loop beside the measured CPU): `*`. The
//! card comparison and `--points` judge alike, and the CSV says why.

use halfperf::analysis;
use halfperf::analysis::{
    CardComparisonRow, ComparisonRow, Why, compare, compare_cards, compare_cards_with_floor,
};
use halfperf::control::Placement;
use halfperf::results::{self, FitResult, KernelResult, Param, ResultFile};
use std::collections::BTreeMap;
use std::path::Path;

/// A file with a `hockney-sync/spin-hint` result (t0 and its probe) and a
/// `pingpong/mailbox` result (t_startup and its probe), each value with an
/// interval of ± 4 %, each probe ± 3 %.
fn file(t0: f64, sync_probe: f64, startup: f64, pp_probe: f64) -> ResultFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/machine-a.json");
    let mut f = results::read(&path).expect("the template file");
    let ci = |v: f64, rel: f64| Some([v * (1.0 - rel), v * (1.0 + rel)]);
    let fit = |model: &str, params: &[(&str, f64, f64)]| FitResult {
        model: model.into(),
        x: "x".into(),
        y: "y".into(),
        params: params.iter().map(|(k, v, _)| (k.to_string(), *v)).collect(),
        std_errors: params
            .iter()
            .map(|(k, v, _)| (k.to_string(), 0.02 * v))
            .collect::<BTreeMap<_, _>>(),
        r2: 0.99,
        n_points: 12,
        flagged: false,
    };
    let with = |p: Param, v: f64, rel: f64| p.with_ci(ci(v, rel), "by hand");
    let of = Some("spin-hint");
    let sync = KernelResult::new("hockney-sync", "hockney", Placement::Pinned, vec![0, 1])
        .with_transport(of)
        .with_fits(vec![fit(
            "t = t0 + s/r_inf (eq. 10b)",
            &[("t0_ns", t0, 0.0), ("r_inf_flop_per_s", 6e9, 0.0)],
        )])
        .with_headline(vec![
            with(Param::new("t0_ns", of, t0), t0, 0.04),
            with(Param::new("r_inf_flop_per_s", of, 6e9), 6e9, 0.04),
            with(
                Param::new(results::PROBE_PARAM, of, sync_probe),
                sync_probe,
                0.03,
            ),
        ]);
    let pingpong = KernelResult::new("pingpong", "scibench", Placement::Pinned, vec![0, 1])
        .with_transport(Some("mailbox"))
        .with_fits(vec![fit(
            "t_startup + N t_per_byte",
            &[("t_startup_ns", startup, 0.0), ("t_per_byte_ns", 0.08, 0.0)],
        )])
        .with_headline(vec![
            with(Param::new("t_startup_ns", None, startup), startup, 0.04),
            with(Param::new("t_per_byte_ns", None, 0.08), 0.08, 0.04),
            with(
                Param::new(results::PROBE_PARAM, None, pp_probe),
                pp_probe,
                0.03,
            ),
        ]);
    f.kernels = vec![sync, pingpong];
    f.summary = None;
    f
}

fn card_row<'a>(c: &'a [CardComparisonRow], kernel: &str, name: &str) -> &'a CardComparisonRow {
    c.iter()
        .find(|r| r.kernel == kernel && r.name == name)
        .unwrap_or_else(|| panic!("no row {kernel} {name}"))
}

fn point_row<'a>(c: &'a [ComparisonRow], kernel: &str, quantity: &str) -> &'a ComparisonRow {
    c.iter()
        .find(|r| r.kernel == kernel && r.quantity == quantity)
        .unwrap_or_else(|| panic!("no row {kernel} {quantity}"))
}

/// Judges `b` against `a` on both views and returns the card's and the points'
/// `why` for t0 and for t_startup.
fn judged(a: &ResultFile, b: &ResultFile) -> [(Option<Why>, Option<Why>); 2] {
    let cards = compare_cards(&[a.clone(), b.clone()]);
    let points = compare(&[a.clone(), b.clone()]);
    [
        ("hockney-sync/spin-hint", "t0_ns"),
        ("pingpong/mailbox", "t_startup_ns"),
    ]
    .map(|(k, n)| {
        let c = card_row(&cards.rows, k, n);
        let p = point_row(&points.rows, k, n);
        // `differs` is true exactly for `*`.
        assert_eq!(c.differs[1], c.why[1].map(|w| w == Why::IntervalsDisjoint));
        assert_eq!(p.differs[1], p.why[1].map(|w| w == Why::IntervalsDisjoint));
        (c.why[1], p.why[1])
    })
}

#[test]
fn the_same_state_and_the_same_value_is_not_marked() {
    let a = file(130.0, 100.0, 120.0, 118.0);
    let b = file(133.0, 102.0, 118.0, 120.0);
    for (card, points) in judged(&a, &b) {
        assert_eq!(card, Some(Why::IntervalsOverlap));
        assert_eq!(points, Some(Why::IntervalsOverlap));
    }
}

/// The probe went from 100 to 420 ns and t0 from 130 to 550 ns (ratio 2.6 and
/// 2.62); the probe from 118 to 440 ns and t_startup from 120 to 445 ns (2.03
/// and 2.02): `~`, and the note names both probes.
#[test]
fn a_latency_that_moved_with_the_probe_is_marked_as_the_machine() {
    let a = file(130.0, 100.0, 120.0, 118.0);
    let b = file(550.0, 420.0, 445.0, 440.0);
    for (card, points) in judged(&a, &b) {
        assert_eq!(card, Some(Why::MachineMoved));
        assert_eq!(points, Some(Why::MachineMoved));
    }
    let cards = compare_cards(&[a.clone(), b.clone()]);
    let r = card_row(&cards.rows, "hockney-sync/spin-hint", "t0_ns");
    let note = r.notes[1].as_deref().unwrap();
    assert!(note.contains("from 100.0 to 420.0 ns"), "{note}");
    // r_inf did not move: its intervals overlap, whatever the probe did.
    let r = card_row(&cards.rows, "hockney-sync/spin-hint", "r_inf_flop_per_s");
    assert_eq!(r.why[1], Some(Why::IntervalsOverlap));
    let csv = analysis::cards_to_csv(&cards);
    assert!(
        csv.lines().any(|l| l.contains(",t0_ns,")
            && l.contains(",~,\"machine moved, within what the probe explains\",")),
        "{csv}"
    );
    let text = halfperf::text::card_comparison(&cards);
    assert!(text.contains("~ the machine moved"), "{text}");
}

/// The probe went from 100 to 420 ns (x4.2) but t0 from 130 to 1500 ns
/// (x11.5): more than a fixed cost plus line transfers can move, even in the
/// other of the floor's phase modes (up to x2 more, so at most x8.9 from the
/// probes' far bounds); and t_startup fell
/// from 120 to 60 ns while the probe rose from 118 to 440 ns: against it.
/// Neither moved with the machine: `*`. t0 from 130 to 200 ns (x1.5, a large
/// fixed cost) did: `~`.
#[test]
fn a_latency_that_moved_more_than_the_probe_or_against_it_is_marked_different() {
    let a = file(130.0, 100.0, 120.0, 118.0);
    let b = file(1500.0, 420.0, 60.0, 440.0);
    for (card, points) in judged(&a, &b) {
        assert_eq!(card, Some(Why::IntervalsDisjoint));
        assert_eq!(points, Some(Why::IntervalsDisjoint));
    }
    // x6.9 (130 to 900 ns) is more than the probe moved, but within its
    // phase modes: `~`.
    let d = file(900.0, 420.0, 200.0, 440.0);
    for (card, points) in judged(&a, &d) {
        assert_eq!(card, Some(Why::MachineMoved));
        assert_eq!(points, Some(Why::MachineMoved));
    }
    let c = file(200.0, 420.0, 200.0, 440.0);
    for (card, points) in judged(&a, &c) {
        assert_eq!(card, Some(Why::MachineMoved));
        assert_eq!(points, Some(Why::MachineMoved));
    }
}

/// A busy loop beside the measured CPU: t0 from 130 ns to 3.9 us and t_startup
/// from 120 to 300 ns while the two-flag probe held at 100 and 118 ns: `*`.
#[test]
fn an_inflation_the_probe_does_not_see_is_marked_different() {
    let a = file(130.0, 100.0, 120.0, 118.0);
    let b = file(3900.0, 101.0, 300.0, 117.0);
    for (card, points) in judged(&a, &b) {
        assert_eq!(card, Some(Why::IntervalsDisjoint));
        assert_eq!(points, Some(Why::IntervalsDisjoint));
    }
    let cards = compare_cards(&[a, b]);
    let r = card_row(&cards.rows, "pingpong/mailbox", "t_startup_ns");
    let note = r.notes[1].as_deref().unwrap();
    assert!(
        note.contains("do not show that the machine moved"),
        "{note}"
    );
}

/// t0 from 130 to 143 ns (+10 %) with the probe unmoved: the ± 4 % intervals
/// are apart, but widened to the default 5 % floor they meet: no mark, and the
/// JSON says why. With `--floor 0` the same change is `*`.
#[test]
fn a_change_within_the_run_to_run_floor_is_not_marked() {
    let a = file(130.0, 100.0, 120.0, 118.0);
    let b = file(143.0, 101.0, 120.0, 118.0);
    let cards = compare_cards(&[a.clone(), b.clone()]);
    assert_eq!(cards.floor, analysis::DEFAULT_FLOOR);
    let r = card_row(&cards.rows, "hockney-sync/spin-hint", "t0_ns");
    assert_eq!(r.why[1], Some(Why::WithinFloor));
    assert_eq!(r.differs[1], Some(false));
    let strict = compare_cards_with_floor(&[a, b], 0.0);
    let r = card_row(&strict.rows, "hockney-sync/spin-hint", "t0_ns");
    assert_eq!(r.why[1], Some(Why::IntervalsDisjoint));
}

/// A method that changed mode: t0 from 130 ns to 30 us with the probe
/// unmoved. With the fit's `short_blocks_per_segment` at 0.02 then 1.9 (the
/// hand-overs began to sleep) both views say `~` and why; with the sleeps
/// unmoved, or with them falling while t0 rose, `*`.
#[test]
fn a_t0_whose_hand_overs_slept_differently_is_a_change_of_mode() {
    let with_blocks = |t0: f64, blocks: f64| {
        let mut f = file(t0, 100.0, 120.0, 118.0);
        f.kernels[0].fits[0]
            .params
            .insert(results::BLOCKS_PARAM.into(), blocks);
        f
    };
    let a = with_blocks(130.0, 0.02);
    let [(card, points), _] = judged(&a, &with_blocks(30_000.0, 1.9));
    assert_eq!(card, Some(Why::ModeChanged));
    assert_eq!(points, Some(Why::ModeChanged));
    let cards = compare_cards(&[a.clone(), with_blocks(30_000.0, 1.9)]);
    let r = card_row(&cards.rows, "hockney-sync/spin-hint", "t0_ns");
    assert_eq!(r.differs[1], Some(false));
    let note = r.notes[1].as_deref().unwrap();
    assert!(note.contains("slept 0.02 then 1.90"), "{note}");
    for b in [with_blocks(30_000.0, 0.1), with_blocks(30_000.0, 0.0)] {
        let [(card, points), _] = judged(&with_blocks(130.0, 0.3), &b);
        assert_eq!(card, Some(Why::IntervalsDisjoint));
        assert_eq!(points, Some(Why::IntervalsDisjoint));
    }
}
