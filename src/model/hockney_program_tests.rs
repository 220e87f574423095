use super::*;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

/// Table I, dyadic: `r_inf` = 70 Mflop/s, `n_1/2` = 53 flop, so `t_0` =
/// 0.757 us (printed 0.75); ten operations of 100 flop by hand:
/// `(1000 + 530) / 70` us = 21.857 us.
#[test]
fn eq4_table_one_dyadic() {
    let t0 = vector_time(70e6, 53.0, 0.0, 1.0);
    assert!(close(t0, 0.75e-6, 0.02), "t0 = {t0}");
    let t = vector_time(70e6, 53.0, 1000.0, 10.0);
    assert!(close(t, 21.857e-6, 1e-4), "T_v = {t}");
    // One operation of length n_1/2 runs at half of r_inf (eq. (3)).
    assert!(close(
        53.0 / vector_time(70e6, 53.0, 53.0, 1.0),
        35e6,
        1e-12
    ));
}

/// Eqs. (5) and (6): Table I's scalar code at 5 Mflop/s, 100 flop = 20 us,
/// beside the vector part above.
#[test]
fn eq5_eq6_scalar_plus_vector() {
    let ts = scalar_time(5e6, 100.0);
    assert!(close(ts, 20e-6, 1e-12));
    let t = vector_time(70e6, 53.0, 1000.0, 10.0) + ts;
    assert!(close(t, 41.857e-6, 1e-4));
}

/// Eq. (11), TASKS: `t = 45 + 3.2 s / 400` us, so `r_inf` = 125 Mflop/s
/// and `s_1/2` = 45 us x 125 flop/us = 5625 flop (Table II rounds them to
/// 130 and 5700); eq. (8) with one segment of 400 flop gives 48.2 us.
#[test]
fn eq8_table_two_tasks() {
    let (r, s_half) = (400.0 / 3.2e-6, 45e-6 * 400.0 / 3.2e-6);
    assert!(close(s_half, 5625.0, 1e-12));
    assert!(
        close(s_half, 5700.0, 0.02),
        "Table II's 5700 within rounding"
    );
    let t = segmented_time(r, s_half, 400.0, 1.0, 1.0);
    assert!(close(t, 48.2e-6, 1e-9), "t = {t}");
    // q segments: q overheads; the t_0 form agrees.
    let t = segmented_time(r, s_half, 4000.0, 10.0, 1.0);
    assert!(close(t, 10.0 * 45e-6 + 32e-6, 1e-9));
    assert!(close(
        segmented_time_t0(r, 45e-6, 4000.0, 10.0, 1.0),
        t,
        1e-12
    ));
}

/// Eq. (9): half the processors idle (`E_p` = 1/2) doubles the work term only.
#[test]
fn eq9_scheduling_efficiency() {
    let t = segmented_time(1e9, 1000.0, 8000.0, 4.0, 0.5);
    assert!(close(t, (16000.0 + 4000.0) / 1e9, 1e-12));
    assert!(close(
        segment_efficiency(1000.0, 8000.0, 4.0, 0.5),
        0.4,
        1e-12
    ));
}

/// The abstract: "more than ~6000 flop ... to run at more than 50%" with
/// TASKS' `s_1/2` = 5700, and ten times `s_1/2` for 91 %.
#[test]
fn grains_for_the_papers_fractions() {
    assert!(close(
        grain_for_efficiency(5700.0, 0.5, 1.0).unwrap(),
        5700.0,
        1e-12
    ));
    let g = grain_for_efficiency(5700.0, 10.0 / 11.0, 1.0).unwrap();
    assert!(close(g, 57000.0, 1e-9));
    assert!(close(
        segment_efficiency(5700.0, g, 1.0, 1.0),
        10.0 / 11.0,
        1e-12
    ));
    // E_p = 0.8: E = 0.4 needs 0.4 s / (1 - 0.5) = 0.8 s_1/2.
    assert!(close(
        grain_for_efficiency(1000.0, 0.4, 0.8).unwrap(),
        800.0,
        1e-12
    ));
    for bad in [0.0, 1.0, -0.1, 0.8] {
        assert!(grain_for_efficiency(1000.0, bad, 0.8).is_err(), "{bad}");
    }
}

/// Kuck's efficiency of a split in whole flop: 10 flop on 4 processors
/// take 3 flop times each, 10/12.
#[test]
fn balance_in_whole_flop() {
    assert!(close(
        balance_efficiency(&[10], 4).unwrap(),
        10.0 / 12.0,
        1e-12
    ));
    assert_eq!(balance_efficiency(&[16, 32], 2).unwrap(), 1.0);
    assert!(balance_efficiency(&[16], 0).is_err());
    assert!(balance_efficiency(&[0], 2).is_err());
}

/// Monte Carlo: a sum of two parameters with symmetric intervals gives the
/// quadrature sum (1.96 sqrt(1 + 1) = 2.77 half-width for sigma 1 each),
/// within the draws' error; a fixed parameter gives a point.
#[test]
fn monte_carlo_propagates_intervals() {
    let a = Estimate::new(100.0, Some([98.04, 101.96]));
    let b = Estimate::new(50.0, Some([48.04, 51.96]));
    let [lo, hi] = monte_carlo(&[a, b], |x| x[0] + x[1]);
    assert!((lo - (150.0 - 2.77)).abs() < 0.2, "lo {lo}");
    assert!((hi - (150.0 + 2.77)).abs() < 0.2, "hi {hi}");
    let [lo, hi] = monte_carlo(&[Estimate::new(3.0, None)], |x| 2.0 * x[0]);
    assert_eq!((lo, hi), (6.0, 6.0));
    // Asymmetric: the upper tail follows the wider half.
    let c = Estimate::new(10.0, Some([9.0, 14.0]));
    let [lo, hi] = monte_carlo(&[c], |x| x[0]);
    assert!(
        (lo - 9.0).abs() < 0.15 && (hi - 14.0).abs() < 0.4,
        "{lo} {hi}"
    );
}

/// A program file: every statement, comments, the segments' work and
/// their balance; errors name the line.
#[test]
fn program_file_parses() {
    let p = Program::parse(
        "# a chain\nvector L1 400 10\nscalar 100 5e6\nsegment 8000 5 # five\nsegment 10 2\n\
         processors 4\nmethod spin-hint\n",
    )
    .unwrap();
    assert_eq!(p.vector[0].level, "L1");
    assert_eq!((p.vector[0].flop, p.vector[0].count), (400.0, 10));
    assert_eq!(p.scalar, Some((100.0, 5e6)));
    assert_eq!(p.segment_work(), (40020.0, 7.0));
    assert_eq!(p.grains().len(), 7);
    assert_eq!(p.method.as_deref(), Some("spin-hint"));
    // 8000 splits evenly on 4; 10 flop take 12 flop times: 40020 / 40024.
    assert!(close(p.e_p(4).unwrap(), 40020.0 / 40024.0, 1e-12));
    for (bad, line) in [
        ("segment 0 5", 1),
        ("\nsegment -8 5", 2),
        ("vector L1 400", 1),
        ("segment 8.5 2", 1),
        ("ep 1.5", 1),
        ("loop 3", 1),
        ("processors 0", 1),
    ] {
        match Program::parse(bad) {
            Err(ProgramError::Syntax { line: l, .. }) => assert_eq!(l, line, "{bad}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}
