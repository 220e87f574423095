//! Tests of `sync_result`: a method's result from synthetic sweeps with
//! known parameters.

use super::*;
use std::time::Duration;

/// A LOCKS-like sweep: short grains of 16, 32 and 48 flop on `t = 120 +
/// s / 8`, and long ones of 40 000, 100 000 and 160 000 flop whose
/// overheads are 5, 30 and 30 µs, their hand-overs sleeping `sleeps`
/// times a segment; every processor's serial rate 4 flop/ns each round.
fn sweep(sleeps: [f64; 3]) -> MethodSweep {
    let grain = |s: usize, t: f64, blocks: f64| GrainSamples {
        grain: s,
        reps: 1000,
        samples_ns: vec![t; 9],
        blocks_per_segment: vec![blocks; 9],
        preempted_per_s: vec![0.0; 9],
    };
    let mut grains: Vec<GrainSamples> = [16, 32, 48]
        .iter()
        .map(|&s| grain(s, 120.0 + s as f64 / 8.0, 0.0))
        .collect();
    for ((s, overhead), blocks) in [(40_000, 5e3), (100_000, 3e4), (160_000, 3e4)]
        .into_iter()
        .zip(sleeps)
    {
        grains.push(grain(s, overhead + s as f64 / 8.0, blocks));
    }
    MethodSweep {
        method: Method::Locks,
        grains,
        short: 3,
        asleep: Vec::new(),
        serial_flop_per_ns: 4.0,
        serial_rounds: vec![4.0; 9],
        pair_rounds: Vec::new(),
        syscall_rounds: vec![300.0; 9],
        placement: Placement::Pinned,
    }
}

fn plan() -> SyncPlan {
    SyncPlan {
        cpus: vec![0, 1],
        parts: 2,
        grains: None,
        points: 3,
        max_grain: 1 << 16,
        trials: 9,
        target: Duration::from_millis(1),
        wait_timeout: Duration::from_secs(1),
        oversubscribe: false,
        skip_part: None,
    }
}

fn headline(r: &KernelResult, name: &str) -> f64 {
    r.headline.iter().find(|p| p.name == name).unwrap().value
}

/// Long grains that slept 0, 1.5 and 1.5 times a segment: their line
/// gives `r_inf` = 1 / (1/8 + 25 000 / 120 000) = 3 flop/ns, the rate
/// probe 2 x 4 = 8. The result takes the probe's, says so in a warning
/// and in the fit, and `s_1/2` = 120 ns x 8 flop/ns = 960 flop. Long
/// grains that all slept alike take the probe's too, with no warning,
/// as do those of which one slept once in thirty segments; those that
/// slept once in a hundred or never keep their line's slope.
#[test]
fn long_grains_that_slept_differently_give_way_to_the_rate_probe() {
    let r = method_result(&sweep([0.0, 1.5, 1.5]), &plan(), 20.0, &[], &[]);
    assert!((headline(&r, "r_inf_flop_per_s") - 8e9).abs() < 1.0);
    assert!((headline(&r, "t0_ns") - 120.0).abs() < 1e-9);
    assert!((headline(&r, "s_half_flop") - 960.0).abs() < 1e-6);
    // The system-call probe: nine rounds at 300 ns, beside the fit too.
    assert!((headline(&r, crate::results::SYSCALL_PROBE_PARAM) - 300.0).abs() < 1e-9);
    assert_eq!(r.fits[0].params[crate::results::SYSCALL_PROBE_PARAM], 300.0);
    assert_eq!(r.fits[0].params.get(R_INF_FROM_PROBE), Some(&1.0));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("slept 0.00 to 1.50") && w.contains("rate probe")),
        "{:?}",
        r.warnings
    );
    let r = method_result(&sweep([1.5, 1.5, 1.5]), &plan(), 20.0, &[], &[]);
    assert!((headline(&r, "r_inf_flop_per_s") - 8e9).abs() < 1.0);
    assert_eq!(r.fits[0].params.get(R_INF_FROM_PROBE), Some(&1.0));
    assert!(!r.warnings.iter().any(|w| w.contains("slept")));
    // One sleep in thirty segments at one long grain is a sleep; one in
    // a hundred is not.
    let r = method_result(&sweep([0.0, 0.0, 0.03]), &plan(), 20.0, &[], &[]);
    assert_eq!(r.fits[0].params.get(R_INF_FROM_PROBE), Some(&1.0));
    for sleeps in [[0.0; 3], [0.0, 0.0, 0.01]] {
        let r = method_result(&sweep(sleeps), &plan(), 20.0, &[], &[]);
        assert!((headline(&r, "r_inf_flop_per_s") - 3e9).abs() < 1e3);
        assert!(!r.fits[0].params.contains_key(R_INF_FROM_PROBE));
    }
}

/// Nine rounds of a spinning method (`t = 120 + s / 8` at every grain)
/// with its probes at 125 ns, but for `slow` rounds whose probes
/// read 400 ns and whose grains all took three times as long. With four
/// such rounds `t0` is 120 ns from the five others, its interval too,
/// and the probe beside it is theirs (125 ns, five rounds); with five,
/// the machine's usual state for the run is the slow one, and `t0` (360
/// ns) and its probe (400 ns) are the slow rounds'. Probes that stayed
/// within 20 % leave every round in, with no warning.
#[test]
fn rounds_the_machine_spent_in_another_state_are_left_out() {
    let with_slow = |slow: usize| {
        let mut s = sweep([0.0; 3]);
        s.method = Method::SpinHint;
        for g in &mut s.grains {
            g.samples_ns = vec![120.0 + g.grain as f64 / 8.0; 9];
            for t in &mut g.samples_ns[9 - slow..] {
                *t *= 3.0;
            }
        }
        let probes: Vec<f64> = (0..9)
            .map(|r| if r >= 9 - slow { 400.0 } else { 125.0 })
            .collect();
        (s, probes)
    };
    let (s, probes) = with_slow(4);
    let r = method_result(&s, &plan(), 20.0, &probes, &[]);
    assert!((headline(&r, "t0_ns") - 120.0).abs() < 1e-9);
    let ci = r.headline.iter().find(|p| p.name == "t0_ns").unwrap().ci95;
    assert!(
        matches!(ci, Some([lo, hi]) if lo <= 120.0 && hi < 130.0),
        "{ci:?}"
    );
    assert_eq!(r.fits[0].params.get(IN_STATE_PARAM), Some(&5.0));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("5 of 9 rounds") && w.contains("read 400.0 ns")),
        "{:?}",
        r.warnings
    );
    assert_eq!(probes_of_fit(&s, &probes, &[]), vec![125.0; 5]);
    // Of the probes around the sweep, those in the kept rounds' state.
    assert_eq!(
        probes_of_fit(&s, &probes, &[124.0, 410.0, 126.0]),
        [125.0, 125.0, 125.0, 125.0, 125.0, 124.0, 126.0]
    );
    assert_eq!(probes_of_fit(&s, &[], &[124.0, 410.0]), [124.0, 410.0]);

    let (s, probes) = with_slow(5);
    let r = method_result(&s, &plan(), 20.0, &probes, &[]);
    assert!((headline(&r, "t0_ns") - 360.0).abs() < 1e-9);
    assert_eq!(probes_of_fit(&s, &probes, &[]), vec![400.0; 5]);

    let (s, _) = with_slow(0);
    let steady: Vec<f64> = (0..9).map(|r| 120.0 + r as f64).collect();
    let r = method_result(&s, &plan(), 20.0, &steady, &[]);
    assert!(!r.fits[0].params.contains_key(IN_STATE_PARAM));
    assert!(!r.warnings.iter().any(|w| w.contains("another state")));
    assert_eq!(probes_of_fit(&s, &steady, &[]), steady);
}

/// An EVENTS-like sweep: short grains of 16, 32 and 48 flop whose first
/// `awake` rounds of nine did not sleep (`t = 1200 + s / 8`) and whose
/// others slept twice a segment at 30 us a sleep; long grains that
/// always slept twice (`t = 61 200 + s / 8`).
fn mixed(awake: usize) -> MethodSweep {
    let mut s = sweep([2.0; 3]);
    s.method = Method::EventsCondvar;
    for g in &mut s.grains[..3] {
        let work = g.grain as f64 / 8.0;
        g.samples_ns = (0..9)
            .map(|r| if r < awake { 1200.0 } else { 61_200.0 } + work)
            .collect();
        g.blocks_per_segment = (0..9).map(|r| if r < awake { 0.0 } else { 2.0 }).collect();
    }
    for g in &mut s.grains[3..] {
        g.samples_ns = vec![61_200.0 + g.grain as f64 / 8.0; 9];
    }
    s
}

/// Three awake rounds of nine: `t0` is theirs, 1200 ns (`s_1/2` = 1200
/// x 8 = 9600 flop), a sleep adds (61 200 - 1200) / 2 = 30 000 ns, and
/// the all-rounds median (61 200 ns) and the awake share (1/3) are in
/// the fit. One awake round a grain is three over the near-zero grains,
/// enough; with none the method is taken as one that sleeps: `t0` is the
/// sleeping hand-over's and there is no `t_wake`.
#[test]
fn a_method_that_slept_in_some_rounds_takes_t0_from_the_others() {
    let r = method_result(&mixed(3), &plan(), 20.0, &[], &[]);
    assert!((headline(&r, "r_inf_flop_per_s") - 8e9).abs() < 1.0);
    assert!((headline(&r, "t0_ns") - 1200.0).abs() < 1e-6);
    assert!((headline(&r, "s_half_flop") - 9600.0).abs() < 1e-3);
    assert!((headline(&r, WAKE_PARAM) - 30_000.0).abs() < 1e-6);
    let p = &r.fits[0].params;
    assert!((p["t0_all_rounds_ns"] - 61_200.0).abs() < 1e-6);
    assert!((p["awake_rounds_share"] - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(p.get(BLOCKS_PARAM), Some(&0.0));
    let ci = r.headline.iter().find(|p| p.name == "t0_ns").unwrap().ci95;
    assert!(
        matches!(ci, Some([lo, hi]) if lo <= 1200.0 && hi >= 1200.0),
        "{ci:?}"
    );

    let r = method_result(&mixed(1), &plan(), 20.0, &[], &[]);
    assert!((headline(&r, "t0_ns") - 1200.0).abs() < 1e-6);
    let r = method_result(&mixed(0), &plan(), 20.0, &[], &[]);
    assert!((headline(&r, "t0_ns") - 61_200.0).abs() < 1e-6);
    assert!(r.headline.iter().all(|p| p.name != WAKE_PARAM));
    assert_eq!(r.fits[0].params.get(BLOCKS_PARAM), Some(&2.0));
}

/// A LOCKS sweep timed in both regimes: awake, `t = 120 + s / 8` at every
/// grain with no sleep; asleep, at 16 and 32 flop, the two posts held back
/// (2 x 100 µs) and 20 µs more per segment, its two waits sleeping in every
/// segment. `t0` is the awake one (120 ns), `t0_asleep` 20 000 ns less the
/// work (16 / 8 and 32 / 8 ns: their median 20 000 ns, as the work is
/// subtracted), `t_wake` = 20 000 - 120 = 19 880 ns, the asleep waits'
/// share 1 and the awake ones' 0.
#[test]
fn the_asleep_regime_gives_t0_asleep_and_t_wake_beside_the_awake_t0() {
    let mut s = sweep([0.0; 3]);
    for g in &mut s.grains[3..] {
        g.samples_ns = vec![120.0 + g.grain as f64 / 8.0; 9];
    }
    let delay = asleep_hold_ns(Method::Locks);
    s.asleep = [16usize, 32]
        .iter()
        .map(|&g| GrainSamples {
            grain: g,
            reps: 100,
            samples_ns: (0..9)
                .map(|r| delay + 20_000.0 + g as f64 / 8.0 + r as f64 - 4.0)
                .collect(),
            blocks_per_segment: vec![2.0; 9],
            preempted_per_s: vec![0.0; 9],
        })
        .collect();
    let r = method_result(&s, &plan(), 20.0, &[], &[]);
    assert!((headline(&r, "t0_ns") - 120.0).abs() < 1e-6);
    assert!((headline(&r, "r_inf_flop_per_s") - 8e9).abs() < 1e3);
    assert!((headline(&r, T0_ASLEEP_PARAM) - 20_000.0).abs() < 1e-6);
    assert!((headline(&r, WAKE_PARAM) - 19_880.0).abs() < 1e-6);
    let ci = r
        .headline
        .iter()
        .find(|p| p.name == WAKE_PARAM)
        .unwrap()
        .ci95
        .unwrap();
    assert!(
        ci[0] <= 19_880.0 && ci[1] >= 19_880.0 && ci[1] - ci[0] <= 8.0,
        "{ci:?}"
    );
    let p = &r.fits[0].params;
    assert_eq!(p["blocks_over_waits_asleep"], 1.0);
    assert_eq!(p[SLEPT_PARAM], 0.0);
    assert_eq!(p["asleep_samples"], 18.0);
    assert!(!r.fits[0].flagged);
    // Every awake point carries its share of waits that slept: none.
    assert!(
        r.points
            .iter()
            .all(|pt| pt.number(SLEPT_PARAM).unwrap() == 0.0)
    );
}

/// A spinning method on a quiet machine: `t0` = 50 ns against long grains
/// of 0.4 to 1.9 Mflop at 4.2 flop/ns (110 to 442 µs) whose medians lie
/// 400 ns below, on and 300 ns above the line, so that one line through all
/// grains has an intercept of -50 ns (as the quiet machine's spin methods
/// had, -211 to -275 ns). The fit reported (t0 from the short grains, r_inf
/// from the long ones) describes every grain: its R^2 is that line's, not
/// the failed check line's 0, and the fit is not flagged.
#[test]
fn a_tiny_t0_against_long_grains_is_not_flagged() {
    let mut s = sweep([0.0; 3]);
    s.method = Method::SpinBare;
    let rate = 4.2;
    for g in &mut s.grains[..3] {
        g.samples_ns = vec![50.0 + g.grain as f64 / rate; 9];
    }
    for (g, (grain, off)) in
        s.grains[3..]
            .iter_mut()
            .zip([(463_952, -400.0), (1_159_872, 0.0), (1_855_808, 300.0)])
    {
        g.grain = grain;
        g.samples_ns = vec![50.0 + grain as f64 / rate + off; 9];
    }
    let x: Vec<f64> = s.grains.iter().map(|g| g.grain as f64).collect();
    let y: Vec<f64> = s.grains.iter().map(|g| g.samples_ns[0]).collect();
    // The check line's intercept is below zero: no line is fitted.
    assert!(fit_hockney(&x, &y).is_err());
    let r = method_result(&s, &plan(), 20.0, &[], &[]);
    assert!(!r.fits[0].flagged, "{:?}", r.warnings);
    assert!(r.fits[0].r2 > 0.999, "{}", r.fits[0].r2);
    assert!((headline(&r, "t0_ns") - 50.0).abs() < 1.0);
}

/// The goodness: 1 for residuals of zero, 1 - 4 / 8 for residuals of
/// (1, -1, 1, -1) about times 0, 2, 2, 4 (mean 2, squares 4 + 0 + 0 + 4).
#[test]
fn goodness_is_one_less_the_residuals_share() {
    assert_eq!(goodness(&[0.0, 2.0, 2.0, 4.0], &[0.0; 4]), 1.0);
    assert_eq!(
        goodness(&[0.0, 2.0, 2.0, 4.0], &[1.0, -1.0, 1.0, -1.0]),
        0.5
    );
    assert_eq!(goodness(&[3.0; 4], &[0.0; 4]), 0.0);
}
