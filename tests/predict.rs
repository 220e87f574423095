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

/// S0 = 100, R0 = 60, S1 = 0.375, R1 = 0.25 (hosted: virtual), t_startup = 300,
/// t_per_byte = 0.5, one-way stream 200 ns: o = 80, O = 0.625 - G = 0.125, L = 140,
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
                param("int_s1_ns_per_byte", 0.375),
                param("int_r1_ns_per_byte", 0.25),
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
    // No clock reads on the path: the hand-worked times are LogGOPS's alone.
    doc["machine"]["clock"]["read_overhead_ns"] = json!(0.0);
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
    let v = predicted(&goal, &file);
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
    // Only hosted rows for o and O: the prediction says so.
    assert!(
        text.contains("note: o and O: no pinned S and R (`halfperf run overheads"),
        "{text}"
    );
}

/// The file's clock read overhead, 18.3 ns, charged as 18 ns where the
/// replay reads its clock on the path: rank 1 after `go` (303.5-321.5, idle
/// until the 100 B arrive at 423.5) and before `done` (553-571, so done
/// arrives at 791 and is taken by 874.5), rank 0 once after it: 892.5.
#[test]
fn the_replays_clock_reads_are_charged() {
    let d = tmp("clock");
    let file = synthetic(&d, "r.json", "");
    let goal = two_ranks(&d);
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["machine"]["clock"]["read_overhead_ns"] = json!(18.2844);
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let v = predicted(&goal, &file);
    assert_eq!(v["finish_ns"], json!([892.5, 651.875]));
    let rows = v["inputs"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[7]["symbol"], json!("clock"));
    assert_eq!(rows[7]["value"], json!(18.2844));
}

/// `r.json` with the pinned pair's `overheads/mailbox` too: S0 = 90, R0 = 70,
/// S1 = 0.25, R1 = 0.375 (o = 80, O = 0.125, as the hosted rows give them)
/// and the cold C0 = `c0`.
fn with_pinned(dir: &Path, name: &str, c0: f64) -> PathBuf {
    let file = synthetic(dir, name, "");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let k = kernel(
        "overheads",
        "mailbox",
        "pinned",
        vec![
            param("s0_ns", 90.0),
            param("r0_ns", 70.0),
            param("s1_ns_per_byte", 0.25),
            param("r1_ns_per_byte", 0.375),
            param("c0_ns", c0),
        ],
    );
    doc["kernels"].as_array_mut().unwrap().push(k);
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    file
}

/// Pinned rows replace the hosted ones whole: the same hand-worked 856.5 ns
/// from `overheads`' S and R, no virtual input, no note; the hosted rows,
/// changed, change nothing. A cold C0 far above the ping-pong's start-up is
/// a note with `L_cold = C0 - 2o`; one close to it is none.
#[test]
fn pinned_overheads_replace_the_hosted_ones() {
    let d = tmp("pinned");
    let goal = two_ranks(&d);
    let file = with_pinned(&d, "p.json", 320.0);
    let v = predicted(&goal, &file);
    assert_eq!(v["time_ns"], json!(856.5));
    assert_eq!(v["loggops"]["o_ns"], json!(80.0));
    assert_eq!(v["loggops"]["big_o_ns_per_byte"], json!(0.125));
    let rows = v["inputs"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for r in &rows[..4] {
        assert_eq!(r["kernel"], json!("overheads/mailbox"), "{r}");
    }
    assert_eq!(rows[7]["symbol"], json!("L_cold"));
    assert!(v["marks"].as_array().unwrap().is_empty(), "{v}");
    assert!(v["notes"].as_array().unwrap().is_empty(), "{v}");
    // The hosted rows changed: the same prediction.
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["kernels"][0]["headline"][0]["value"] = json!(5000.0);
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    assert_eq!(predicted_ns(&goal, &file), 856.5);
    // C0 = 900: L_cold = 900 - 160 = 740 against L = 140.
    let cold = with_pinned(&d, "c.json", 900.0);
    let v = predicted(&goal, &cold);
    assert_eq!(v["time_ns"], json!(856.5));
    let notes = v["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("L_cold = C0 - 2o = 740.0 ns"),
        "{notes:?}"
    );
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
        "run `halfperf run overheads --transport mailbox`",
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
    // Nothing measured again: the headline is the --from files' prediction.
    assert_eq!(val["predicted_from"], "before", "{val}");
    assert_eq!(
        val["predicted_before_ns"][0].as_f64(),
        Some(predicted),
        "{val}"
    );
    assert!(val["replay_probe_ns"].is_null(), "{val}");
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

/// `r.json` with a `hockney-vector/triad-f64` line on L1: r_inf = 4e9 flop/s,
/// n_1/2 = 100 flop.
fn with_vector(dir: &Path) -> PathBuf {
    let file = synthetic(dir, "v.json", "");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut k = kernel("hockney-vector", "triad-f64", "pinned", vec![]);
    k["fits"] = json!([{
        "model": "t = (n + n_half)/r_inf on L1", "x": "n_elements", "y": "time_ns.min / 2",
        "params": {"l1_r_inf_flop_per_s": 4e9, "l1_n_half_flop": 100.0},
        "std_errors": {"l1_r_inf_flop_per_s": 0.0, "l1_n_half_flop": 0.0},
        "r2": 0.999, "n_points": 10, "flagged": false
    }]);
    doc["kernels"].as_array_mut().unwrap().push(k);
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    file
}

/// `predict GOAL --from FILE --cpus 2 --json`, which must succeed.
fn predicted(goal: &Path, file: &Path) -> Value {
    let out = Command::new(exe())
        .arg("predict")
        .arg(goal)
        .arg("--from")
        .arg(file)
        .args(["--cpus", "2", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn predicted_ns(goal: &Path, file: &Path) -> f64 {
    predicted(goal, file)["time_ns"].as_f64().unwrap()
}

/// `calc 5 //@ vector triad-f64 L1 4096` is Hockney's eq. (4) with the card's
/// L1 line: two vector instructions of 2048 elements, (4096 + 2 x 100) / 4e9
/// flop/s = 1074 ns, the same prediction as a plain `calc 1074` (1807.875 ns,
/// against 856.5 for the plain reading, `calc 5`); an operation
/// the card lacks is refused, naming the kernel to run.
#[test]
fn a_vector_calc_is_timed_by_hockneys_eq4_from_the_card() {
    let d = tmp("vector");
    let file = with_vector(&d);
    let body = |calc: &str| {
        format!(
            "num_ranks 2\nrank 0 {{\nc: {calc}\nl1: send 100b to 1 tag 0\nl1 requires c\n}}\n\
             rank 1 {{\nl1: recv 100b from 0 tag 0\n}}\n"
        )
    };
    let vector = d.join("vector.goal");
    std::fs::write(&vector, body("calc 5 //@ vector triad-f64 L1 4096")).unwrap();
    let plain = d.join("plain.goal");
    std::fs::write(&plain, body("calc 1074")).unwrap();
    let five = d.join("five.goal");
    std::fs::write(&five, body("calc 5")).unwrap();
    let (v, p, f) = (
        predicted_ns(&vector, &file),
        predicted_ns(&plain, &file),
        predicted_ns(&five, &file),
    );
    assert_eq!(v, p);
    // The plain reading, 5 ns, hides under the `go` message's gap.
    assert!(v > f + 900.0, "{v} {f}");
    let other = d.join("other.goal");
    std::fs::write(&other, body("calc 5 //@ vector scalar-f64 L1 4096")).unwrap();
    refused(
        &[
            "predict".as_ref(),
            other.as_os_str(),
            "--from".as_ref(),
            file.as_os_str(),
        ],
        "no l1_r_inf_flop_per_s of hockney-vector/scalar-f64",
    );
    let bad = d.join("bad.goal");
    std::fs::write(&bad, body("calc 5 //@ vector triad-f64 L9 4096")).unwrap();
    refused(
        &[
            "predict".as_ref(),
            bad.as_os_str(),
            "--from".as_ref(),
            file.as_os_str(),
        ],
        "bad.goal:3: unknown memory level `L9`",
    );
}

/// `simulate --from` times a `//@ vector` calc as `predict` does: `calc 5
/// //@ vector triad-f64 L1 4096` with the file's L1 line (1074 ns) finishes
/// where `calc 1074` does; without `--from` it is its plain `calc 5`, as
/// LogGOPSim reads it; an operation the file lacks is refused.
#[test]
fn simulate_times_vector_calcs_from_a_result_file() {
    let d = tmp("simvec");
    let file = with_vector(&d);
    let write = |name: &str, calc: &str| {
        let p = d.join(name);
        std::fs::write(
            &p,
            format!(
                "num_ranks 2\nrank 0 {{\nc: {calc}\nl1: send 100b to 1 tag 0\nl1 requires c\n}}\n\
                 rank 1 {{\nl1: recv 100b from 0 tag 0\n}}\n"
            ),
        )
        .unwrap();
        p
    };
    let vector = write("vector.goal", "calc 5 //@ vector triad-f64 L1 4096");
    let plain = write("plain.goal", "calc 1074");
    let five = write("five.goal", "calc 5");
    let finish = |goal: &Path, from: Option<&Path>| -> Value {
        let mut c = Command::new(exe());
        c.arg("simulate")
            .arg(goal)
            .args(["--loggp", "L=100,o=10,g=20,G=0.5,O=0", "--json"]);
        if let Some(f) = from {
            c.arg("--from").arg(f);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["result"]["finish_ns"].clone()
    };
    let timed = finish(&vector, Some(&file));
    assert_eq!(timed, finish(&plain, None));
    assert_eq!(finish(&vector, None), finish(&five, None));
    assert_ne!(timed, finish(&five, None));
    let other = write("other.goal", "calc 5 //@ vector scalar-f64 L1 4096");
    refused(
        &[
            "simulate".as_ref(),
            other.as_os_str(),
            "--loggp".as_ref(),
            "L=100".as_ref(),
            "--from".as_ref(),
            file.as_os_str(),
        ],
        "no l1_r_inf_flop_per_s of hockney-vector/scalar-f64",
    );
}

/// Four ranks on two CPUs: the turn of a CPU is measured (no kernel's row is
/// needed), charged as the switch, and the shared prediction is no faster
/// than the one with a CPU a rank, and slower by at least one turn: rank 2
/// waits for rank 0's CPU.
#[test]
fn ranks_sharing_cpus_are_charged_a_measured_yield_turn() {
    let d = tmp("shared");
    let file = synthetic(&d, "r.json", "");
    let goal = d.join("four.goal");
    std::fs::write(
        &goal,
        "num_ranks 4\nrank 0 {\nc: calc 5000\ns: send 8b to 1 tag 0\ns requires c\n}\n\
         rank 1 {\nr: recv 8b from 0 tag 0\n}\nrank 2 {\nc: calc 5000\n}\nrank 3 {\nc: calc 10\n}\n",
    )
    .unwrap();
    let shared = predicted(&goal, &file);
    let rows = shared["inputs"]["rows"].as_array().unwrap();
    let turn = rows
        .iter()
        .find(|r| r["symbol"] == "switch")
        .expect("a switch row");
    assert_eq!(turn["name"], json!("t_turn_ns"));
    let t = turn["value"].as_f64().unwrap();
    assert!(t > 50.0 && t < 1e6, "{turn}");
    assert_eq!(shared["switch_ns"].as_f64().unwrap(), t);
    assert_eq!(shared["cpu_of_rank"], json!([0, 1, 0, 1]));
    let out = Command::new(exe())
        .arg("predict")
        .arg(&goal)
        .arg("--from")
        .arg(&file)
        .args(["--cpus", "4", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let alone: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(alone["switch_ns"], json!(0.0));
    let (a, b) = (
        alone["time_ns"].as_f64().unwrap(),
        shared["time_ns"].as_f64().unwrap(),
    );
    // Rank 2's 5 us follow rank 0's on CPU 0 where they ran beside them: the
    // trial ends at least 4 us and a turn later.
    assert!(
        b >= a + 4000.0 + t,
        "shared {b} against alone {a}, turn {t}"
    );
}
