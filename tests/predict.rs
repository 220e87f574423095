//! `halfperf predict` on a synthetic result file with known parameters (the
//! two-rank schedule's finish time by hand), the bad input, and `--run` end
//! to end on a small P = 2 schedule.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_halfperf")
}

fn param(name: &str, value: f64) -> Value {
    json!({"name": name, "value": value, "interval": "synthetic"})
}

fn kernel(name: &str, transport: &str, placement: &str, headline: Vec<Value>) -> Value {
    json!({
        "kernel": name, "method": "synthetic", "transport": transport, "cpus": [0, 1],
        "distance_class": null, "placement": placement, "ranks": 2, "points": [],
        "fits": [], "warnings": [], "elapsed_s": 1.0, "headline": headline
    })
}

/// S0 = 100, R0 = 60, S1 = 0.25, R1 = 0 (hosted: virtual), t_startup = 300,
/// t_per_byte = 0.5, one-way stream 200 ns: o = 80, O = 0.125, L = 140,
/// G = 0.5, g = 200. `without` leaves a kernel out.
fn synthetic(dir: &Path, name: &str, without: &str) -> PathBuf {
    let text = std::fs::read_to_string("tests/data/fixture-methods.json").unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let mut kernels = vec![
        kernel(
            "decomposition",
            "mailbox",
            "hosted",
            vec![
                param("int_s0_ns", 100.0),
                param("int_r0_ns", 60.0),
                param("int_s1_ns_per_byte", 0.25),
                param("int_r1_ns_per_byte", 0.0),
            ],
        ),
        kernel(
            "pingpong",
            "mailbox",
            "pinned",
            vec![param("t_startup_ns", 300.0), param("t_per_byte_ns", 0.5)],
        ),
        kernel(
            "oneway",
            "mailbox",
            "pinned",
            vec![param("one_way_ns", 200.0)],
        ),
    ];
    kernels.retain(|k| k["kernel"] != without);
    doc["kernels"] = Value::Array(kernels);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("halfperf-predict-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn two_ranks(dir: &Path) -> PathBuf {
    let p = dir.join("two.goal");
    std::fs::write(
        &p,
        "num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\n}\nrank 1 {\nl1: recv 100b from 0 tag 0\n}\n",
    )
    .unwrap();
    p
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

/// The hand-worked two-rank time in the replay's frame (see the library's
/// test `two_ranks_by_hand`): 856.5 ns, with its inputs and the virtual mark.
#[test]
fn predicts_the_hand_worked_time_from_a_result_file() {
    let d = tmp("hand");
    let file = synthetic(&d, "r.json", "");
    let goal = two_ranks(&d);
    let out = Command::new(exe())
        .arg("predict")
        .arg(&goal)
        .arg("--from")
        .arg(&file)
        .args(["--cpus", "2", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["time_ns"], json!(856.5));
    assert_eq!(v["finish_ns"], json!([856.5, 633.875]));
    assert_eq!(v["loggops"]["l_ns"], json!(140.0));
    assert_eq!(v["loggops"]["o_ns"], json!(80.0));
    assert_eq!(v["inputs"]["rows"].as_array().unwrap().len(), 7);
    let marks = v["marks"].as_array().unwrap();
    assert_eq!(marks.len(), 4, "{marks:?}");
    assert!(
        marks
            .iter()
            .all(|m| m.as_str().unwrap().starts_with("virtual"))
    );
    // The table names every input with its mark.
    let out = Command::new(exe())
        .arg("predict")
        .arg(&goal)
        .arg("--from")
        .arg(&file)
        .args(["--cpus", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0.86 us"), "{text}");
    assert!(
        text.contains("pingpong/mailbox t_startup_ns = 300"),
        "{text}"
    );
    assert!(text.contains("marked: virtual int_s0_ns"), "{text}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let d = tmp("bad");
    let file = synthetic(&d, "r.json", "");
    let goal = two_ranks(&d);
    let no_dec = synthetic(&d, "nodec.json", "decomposition");
    refused(
        &[
            "predict".as_ref(),
            goal.as_os_str(),
            "--from".as_ref(),
            no_dec.as_os_str(),
        ],
        "run `halfperf run decomposition --transport mailbox`",
    );
    let no_oneway = synthetic(&d, "noow.json", "oneway");
    refused(
        &[
            "predict".as_ref(),
            goal.as_os_str(),
            "--from".as_ref(),
            no_oneway.as_os_str(),
        ],
        "run `halfperf run oneway --transport mailbox`",
    );
    // Ranks sharing a CPU need the wake-up cost.
    refused(
        &[
            "predict".as_ref(),
            goal.as_os_str(),
            "--from".as_ref(),
            file.as_os_str(),
            "--cpus".as_ref(),
            "1".as_ref(),
        ],
        "hockney-sync",
    );
    refused(
        &[
            "predict".as_ref(),
            goal.as_os_str(),
            "--from".as_ref(),
            file.as_os_str(),
            "--cpus".as_ref(),
            "1".as_ref(),
            "--placement".as_ref(),
            "pinned".as_ref(),
        ],
        "do not fit",
    );
    let missing = d.join("absent.json");
    refused(
        &[
            "predict".as_ref(),
            goal.as_os_str(),
            "--from".as_ref(),
            missing.as_os_str(),
        ],
        "absent.json",
    );
    let bad_goal = d.join("bad.goal");
    std::fs::write(&bad_goal, "num_ranks 2\nrank 0 {\nl1: sned 8b to 1\n}\n").unwrap();
    refused(
        &[
            "predict".as_ref(),
            bad_goal.as_os_str(),
            "--from".as_ref(),
            file.as_os_str(),
        ],
        "bad.goal:3",
    );
    refused(
        &["predict".as_ref(), goal.as_os_str()],
        "required arguments",
    );
}

/// Replay and prediction in one go on the smallest P = 2 schedule: the output
/// names measured and predicted, and the error is a finite number.
#[test]
fn run_validates_a_p2_schedule_end_to_end() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        assert!(
            std::env::var("CI").is_err(),
            "CI needs two CPUs for the replay"
        );
        eprintln!("skipped: fewer than two CPUs");
        return;
    }
    let d = tmp("run");
    let file = synthetic(&d, "r.json", "");
    let out = Command::new(exe())
        .args(["predict", "workloads/p2/binomial-bcast.goal", "--from"])
        .arg(&file)
        .args(["--run", "--no-remeasure", "--trials", "3", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let val = &v["validation"];
    let measured = val["measured_ns"].as_f64().unwrap();
    let predicted = val["predicted_ns"].as_f64().unwrap();
    let error = val["error"].as_f64().unwrap();
    assert!(measured > 0.0 && predicted > 0.0, "{val}");
    assert!(error.is_finite(), "{val}");
    assert!((error - (predicted - measured) / measured).abs() < 1e-9);
    let out = Command::new(exe())
        .args(["predict", "workloads/p2/binomial-bcast.goal", "--from"])
        .arg(&file)
        .args(["--run", "--no-remeasure", "--trials", "3"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("measured median"), "{text}");
    assert!(text.contains("predicted"), "{text}");
    assert!(text.contains("error"), "{text}");
}
