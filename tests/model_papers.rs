//! `halfperf model kg` and `halfperf model comet` against synthetic result files
//! whose parameters are known, so every printed prediction can be worked by hand.

mod common;

use common::{assert_refused, halfperf};
use serde_json::{Value, json};
use std::path::Path;

/// The fixture with its kernels replaced by `kernels`.
fn write_file(dir: &Path, name: &str, kernels: Vec<Value>) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fixture-methods.json"
    ))
    .unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    doc["kernels"] = Value::Array(kernels);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    name.into()
}

fn stats(v: f64) -> Value {
    json!({"count": 5, "min": v, "median": v, "mean": v, "max": v, "std_dev": 0.0, "p90": v, "p99": v})
}

fn kernel(name: &str, method: &str, points: Vec<Value>, fits: Vec<Value>) -> Value {
    json!({"kernel": name, "method": method, "transport": "mailbox", "cpus": [0, 1],
           "distance_class": null, "placement": "pinned", "ranks": 2, "points": points,
           "fits": fits, "warnings": [], "load": null, "elapsed_s": 1.0})
}

fn line(letter: &str, at0_us: f64, per_us: f64) -> Value {
    let up = letter.to_uppercase();
    json!({"model": format!("{up} = {up}0 + {up}1 n (integer Q, 16-2000 B, Table 3)"),
           "x": "size_bytes", "y": format!("{letter}_ns.median"),
           "params": {format!("int_{letter}0_ns"): at0_us * 1e3,
                      format!("int_{letter}1_ns_per_byte"): per_us * 1e3},
           "std_errors": {format!("int_{letter}0_ns"): 1.0,
                          format!("int_{letter}1_ns_per_byte"): 0.0001},
           "r2": 0.999, "n_points": 5, "flagged": false})
}

/// Table 3's lines, with S = 160 + .01 n so that R + S = 440 us at 2000 B as the
/// paper's section 5.2 takes it, and echoes exactly as the lines predict.
fn ncube_file(dir: &Path, with_interference: bool) -> String {
    let fits = vec![
        line("e", 220.0, 1.285),
        line("r", 180.0, 0.04),
        line("s", 160.0, 0.01),
        line("f", 160.0, 0.60),
        line("u", 130.0, 0.61),
        line("a", 120.0, 0.0),
    ];
    // At 2000 B: F = 1360, E = 2790, U = 1350 us; T_1 = 11000 us, T_5 measured
    // 10 % above the 33320 us the lines give.
    let point = json!({"q_float": 0.0, "size_bytes": 2000.0,
                       "echo_idle_d1_ns": stats(11_000e3), "echo_idle_d5_ns": stats(36_652e3)});
    let mut kernels = vec![kernel(
        "decomposition",
        "krumme-greenfield",
        vec![point],
        fits,
    )];
    if with_interference {
        let p = |k: f64, period_us: f64, slow: f64| {
            json!({"streams": k, "channels_active": 2.0 * k, "message_bytes": 2000.0,
                   "period_ns": stats(period_us * 1e3), "slowdown": stats(slow)})
        };
        kernels.push(kernel(
            "interference",
            "krumme-greenfield",
            vec![
                p(1.0, 2800.0, 1.20),
                p(2.0, 2830.0, 1.61),
                p(3.0, 3070.0, 3.78),
            ],
            vec![],
        ));
    }
    write_file(dir, "ncube.json", kernels)
}

fn stdout_of(dir: &Path, args: &[&str]) -> String {
    let out = halfperf(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn kg_reproduces_section_5_2_from_known_lines() {
    let dir = tempfile::tempdir().unwrap();
    let file = ncube_file(dir.path(), true);
    let out = stdout_of(dir.path(), &["model", "kg", "--from", &file]);
    // The period is E(2000) = 2790 us, set by the link.
    assert!(
        out.contains("predicted period: 2.79e6 ns, limited by E (a link)"),
        "{out}"
    );
    // The echo at d = 1 is exactly 2 (F + E + U); at d = 5 the measured is 10 % over.
    let d1 = out
        .lines()
        .find(|l| l.trim_start().starts_with("2000  1"))
        .unwrap();
    assert!(d1.contains("1.10e7") && d1.ends_with("+0 %"), "{d1}");
    let d5 = out
        .lines()
        .find(|l| l.trim_start().starts_with("2000  5"))
        .unwrap();
    assert!(d5.contains("3.33e7") && d5.ends_with("-9 %"), "{d5}");
    // Section 5.2's rows: measured period, its error against 2790, the measured
    // slowdown, the pure prediction, and the paper's 1.19 / 1.45 / 1.75 with the
    // measured periods.
    let row = |k: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(k) && l.contains("%"))
            .unwrap()
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let (r1, r2, r3) = (row("1"), row("2"), row("3"));
    assert_eq!(r1[2..].join(" "), "2.80e6 -0 % 1.20 1.19 1.19", "{r1:?}");
    assert_eq!(r2[2..].join(" "), "2.83e6 -1 % 1.61 1.46 1.45", "{r2:?}");
    assert_eq!(r3[2..].join(" "), "3.07e6 -9 % 3.78 1.90 1.75", "{r3:?}");
}

#[test]
fn kg_without_interference_still_predicts() {
    let dir = tempfile::tempdir().unwrap();
    let file = ncube_file(dir.path(), false);
    let out = stdout_of(dir.path(), &["model", "kg", "--from", &file]);
    assert!(out.contains("run `halfperf run interference` to compare"));
    assert!(out.contains("k = 2: 1.11e7 ns"), "{out}");
}

#[test]
fn kg_and_comet_refuse_files_without_their_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write_file(dir.path(), "empty.json", vec![]);
    assert_refused(
        dir.path(),
        &["model", "kg", "--from", &empty],
        "halfperf run decomposition",
    );
    assert_refused(
        dir.path(),
        &["model", "comet", "--from", &empty],
        "halfperf run comet-echo",
    );
    // A decomposition without its line of E names the kernel to rerun.
    let mut no_e = kernel("decomposition", "krumme-greenfield", vec![], vec![]);
    no_e["fits"] = json!([line("r", 1.0, 0.0)]);
    let partial = write_file(dir.path(), "partial.json", vec![no_e]);
    assert_refused(
        dir.path(),
        &["model", "kg", "--from", &partial],
        "no line of E",
    );
    // An echo with no kernel to compare with.
    let echo_only = write_file(dir.path(), "echo.json", vec![echo_kernel()]);
    assert_refused(
        dir.path(),
        &["model", "comet", "--from", &echo_only],
        "no CoMet collective",
    );
    std::fs::write(dir.path().join("bad.json"), "{ not json").unwrap();
    assert_refused(
        dir.path(),
        &["model", "kg", "--from", "bad.json"],
        "bad.json",
    );
    assert_refused(
        dir.path(),
        &[
            "model",
            "kg",
            "--from",
            &file_in(dir.path()),
            "--transport",
            "nope",
        ],
        "over nope",
    );
}

fn file_in(dir: &Path) -> String {
    ncube_file(dir, false)
}

/// `t(N) = 1000 + N` ns, one hop.
fn echo_kernel() -> Value {
    kernel(
        "comet-echo",
        "comet",
        vec![],
        vec![
            json!({"model": "t_startup + N t_per_byte, segment 1 of 1 (0 to 85000 bytes)",
                    "x": "size_bytes", "y": "one_way_ns.min",
                    "params": {"t_startup_ns": 1000.0, "t_per_byte_ns": 1.0,
                               "x_min_bytes": 0.0, "x_max_bytes": 85000.0},
                    "std_errors": {"t_startup_ns": 10.0, "t_per_byte_ns": 0.01},
                    "r2": 0.999, "n_points": 10, "flagged": false}),
        ],
    )
}

#[test]
fn comet_predicts_collectives_from_known_lines() {
    let dir = tempfile::tempdir().unwrap();
    let bcast = |p: f64, virt: f64, measured: f64| {
        json!({"processors": p, "log2_processors": p.log2(), "size_bytes": 1000.0,
               "virtual": virt, "broadcast_ns": stats(measured)})
    };
    let tree = kernel(
        "comet-broadcast-tree",
        "comet",
        // P = 4: 2 rounds of t(1000) = 2000 plus a 2-round barrier of t(0) = 1000:
        // 6000 ns; measured 7500 (the prediction 20 % low). P = 8 on virtual
        // processors: 3 x 2000 + 3 x 1000 = 9000 against 90000.
        vec![bcast(4.0, 0.0, 7500.0), bcast(8.0, 1.0, 90_000.0)],
        vec![],
    );
    let shift = kernel(
        "comet-shift-north",
        "comet",
        // 2 x 2 grid, ld = 8: one exchange of 8 x 10 x 10 = 800 B: 1800 ns.
        vec![
            json!({"processors": 4.0, "grid_rows": 2.0, "grid_cols": 2.0,
                    "local_order": 8.0, "matrix_order": 16.0, "virtual": 0.0,
                    "time_ns": stats(1800.0)}),
        ],
        vec![],
    );
    let file = write_file(dir.path(), "comet.json", vec![echo_kernel(), tree, shift]);
    let out = stdout_of(dir.path(), &["model", "comet", "--from", &file]);
    let row = |label: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no row {label} in {out}"))
            .to_string()
    };
    let p4 = row("P=4 B=1000");
    assert!(
        p4.contains(" 6000 ") && p4.contains("7500") && p4.contains("-20 %"),
        "{p4}"
    );
    let p8 = row("P=8 B=1000");
    assert!(
        p8.contains(" 9000 ") && p8.contains("-90 %") && p8.ends_with("virtual"),
        "{p8}"
    );
    let ld8 = row("ld=8 P=4");
    assert!(ld8.contains(" 1800 ") && ld8.contains("+0 %"), "{ld8}");
    assert!(out.contains("median |error|: 20 % on own CPUs, 90 % on virtual processors"));
    assert!(out.contains("virtual processors (more ranks than CPUs)"));
}
