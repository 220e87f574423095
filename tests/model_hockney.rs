//! `halfperf model hockney` and `halfperf model speedup` on synthetic result
//! files with known parameters: the numbers by hand, the marks, and the bad
//! input (one line on stderr, exit 2).

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_halfperf")
}

fn param(name: &str, of: Option<&str>, value: f64, ci: [f64; 2]) -> Value {
    let mut p = json!({"name": name, "value": value, "ci95": ci, "interval": "synthetic"});
    if let Some(of) = of {
        p["of"] = json!(of);
    }
    p
}

fn kernel(name: &str, transport: &str, headline: Vec<Value>, points: Vec<Value>) -> Value {
    json!({
        "kernel": name, "method": "hockney", "transport": transport, "cpus": [0, 1],
        "distance_class": null, "placement": "pinned", "ranks": 2, "points": points,
        "fits": [], "warnings": [], "elapsed_s": 1.0, "headline": headline
    })
}

/// Eq. 11's truth for the speedup points: `T = 1 + U/N + 0.05 N (N - 1)`.
fn eq11_truth(u: f64, n: f64) -> f64 {
    1.0 + u / n + 0.05 * n * (n - 1.0)
}

/// A result file: the fixture's machine, and the kernels asked for.
fn synthetic(dir: &Path, name: &str, which: &[&str]) -> PathBuf {
    let text = std::fs::read_to_string("tests/data/fixture-methods.json").unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let mut kernels = Vec::new();
    if which.contains(&"sync") {
        let h = |m: &str, r: f64, rci: [f64; 2], t0: f64, tci: [f64; 2]| {
            let sh = t0 * r / 1e9;
            let shci = [tci[0] * rci[0] / 1e9, tci[1] * rci[1] / 1e9];
            kernel(
                "hockney-sync",
                m,
                vec![
                    param("r_inf_flop_per_s", Some(m), r, rci),
                    param("t0_ns", Some(m), t0, tci),
                    param("s_half_flop", Some(m), sh, shci),
                ],
                vec![],
            )
        };
        kernels.push(h("spin-hint", 1e9, [0.9e9, 1.1e9], 100.0, [90.0, 110.0]));
        kernels.push(h("locks", 2e9, [1.9e9, 2.1e9], 1000.0, [500.0, 1500.0]));
    }
    if which.contains(&"vector") {
        kernels.push(kernel(
            "hockney-vector",
            "triad-f64",
            vec![
                param("l1_r_inf_flop_per_s", Some("L1"), 2e9, [1.98e9, 2.02e9]),
                param("l1_n_half_flop", Some("L1"), 50.0, [48.0, 52.0]),
                param("l2_r_inf_flop_per_s", Some("L2"), 1e9, [0.99e9, 1.01e9]),
            ],
            vec![],
        ));
    }
    if which.contains(&"speedup") {
        let mut points = Vec::new();
        for n in [1.0, 2.0, 4.0, 8.0] {
            for u in [100.0, 400.0] {
                let t = eq11_truth(u, n);
                points.push(json!({
                    "processors": n, "uniprocessor_ms": u,
                    "time_ms": {"count": 3, "min": t, "median": t, "mean": t, "max": t,
                                "std_dev": 0.0, "p90": t, "p99": t}
                }));
            }
        }
        let mut k = kernel(
            "speedup",
            "mailbox",
            vec![
                param("a_ms", None, 2.0, [1.0, 3.0]),
                param("b", None, 1.0, [0.99, 1.01]),
                param("c_ms_per_node", None, 0.5, [0.49, 0.51]),
            ],
            points,
        );
        k["method"] = json!("speedup");
        kernels.push(k);
    }
    doc["kernels"] = Value::Array(kernels);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "halfperf-model-hockney-{tag}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::new(exe())
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Exit 2 with one line on stderr containing `says`, nothing on stdout.
fn refused<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S], says: &str) {
    let out = Command::new(exe()).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err:?} lacks {says:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// Ten segments of 1000 flop at r_inf = 1 flop/ns, t0 = 100 ns: 10000 +
/// 1000 = 11000 ns (eq. 9); E = 10000/11000; grain for 0.9: 0.9 x 100 / 0.1
/// = 900 flop. Ten L1 vector operations of 400 flop at (2 flop/ns, 50):
/// (4000 + 500)/2 = 2250 ns (eq. 4), added (eq. 6).
#[test]
fn hockney_program_by_hand() {
    let d = tmp("hand");
    let file = synthetic(&d, "r.json", &["sync", "vector"]);
    let from = file.to_str().unwrap();
    let r = run_json(&[
        "model",
        "hockney",
        "--from",
        from,
        "--segment",
        "1000x10",
        "--vector",
        "L1:400x10",
        "--method",
        "spin-hint",
    ]);
    assert!((f(&r["t_vector_ns"]) - 2250.0).abs() < 1e-6);
    let p = &r["predictions"][0];
    assert_eq!(p["method"], "spin-hint");
    assert!((f(&p["t_segments_ns"]) - 11000.0).abs() < 1e-6, "{p}");
    assert!((f(&p["t_ns"]) - 13250.0).abs() < 1e-6, "{p}");
    assert!((f(&p["efficiency"]) - 10.0 / 11.0).abs() < 1e-9);
    assert!((f(&p["grain_flop"]) - 900.0).abs() < 1e-6);
    // The interval: 10000/r over r in [0.9, 1.1] and 10 t0 over [900, 1100]
    // give about 13250 - 1000 and + 1200.
    let (lo, hi) = (f(&p["ci95_ns"][0]), f(&p["ci95_ns"][1]));
    assert!(lo > 11900.0 && lo < 12500.0, "lo {lo}");
    assert!(hi > 14100.0 && hi < 14900.0, "hi {hi}");
    assert!(p["marks"].as_array().unwrap().is_empty(), "{p}");
    let inputs: Vec<&str> = p["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        inputs,
        [
            "l1_r_inf_flop_per_s",
            "l1_n_half_flop",
            "r_inf_flop_per_s",
            "t0_ns",
            "s_half_flop"
        ]
    );
    // Every method on the card when none is named; locks' t0 interval is
    // half its value wide: its prediction is marked noisy.
    let r = run_json(&["model", "hockney", "--from", from, "--segment", "1000x10"]);
    let preds = r["predictions"].as_array().unwrap();
    assert_eq!(preds.len(), 2);
    let locks = preds.iter().find(|p| p["method"] == "locks").unwrap();
    assert!((f(&locks["t_ns"]) - (5000.0 + 10000.0)).abs() < 1e-6);
    assert!(locks["marks"].to_string().contains("noisy"), "{locks}");
}

/// The same program from a file; the scalar part (eq. 5) at the given rate;
/// a level without n_1/2 takes 0 and says so.
#[test]
fn program_file_scalar_and_level_without_n_half() {
    let d = tmp("file");
    let file = synthetic(&d, "r.json", &["sync", "vector"]);
    let prog = d.join("prog.txt");
    std::fs::write(
        &prog,
        "# two groups\nsegment 1000 4\nsegment 1000 6\nvector L2 1000 1\nscalar 500 1e9\nmethod spin-hint\n",
    )
    .unwrap();
    let r = run_json(&[
        "model",
        "hockney",
        "--from",
        file.to_str().unwrap(),
        "--program",
        prog.to_str().unwrap(),
    ]);
    assert!((f(&r["t_vector_ns"]) - 1000.0).abs() < 1e-6);
    assert!((f(&r["t_scalar_ns"]) - 500.0).abs() < 1e-6);
    assert!((f(&r["predictions"][0]["t_ns"]) - 12500.0).abs() < 1e-6);
    assert!(
        r["notes"].to_string().contains("taken as 0"),
        "{}",
        r["notes"]
    );
}

#[test]
fn hockney_bad_input_and_missing_kernels() {
    let d = tmp("bad");
    let file = synthetic(&d, "r.json", &["sync", "vector"]);
    let from = file.to_str().unwrap();
    let m = |extra: &[&str]| -> Vec<String> {
        let mut a = vec!["model", "hockney", "--from", from];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect()
    };
    refused(&m(&["--segment", "0x5"]), "must be positive");
    refused(&m(&["--segment", "-8x5"]), "must be positive");
    refused(&m(&["--segment", "8x0"]), "must be positive");
    refused(&m(&["--vector", "L1:0x3"]), "must be positive");
    refused(
        &m(&["--segment", "8x5", "--processors", "0"]),
        "must be positive",
    );
    refused(&m(&["--segment", "8x5", "--processors", "3"]), "--cpus");
    refused(
        &m(&["--segment", "8x5", "--efficiency", "1.2"]),
        "efficiency",
    );
    refused(&m(&["--segment", "8x5", "--efficiency", "0"]), "efficiency");
    refused(&m(&["--segment", "8x5", "--ep", "1.5"]), "above 1");
    refused(&m(&[]), "no program");
    refused(&m(&["--vector", "L3:100x1"]), "hockney-vector");
    refused(
        &m(&["--segment", "8x5", "--method", "nosuch"]),
        "hockney-sync",
    );
    let bare = synthetic(&d, "bare.json", &["speedup"]);
    let from = bare.to_str().unwrap();
    refused(
        &["model", "hockney", "--from", from, "--segment", "8x5"],
        "run `halfperf run hockney-sync`",
    );
}

/// a = 2, b = 1, c = 0.5: T(200, 8) = 2 + 25 + 4 = 31 ms; N* = sqrt(200 /
/// 0.5) = 20; U for 0.8 at N = 8: 0.8 (16 + 32) / 0.2 = 192 ms.
#[test]
fn speedup_eq13_by_hand() {
    let d = tmp("speedup");
    let file = synthetic(&d, "r.json", &["speedup"]);
    let from = file.to_str().unwrap();
    let r = run_json(&[
        "model", "speedup", "--from", from, "--u-ms", "200", "--nodes", "8",
    ]);
    assert!((f(&r["t_ms"]) - 31.0).abs() < 1e-9, "{r}");
    assert!((f(&r["optimal_nodes"]) - 20.0).abs() < 1e-9);
    assert!((f(&r["u_for_efficiency_ms"]) - 192.0).abs() < 1e-9);
    let (lo, hi) = (f(&r["ci95_ms"][0]), f(&r["ci95_ms"][1]));
    assert!(lo < 31.0 && hi > 31.0 && hi - lo < 2.5, "{lo} {hi}");
    let (lo, hi) = (
        f(&r["optimal_nodes_ci95"][0]),
        f(&r["optimal_nodes_ci95"][1]),
    );
    assert!(
        lo > 19.0 && lo < 20.0 && hi > 20.0 && hi < 21.0,
        "{lo} {hi}"
    );
    // The points at N = 8 are beside the prediction.
    assert_eq!(r["checks"].as_array().unwrap().len(), 2);
    // Default N: eq. 15's, rounded.
    let r = run_json(&["model", "speedup", "--from", from, "--u-ms", "200"]);
    assert_eq!(f(&r["nodes"]), 20.0);
}

/// Eq. 10: with the speedup kernel's empty probe p = 2 us [1.8, 2.2], the
/// checking term at N = 8 is C = 7 p = 0.014 ms [0.0126, 0.0154], inside T
/// = 31 ms, so T - C = 30.986 ms; at N = 2 it is 0 (eq. 10 holds for N > 2);
/// a file without the probe says so and separates nothing.
#[test]
fn speedup_eq10_checking_term_by_hand() {
    let d = tmp("eq10");
    let file = synthetic(&d, "r.json", &["speedup"]);
    let from = file.to_str().unwrap();
    let without = run_json(&[
        "model", "speedup", "--from", from, "--u-ms", "200", "--nodes", "8",
    ]);
    assert!(without["checking_ms"].is_null(), "{without}");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["kernels"][0]["headline"]
        .as_array_mut()
        .unwrap()
        .push(param("probe_empty_ms", None, 0.002, [0.0018, 0.0022]));
    let probed = d.join("probed.json");
    std::fs::write(&probed, doc.to_string()).unwrap();
    let from = probed.to_str().unwrap();
    let r = run_json(&[
        "model", "speedup", "--from", from, "--u-ms", "200", "--nodes", "8",
    ]);
    assert!((f(&r["t_ms"]) - 31.0).abs() < 1e-9, "{r}");
    assert!((f(&r["checking_ms"]) - 0.014).abs() < 1e-12, "{r}");
    assert!(
        (f(&r["t_without_checking_ms"]) - 30.986).abs() < 1e-9,
        "{r}"
    );
    let (lo, hi) = (f(&r["checking_ci95_ms"][0]), f(&r["checking_ci95_ms"][1]));
    assert!(
        (lo - 0.0126).abs() < 4e-4 && (hi - 0.0154).abs() < 4e-4,
        "{lo} {hi}"
    );
    assert!(
        r["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == "probe_empty_ms" && i["ci95"][0] == 0.0018),
        "{r}"
    );
    let two = run_json(&[
        "model", "speedup", "--from", from, "--u-ms", "200", "--nodes", "2",
    ]);
    assert_eq!(f(&two["checking_ms"]), 0.0);
    assert_eq!(f(&two["t_without_checking_ms"]), f(&two["t_ms"]));
    let out = Command::new(exe())
        .args([
            "model", "speedup", "--from", from, "--u-ms", "200", "--nodes", "8",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("eq. 10: message checking C = (N - 1) probe_empty_ms for N > 2 = 0.0140 ms"),
        "{text}"
    );
}

/// Eq. 11 refitted to the points (whose truth is mu = 1, b = 1, c = 0.05 a
/// message, B = 1, R = N - 1) predicts a pattern the kernel did not run:
/// U = 1000, N = 16, B = 5, R = 4: 1 + 62.5 + 0.05 x 320 = 79.5 ms; and its
/// own points at N = 8 lie inside the interval.
#[test]
fn speedup_eq11_outside_the_fit() {
    let d = tmp("eq11");
    let file = synthetic(&d, "r.json", &["speedup"]);
    let from = file.to_str().unwrap();
    let r = run_json(&[
        "model",
        "speedup",
        "--from",
        from,
        "--u-ms",
        "1000",
        "--nodes",
        "16",
        "--bursts",
        "5",
        "--receivers",
        "4",
    ]);
    assert!((f(&r["t_ms"]) - 79.5).abs() < 1e-6, "{r}");
    let r = run_json(&[
        "model", "speedup", "--from", from, "--u-ms", "1000", "--nodes", "8", "--bursts", "1",
    ]);
    assert!(
        (f(&r["t_ms"]) - eq11_truth(1000.0, 8.0)).abs() < 1e-6,
        "{r}"
    );
    for c in r["checks"].as_array().unwrap() {
        assert!(
            (f(&c["predicted_ms"]) - f(&c["measured_ms"])).abs() < 1e-6,
            "{c}"
        );
    }
}

#[test]
fn speedup_bad_input_and_missing_kernel() {
    let d = tmp("speedup-bad");
    let file = synthetic(&d, "r.json", &["speedup"]);
    let from = file.to_str().unwrap();
    let m = |extra: &[&str]| -> Vec<String> {
        let mut a = vec!["model", "speedup", "--from", from];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect()
    };
    refused(&m(&["--u-ms", "0"]), "--u-ms");
    refused(&m(&["--u-ms", "-5"]), "--u-ms");
    refused(&m(&["--u-ms", "100", "--nodes", "0"]), "--nodes");
    refused(&m(&["--u-ms", "100", "--nodes", "2.5"]), "--nodes");
    refused(&m(&["--u-ms", "100", "--bursts", "-1"]), "--bursts");
    refused(&m(&["--u-ms", "100", "--efficiency", "1"]), "efficiency");
    refused(&m(&["--u-ms", "100", "--efficiency", "-0.2"]), "efficiency");
    let other = synthetic(&d, "sync.json", &["sync"]);
    refused(
        &[
            "model",
            "speedup",
            "--from",
            other.to_str().unwrap(),
            "--u-ms",
            "100",
        ],
        "run `halfperf run speedup`",
    );
}

/// The library's prediction rows on the synthetic file: every headline of
/// every kernel once (the card's rows, then those it leaves out), the
/// synthetic intervals judged by the card's rule (locks' t0 of 1000 ns in
/// [500, 1500] is wider than a fifth either way: noisy; spin-hint's 100 in
/// [90, 110] is not), and the marks of a prediction naming only the noisy.
#[test]
fn prediction_rows_hold_every_headline_once_with_its_mark() {
    use halfperf::analysis::{Input, input_marks, prediction_rows};
    let dir = tmp("rows");
    let path = synthetic(&dir, "rows.json", &["sync", "vector", "speedup"]);
    let file = halfperf::results::read(&path).unwrap();
    let rows = prediction_rows(&file);
    let headlines: usize = file.kernels.iter().map(|k| k.headline.len()).sum();
    assert_eq!(headlines, 12);
    for k in &file.kernels {
        let key = format!("{}/{}", k.kernel, k.transport.as_deref().unwrap());
        for p in &k.headline {
            let found = rows
                .iter()
                .filter(|r| r.kernel == key && r.name == p.name && r.of == p.of)
                .count();
            assert_eq!(found, 1, "{key} {}", p.name);
        }
    }
    let t0 = |m: &str| {
        let key = format!("hockney-sync/{m}");
        let r = rows
            .iter()
            .find(|r| r.kernel == key && r.name == "t0_ns")
            .unwrap();
        Input::of_row(r)
    };
    let (spin, locks) = (t0("spin-hint"), t0("locks"));
    assert_eq!((spin.value, spin.trust.as_str()), (100.0, "ok"));
    assert_eq!((locks.value, locks.trust.as_str()), (1000.0, "noisy"));
    assert_eq!(locks.ci95, Some([500.0, 1500.0]));
    assert_eq!(
        input_marks(&[spin, locks.clone(), locks]),
        vec!["noisy t0_ns".to_owned()]
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The library's predictions, without the command line: Hockney's ten
/// segments of 1000 flop at 1 flop/ns and t0 = 100 ns plus ten L1 vector
/// operations take 11000 + 2250 = 13250 ns (as `hockney_program_by_hand`);
/// Lamanna's T(200, 8) = 2 + 25 + 4 = 31 ms (as `speedup_eq13_by_hand`); and
/// a missing kernel or an efficiency out of range is a typed error naming
/// the file or the flag.
#[test]
fn the_library_predicts_what_the_commands_print() {
    use halfperf::analysis::PredictionError;
    use halfperf::analysis::hockney_prediction::predict_hockney;
    use halfperf::analysis::speedup_prediction::{SpeedupQuery, predict_speedup};
    use halfperf::model::hockney_program::Program;
    let d = tmp("library");
    let path = synthetic(&d, "r.json", &["sync", "vector", "speedup"]);
    let file = halfperf::results::read(&path).unwrap();
    let mut p = Program::parse("segment 1000 10\nvector L1 400 10\nmethod spin-hint\n").unwrap();
    let h = predict_hockney(&p, &file, &path, 0.9).unwrap();
    assert!((h.t_vector_ns - 2250.0).abs() < 1e-6);
    assert_eq!(h.predictions.len(), 1);
    assert!((h.predictions[0].t_ns - 13250.0).abs() < 1e-6);
    assert!((h.predictions[0].grain_flop.unwrap() - 900.0).abs() < 1e-6);
    match predict_hockney(&p, &file, &path, 1.5) {
        Err(PredictionError::Efficiency(m)) => assert!(m.contains("--efficiency 1.5"), "{m}"),
        other => panic!("{other:?}"),
    }
    p.method = Some("nosuch".into());
    match predict_hockney(&p, &file, &path, 0.9) {
        Err(PredictionError::Missing(m)) => {
            assert!(
                m.contains("r.json has no r_inf_flop_per_s for method nosuch"),
                "{m}"
            )
        }
        other => panic!("{other:?}"),
    }
    let q = SpeedupQuery {
        u_ms: 200.0,
        nodes: Some(8.0),
        bursts: None,
        receivers: None,
        efficiency: 0.8,
        transport: None,
    };
    let s = predict_speedup(&q, &file, &path).unwrap();
    assert_eq!(s.kernel, "speedup/mailbox");
    assert!((s.t_ms - 31.0).abs() < 1e-9 && (s.optimal_nodes - 20.0).abs() < 1e-9);
    assert!((s.u_for_efficiency_ms - 192.0).abs() < 1e-9);
    let channel = SpeedupQuery {
        transport: Some("channel".into()),
        ..q
    };
    match predict_speedup(&channel, &file, &path) {
        Err(PredictionError::Missing(m)) => assert!(m.contains("speedup/channel"), "{m}"),
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&d).ok();
}
