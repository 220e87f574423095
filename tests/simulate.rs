//! `halfperf simulate`: seeded runs are identical, the experiment's JSON carries the
//! eq. 11 coefficients, bad input gets one line and exit status 2, and a 1024-node
//! hypercube finishes.

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
        (&["simulate", "--params", "appendix-b"][..], "experiment"),
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
