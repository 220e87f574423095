//! `halfperf simulate`: seeded runs are identical, the experiment's JSON carries the
//! eq. 11 coefficients, bad input gets one line and exit status 2, a 1024-node
//! hypercube finishes, and Lamanna's experiment reproduces the thesis's Table 7 and
//! Appendix E (`tests/data/lamanna_appendix_e.csv`).

use std::process::{Command, Output};

fn halfperf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(args)
        .output()
        .expect("halfperf runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = halfperf(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn seeded_runs_are_identical() {
    let args = [
        "simulate",
        "--nodes",
        "16",
        "--bursts",
        "5",
        "--receivers",
        "8",
        "--burst-dist",
        "exponential",
        "--runs",
        "3",
        "--seed",
        "42",
        "--json",
    ];
    let (a, b) = (json(&args), json(&args));
    assert_eq!(a["time_ms"], b["time_ms"]);
    assert_eq!(a["events"], b["events"]);
    let times = |v: &serde_json::Value| -> Vec<f64> {
        v["run_results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["time_ms"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(times(&a), times(&b));
    // 16 nodes, 5 bursts, 8 receivers: 640 messages per run.
    assert_eq!(a["messages"].as_f64(), Some(640.0));
    let other = json(&[
        "simulate",
        "--nodes",
        "16",
        "--bursts",
        "5",
        "--receivers",
        "8",
        "--burst-dist",
        "exponential",
        "--runs",
        "3",
        "--seed",
        "43",
        "--json",
    ]);
    assert_ne!(times(&a), times(&other), "another seed, other runs");
}

#[test]
fn text_output_names_the_quantities() {
    let out = halfperf(&["simulate", "--runs", "2"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["time", "events", "messages", "events per second"] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
}

#[test]
fn experiment_json_has_the_eq11_fit() {
    let v = json(&[
        "simulate",
        "--experiment",
        "lamanna",
        "--runs",
        "2",
        "--seed",
        "7",
        "--json",
    ]);
    let eq11 = &v["eq11"];
    let mu = eq11["mu_ms"].as_f64().expect("mu_ms");
    let b = eq11["b"].as_f64().expect("b");
    let c = eq11["c_ms_per_message"].as_f64().expect("c");
    let r2 = eq11["r2"].as_f64().expect("r2");
    assert!(mu.is_finite());
    // The computation dominates: b near 1, a positive cost per message, a close fit.
    assert!((0.9..1.2).contains(&b), "b = {b}");
    assert!(c > 0.0, "c = {c}");
    assert!(r2 > 0.95, "R^2 = {r2}");
    assert!(!v["report"]["units"].as_array().unwrap().is_empty());
    let text = halfperf(&["simulate", "--experiment", "lamanna", "--runs", "1"]);
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("eq. 11"));
}

/// `--scale-u` keeps the thesis's ratio of U to t_l with this machine's costs:
/// t_l = 0.3 us turns U = 1000 and 20000 ms into 0.26709 and 5.3419 ms, and the
/// fitted eq. 11 then has its cost per message in this machine's units.
#[test]
fn experiment_takes_this_machines_costs_and_scales_u() {
    let v = json(&[
        "simulate",
        "--experiment",
        "lamanna",
        "--tl-ms",
        "0.0003",
        "--tc-ms-per-byte",
        "0.0000001",
        "--ti-ms",
        "0.0002",
        "--scale-u",
        "--runs",
        "1",
        "--json",
    ]);
    let params = &v["report"]["params"];
    let u: Vec<f64> = params["uniprocessor_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        (u[0] - 0.267_094).abs() < 1e-5 && (u[1] - 5.341_88).abs() < 1e-4,
        "{u:?}"
    );
    assert_eq!(params["ti_ms"].as_f64(), Some(0.0002));
    let b = v["eq11"]["b"].as_f64().unwrap();
    let c = v["eq11"]["c_ms_per_message"].as_f64().unwrap();
    assert!((0.9..1.2).contains(&b), "b = {b}");
    // A message costs t_l + L t_c (+ t_i per forwarding node) = 0.0003 + 0.0001 ms.
    assert!(c > 0.0 && c < 0.01, "c = {c}");
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    for (args, needle) in [
        (&["simulate", "--nodes", "6"][..], "power of two"),
        (
            &["simulate", "--nodes", "8", "--receivers", "8"][..],
            "N - 1",
        ),
        (&["simulate", "--tl-ms", "-1"][..], "tl_ms"),
        (
            &["simulate", "--uniprocessor-ms", "-5"][..],
            "uniprocessor-ms",
        ),
        (
            &["simulate", "--uniprocessor-ms", "1000,20000"][..],
            "one value without --experiment",
        ),
        (&["simulate", "--scale-u"][..], "--experiment lamanna"),
        (
            &[
                "simulate",
                "--experiment",
                "lamanna",
                "--tl-ms",
                "0",
                "--scale-u",
            ][..],
            "tl_ms",
        ),
        (&["simulate", "--topology", "mesh"][..], "mesh"),
        (&["simulate", "--receivers", "many"][..], "receivers"),
        (&["simulate", "--calibration", "5"][..], "calibration"),
        (
            &["simulate", "--topology", "torus", "--nodes", "8"][..],
            "square",
        ),
        (&["simulate", "--experiment", "other"][..], "other"),
        (&["simulate", "--params", "slam"][..], "slam"),
        (
            &["simulate", "--experiment", "lamanna", "--params", "eq10"][..],
            "eq10",
        ),
        (&["simulate", "--runs", "0"][..], "--runs"),
        (
            &["simulate", "--experiment", "lamanna", "--runs", "0"][..],
            "--runs",
        ),
        (&["simulate", "--receive-ms", "-0.5"][..], "receive_ms"),
        (&["simulate", "--ti-ms", "fast"][..], "fast"),
        (&["simulate", "--tl-ms", "1,5"][..], "1,5"),
        (
            &[
                "simulate",
                "--experiment",
                "lamanna",
                "--tc-ms-per-byte",
                "-0.001",
            ][..],
            "tc_ms_per_byte",
        ),
        (&["simulate", "--send-hold", "loose"][..], "loose"),
        (&["simulate", "--channel-order", "lifo"][..], "lifo"),
    ] {
        let out = halfperf(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// About five seconds in release on an idle core (52 million events).
#[test]
fn a_1024_node_hypercube_finishes() {
    let v = json(&[
        "simulate",
        "--nodes",
        "1024",
        "--bursts",
        "5",
        "--receivers",
        "all",
        "--runs",
        "1",
        "--json",
    ]);
    assert_eq!(v["messages"].as_f64(), Some(5.0 * 1024.0 * 1023.0));
    assert!(v["events_per_second"].as_f64().unwrap() > 0.0);
}

// ---- Lamanna (1988): Table 7 and Appendix E -------------------------------------------

/// Table 7, "Simulation Results", as printed: mean time (ms) of the normal-burst units
/// as (B, N, R, U = 1000, U = 20000). The U = 20000 entry of (5, 4, 2) is lost in the
/// transcription (NaN here).
const TABLE_7_MS: [(u32, u32, u32, f64, f64); 18] = [
    (1, 4, 2, 273.0, 5325.0),
    (1, 8, 4, 151.0, 2757.0),
    (1, 16, 8, 95.0, 1414.0),
    (1, 32, 16, 91.0, 760.0),
    (1, 2, 1, 517.0, 10270.0),
    (1, 4, 3, 275.0, 5327.0),
    (1, 8, 7, 157.0, 2735.0),
    (1, 16, 15, 113.0, 1434.0),
    (1, 32, 31, 135.0, 805.0),
    (5, 4, 2, 291.0, f64::NAN),
    (5, 8, 4, 192.0, 2797.0),
    (5, 16, 8, 188.0, 1506.0),
    (5, 32, 16, 292.0, 960.0),
    (5, 2, 1, 526.0, 10280.0),
    (5, 4, 3, 301.0, 5357.0),
    (5, 8, 7, 231.0, 2839.0),
    (5, 16, 15, 283.0, 1604.0),
    (5, 32, 31, 513.0, 1183.0),
];

/// A unit's levels: (U ms, B, N, R).
type Cell = (u64, u32, u32, u32);

/// Appendix E's normal-burst runs by unit: run number -> time (ms), as printed.
fn appendix_e() -> std::collections::BTreeMap<Cell, std::collections::BTreeMap<u32, f64>> {
    let text = include_str!("data/lamanna_appendix_e.csv");
    let mut cells = std::collections::BTreeMap::<Cell, std::collections::BTreeMap<u32, f64>>::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 7, "{line}");
        if f[4] != "normal" {
            continue;
        }
        let n = |i: usize| f[i].parse::<u32>().unwrap();
        let key = (f[0].parse::<u64>().unwrap(), n(1), n(2), n(3));
        cells
            .entry(key)
            .or_default()
            .insert(n(5), f[6].parse::<f64>().unwrap());
    }
    cells
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Standard error of the mean.
fn standard_error(v: &[f64]) -> f64 {
    let m = mean(v);
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    (var / v.len() as f64).sqrt()
}

/// Printing errors of the thesis, corrected from its own Appendix E: run 10 of
/// (U 1000, B 5, N 32, R 31, normal) is printed 197.6; its exponential twin (equal to
/// it in every other run, as every R = N - 1 pair is) reads 513.4, and only 513.4
/// gives Table 7's 513.
fn appendix_e_corrected() -> std::collections::BTreeMap<Cell, std::collections::BTreeMap<u32, f64>>
{
    let mut cells = appendix_e();
    let run = cells
        .get_mut(&(1000, 5, 32, 31))
        .and_then(|c| c.get_mut(&10))
        .unwrap();
    assert_eq!(*run, 197.6, "the printing error as transcribed");
    *run = 513.4;
    cells
}

/// Each unit's runs (ms) from an experiment's JSON report, normal bursts.
fn simulated_runs(v: &serde_json::Value) -> std::collections::BTreeMap<Cell, Vec<f64>> {
    v["report"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["shape"] == "Normal")
        .map(|u| {
            let k = |name: &str| u[name].as_f64().unwrap();
            let key = (
                k("uniprocessor_ms") as u64,
                k("bursts") as u32,
                k("nodes") as u32,
                k("receivers") as u32,
            );
            let times = u["times_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_f64().unwrap())
                .collect();
            (key, times)
        })
        .collect()
}

/// The transcription agrees with Table 7 (its means rounded to the printed digit)
/// except where the thesis misprinted, and those misprints are named here: Table 7
/// prints 2735 for (U 20000, B 1, N 8, R 7) where its runs average 2765.0, and 301
/// for (1000, 5, 4, 3) against 304.5, each off by more than the mean's standard
/// error; run 10 of (1000, 5, 32, 31) is printed 197.6 (mean 481.7, against Table 7's
/// 513). Run 1 of both (B 5, N 8, R 7) units is lost in the transcription.
#[test]
fn appendix_e_transcription_against_table_7() {
    let printed = appendix_e();
    let corrected = appendix_e_corrected();
    let misprints = [((20000, 1, 8, 7), 2735.0), ((1000, 5, 4, 3), 301.0)];
    let mut checked = 0;
    for (b, n, r, t1000, t20000) in TABLE_7_MS {
        for (u, table) in [(1000, t1000), (20000, t20000)] {
            let key = (u, b, n, r);
            let runs: Vec<f64> = corrected[&key].values().copied().collect();
            let m = mean(&runs);
            if table.is_nan() || (b, n, r) == (5, 8, 7) {
                assert!(runs.len() >= 9, "{key:?}");
                continue;
            }
            if let Some(&(_, misprint)) = misprints.iter().find(|(k, _)| *k == key) {
                assert!((m - misprint).abs() > standard_error(&runs), "{key:?}: {m}");
                continue;
            }
            assert_eq!(runs.len(), 10, "{key:?}");
            let digit = if u == 1000 { 1.0 } else { 10.0 };
            assert!(
                (m - table).abs() <= 0.5 * digit + 0.5,
                "{key:?}: {m} vs {table}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 36 - 5);
    let misprinted: Vec<f64> = printed[&(1000, 5, 32, 31)].values().copied().collect();
    assert!((mean(&misprinted) - 481.69).abs() < 0.01);
    let fixed: Vec<f64> = corrected[&(1000, 5, 32, 31)].values().copied().collect();
    assert_eq!(mean(&fixed).round(), 513.0);
}

/// The reference value of every Table 7 cell: as printed, except the two misprints
/// and the lost (5, 4, 2, U 20000) entry, which come from Appendix E's runs.
fn table_7_reference() -> Vec<(Cell, f64)> {
    let corrected = appendix_e_corrected();
    let from_runs = [(20000, 1, 8, 7), (1000, 5, 4, 3), (20000, 5, 4, 2)];
    let mut cells = Vec::new();
    for (b, n, r, t1000, t20000) in TABLE_7_MS {
        for (u, table) in [(1000, t1000), (20000, t20000)] {
            let key = (u, b, n, r);
            let value = if from_runs.contains(&key) {
                mean(&corrected[&key].values().copied().collect::<Vec<_>>())
            } else {
                table
            };
            cells.push((key, value));
        }
    }
    cells
}

/// The experiment at its defaults (the listing's model, 10 runs, seed 1) lands within
/// 3 % of every one of Table 7's 36 normal-burst cells (measured: mean |error| 1.0 %,
/// largest 2.5 % at (1000, 5, 4, 3); the N = 2 and 4 cells, whose time is the slowest
/// node's total, sit 1.5-2 % high in all four (U, B): the sampling error of 10 node
/// totals, shared by every unit of the same N through common random numbers). The
/// text's eq. 9 model misses the heavy-traffic cells by a quarter.
#[test]
fn table_7_all_36_cells_within_3_percent_at_the_defaults() {
    let v = json(&["simulate", "--experiment", "lamanna", "--json"]);
    assert_eq!(
        (v["runs"].as_u64(), v["seed"].as_u64()),
        (Some(10), Some(1))
    );
    assert_eq!(v["model"], "listing");
    let sim = simulated_runs(&v);
    let reference = table_7_reference();
    assert_eq!(reference.len(), 36);
    for &(key, table) in &reference {
        let m = mean(&sim[&key]);
        let error = (m - table) / table;
        assert!(error.abs() < 0.03, "{key:?}: {m:.1} vs {table}");
    }
    let eq9 = simulated_runs(&json(&[
        "simulate",
        "--experiment",
        "lamanna",
        "--params",
        "eq9",
        "--json",
    ]));
    for (key, table) in [
        ((1000, 5, 16, 15), 283.0),
        ((1000, 5, 32, 31), 513.0),
        ((1000, 5, 32, 16), 292.0),
    ] {
        let m = mean(&eq9[&key]);
        assert!(m < 0.8 * table, "eq. 9 {key:?}: {m}");
    }
}

/// The check without sampling noise: the thesis drew the same random numbers for B = 1
/// and B = 5, and so does the experiment, so a run's B = 5 minus B = 1 difference is
/// the cost of the four extra rounds of messages alone. Where the model is exact (R =
/// N - 1: every node sends to all others in a fixed order) the simulated mean
/// difference lies within the Appendix E differences' own standard error plus the
/// printed digit (0.1 ms at U = 1000, 1 ms at U = 20000): at N = 2 it is 4 x 2.283 =
/// 9.13 ms (the listing's MSG_INIT + OVERHEAD per message), at N = 32 about 378.5 ms
/// (thesis 378.6 and 378.0). Eq. 9's model gives 4.5 ms and 265 ms. Where receivers
/// are drawn at random (R = N/2) the draws differ from the thesis's, and the
/// difference is within three standard errors.
#[test]
fn appendix_e_b5_minus_b1_differences() {
    let v = json(&["simulate", "--experiment", "lamanna", "--json"]);
    let sim = simulated_runs(&v);
    let paper = appendix_e_corrected();
    for u in [1000, 20000] {
        for n in [2u32, 4, 8, 16, 32] {
            let mut receivers = vec![n - 1, n / 2];
            receivers.dedup();
            for r in receivers {
                let (one, five) = (&paper[&(u, 1, n, r)], &paper[&(u, 5, n, r)]);
                let d: Vec<f64> = five
                    .iter()
                    .filter_map(|(run, t5)| one.get(run).map(|t1| t5 - t1))
                    .collect();
                let s: Vec<f64> = sim[&(u, 5, n, r)]
                    .iter()
                    .zip(&sim[&(u, 1, n, r)])
                    .map(|(t5, t1)| t5 - t1)
                    .collect();
                let (dm, sm, se) = (mean(&d), mean(&s), standard_error(&d));
                let tolerance = if r == n - 1 {
                    se + if u == 1000 { 0.1 } else { 1.0 }
                } else {
                    3.0 * se
                };
                assert!(
                    (sm - dm).abs() <= tolerance,
                    "U {u} N {n} R {r}: simulated {sm:.2}, Appendix E {dm:.2} +/- {se:.2}"
                );
                if n == 2 {
                    assert!((sm - 4.0 * (1.667 + 0.615_844_5)).abs() < 1e-6, "{sm}");
                }
            }
        }
    }
}

/// The experiment's text names its model, runs and seed and prints the eq. 11 refit
/// with 95 % intervals; `--runs` takes more runs.
#[test]
fn experiment_text_names_model_runs_seed_and_intervals() {
    let out = halfperf(&[
        "simulate",
        "--experiment",
        "lamanna",
        "--runs",
        "3",
        "--seed",
        "5",
        "--uniprocessor-ms",
        "1000",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 runs per unit, seed 5"), "{text}");
    assert!(text.contains("model listing"), "{text}");
    assert!(text.contains("95 % intervals"), "{text}");
    let v = json(&[
        "simulate",
        "--experiment",
        "lamanna",
        "--runs",
        "12",
        "--uniprocessor-ms",
        "1000",
        "--json",
    ]);
    assert_eq!(v["runs"].as_u64(), Some(12));
    let units = v["report"]["units"].as_array().unwrap();
    assert!(
        units
            .iter()
            .all(|u| u["times_ms"].as_array().unwrap().len() == 12)
    );
    let ci = &v["eq11"]["ci95"];
    for name in ["mu_ms", "b", "c_ms_per_message"] {
        let lo = ci[name][0].as_f64().unwrap();
        let hi = ci[name][1].as_f64().unwrap();
        let value = v["eq11"][name].as_f64().unwrap();
        assert!(lo < value && value < hi, "{name}: {lo} {value} {hi}");
    }
}

/// Table 6 on the listing model (Appendix B's processor time per message, 1.667 +
/// 0.6158 ms, in place of eq. 9's t_l), row by row, and Appendix D's paired t
/// computed the paper's way from the simulator's own runs: the mean of 5 seeded
/// runs per cell against Appendix D's benchmark averages, the 20 differences'
/// mean over their standard error. The thesis got t = 0.219 (d = 0.525 ms,
/// S_d = 10.73 ms) and did not reject "no difference" at alpha = 0.1
/// (|t| < t_0.95(19) = 1.729); the simulator must not reject it either.
#[test]
fn table_6_rows_on_the_listing_model_and_appendix_d_t() {
    use halfperf::model::simulator::{APPENDIX_B_TL_MS, MessageCosts, SimConfig, simulate};
    use halfperf::model::ttest::t_test_differences;
    // Table 6's simulation column and Appendix D's benchmark averages (ms): per
    // U, (N, simulation, benchmark).
    type Cells = [(u32, f64, f64); 5];
    const ROWS: [(f64, Cells); 4] = [
        (
            200.0,
            [
                (2, 104.0, 104.0),
                (4, 95.0, 104.0),
                (8, 112.0, 130.0),
                (16, 184.0, 169.0),
                (32, 351.0, 348.0),
            ],
        ),
        (
            1205.0,
            [
                (2, 607.0, 606.0),
                (4, 346.0, 349.0),
                (8, 238.0, 255.0),
                (16, 247.0, 224.0),
                (32, 382.0, 398.0),
            ],
        ),
        (
            3615.0,
            [
                (2, 1814.0, 1812.0),
                (4, 950.0, 944.0),
                (8, 540.0, 533.0),
                (16, 398.0, 391.0),
                (32, 458.0, 445.0),
            ],
        ),
        (
            8010.0,
            [
                (2, 4009.0, 4009.0),
                (4, 2048.0, 2056.0),
                (8, 1089.0, 1095.0),
                (16, 672.0, 665.0),
                (32, 595.0, 591.0),
            ],
        ),
    ];
    let mut differences = Vec::new();
    let mut worst: f64 = 0.0;
    for (u, row) in ROWS {
        for (n, table_6, benchmark) in row {
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
            let error = (mean_ms - table_6) / table_6;
            worst = worst.max(error.abs());
            println!(
                "U = {u:>6} N = {n:>2}: listing {mean_ms:8.1} ms, Table 6 {table_6:6.0}, {:+.2} %",
                100.0 * error
            );
            // Table 6 prints whole milliseconds: every row within 1.5 % of it.
            assert!(
                error.abs() < 0.015,
                "U = {u}, N = {n}: {mean_ms} vs {table_6}"
            );
            differences.push(mean_ms - benchmark);
        }
    }
    let t = t_test_differences(&differences, 0.1).unwrap();
    println!(
        "Appendix D from the simulator's runs: dbar = {:.3} ms, S_d = {:.2} ms, t = {:.3} (thesis 0.525, 10.73, 0.219); worst row {:.2} %",
        t.mean_difference,
        t.sd_difference,
        t.t,
        100.0 * worst
    );
    assert_eq!(t.pairs, 20);
    assert!(t.t.abs() < 1.729, "t = {} rejects at alpha 0.1", t.t);
    // The spread of the differences is the benchmark's against the model, as in
    // the thesis (S_d = 10.73 ms): within a factor of two of it.
    assert!(
        (5.0..22.0).contains(&t.sd_difference),
        "S_d = {}",
        t.sd_difference
    );
}
