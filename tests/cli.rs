//! The command line as a user meets it: a lost or panicking peer ends the run
//! with an error naming the rank, within the deadline; a quick run's JSON reads
//! back and compares; Ctrl-C and restricted CPUs are handled. Bad input is in
//! `bad_input.rs`.

use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::{assert_refused, cannot_run_here, files_in, halfperf, measuring};

#[test]
fn a_stalled_peer_ends_the_run_with_a_deadline_error_naming_it() {
    let _turn = measuring();
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = halfperf(
        dir.path(),
        &[
            "run",
            "pingpong",
            "--sizes",
            "8",
            "--trials",
            "1",
            "--transport",
            "mailbox",
            "--deadline-ms",
            "300",
            "--inject-fault",
            "stall:1",
            "--out",
            "r.json",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("rank 1") && stderr.contains("deadline"),
        "{stderr}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        files_in(dir.path()).is_empty(),
        "nothing completed, so nothing is written"
    );
}

#[test]
fn a_panicking_rank_is_reported_and_stops_its_peer() {
    let _turn = measuring();
    let dir = tempfile::tempdir().unwrap();
    let out = halfperf(
        dir.path(),
        &[
            "run",
            "oneway",
            "--sizes",
            "8",
            "--trials",
            "1",
            "--transport",
            "channel",
            "--inject-fault",
            "panic:1",
            "--out",
            "r.json",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("rank 1: panicked: injected fault"),
        "{stderr}"
    );
}

#[test]
fn quick_results_read_back_and_compare_and_are_never_overwritten() {
    let _turn = measuring();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["a.json", "b.json"] {
        let out = halfperf(
            d,
            &[
                "run", "pingpong", "--quick", "--sizes", "8,1K,16K", "--out", name,
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let a = halfperf::results::read(&d.join("a.json")).expect("reads back");
    assert_eq!(a.schema_version, halfperf::results::SCHEMA_VERSION);
    let mailbox = a
        .kernels
        .iter()
        .find(|k| k.transport.as_deref() == Some("mailbox"))
        .expect("mailbox result");
    assert_eq!(mailbox.points.len(), 3);
    let fit = &mailbox.fits[0];
    // On a loaded machine a noisy small size can push the intercept below zero;
    // the slope is positive whatever the noise (16 KiB costs more than 8 B), and
    // a copy through shared memory runs at 0.02 to 100 GB/s, 0.01 to 50 ns a
    // byte (about 0.1 on the machines measured so far).
    let per_byte = fit.params["t_per_byte_ns"];
    assert!(
        fit.params.contains_key("t_startup_ns") && (0.01..50.0).contains(&per_byte),
        "{fit:?}"
    );
    // The JSON round trip is lossless.
    let again = halfperf::results::parse(&serde_json::to_string(&a).unwrap()).unwrap();
    assert_eq!(again, a);

    // The mailbox's row `key` = `name` of `compare ARGS --json`.
    let mailbox_row = |args: &[&str], key: &str, name: &str| -> serde_json::Value {
        let out = halfperf(
            d,
            &[&["compare", "a.json", "b.json", "--json"], args].concat(),
        );
        assert!(out.status.success());
        let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        cmp["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["kernel"] == "pingpong/mailbox" && r[key] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} row"))
    };
    // Point by point: t_startup, an intercept that noise can push below zero, is
    // compared by difference, never by ratio.
    let row = mailbox_row(&["--points"], "quantity", "t_startup_ns");
    assert!(row["ratios"][1].is_null(), "{row}");
    let difference = row["differences"][1].as_f64().unwrap();
    let (va, vb) = (
        row["values"][0].as_f64().unwrap(),
        row["values"][1].as_f64().unwrap(),
    );
    assert!((difference - (vb - va)).abs() < 1e-9);
    // The cards: t_per_byte, positive, by ratio, unless its interval in either
    // run reaches zero (three noisy sizes), when it is compared by difference.
    let row = mailbox_row(&[], "name", "t_per_byte_ns");
    let (va, vb) = (
        row["cells"][0]["value"].as_f64().unwrap(),
        row["cells"][1]["value"].as_f64().unwrap(),
    );
    let (change, expected) = if row["signed"].as_bool().unwrap() {
        (&row["differences"][1], vb - va)
    } else {
        (&row["ratios"][1], vb / va)
    };
    assert!((change.as_f64().unwrap() - expected).abs() < 1e-9, "{row}");

    let before = std::fs::read(d.join("a.json")).unwrap();
    assert_refused(
        d,
        &["run", "pingpong", "--quick", "--out", "a.json"],
        "already exists",
    );
    assert_eq!(std::fs::read(d.join("a.json")).unwrap(), before);
}

#[test]
fn a_quick_run_prints_a_line_per_kernel_and_the_card_in_under_150_lines() {
    let _turn = measuring();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = halfperf(d, &["run", "--quick", "--out", "q.json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = stdout.lines().count();
    assert!(lines < 150, "{lines} lines:\n{stdout}");
    let file = halfperf::results::read(&d.join("q.json")).unwrap();
    // One progress line per kernel result, then the card with its decisions.
    let progress = stdout
        .lines()
        .filter(|l| l.contains(" points ") && l.contains(" fits "))
        .count();
    assert_eq!(progress, file.kernels.len(), "{stdout}");
    assert!(
        stdout.contains("machine card:") && stdout.contains("decisions"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("warning:"),
        "warnings are counted, not listed"
    );
    let summary = file.summary.expect("the file keeps the card");
    assert!(summary.rows.len() > 40, "{summary:?}");
    // `card FILE` prints the stored card, the same words as the run's end.
    let out = halfperf(d, &["card", "q.json"]);
    assert!(out.status.success());
    let card = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(card.as_ref()), "{card}");
}

#[test]
fn topo_list_and_help_speak_json_and_words() {
    let dir = tempfile::tempdir().unwrap();
    let topo: serde_json::Value =
        serde_json::from_slice(&halfperf(dir.path(), &["topo", "--json"]).stdout)
            .expect("topo --json");
    assert!(!topo["topology"]["cpus"].as_array().unwrap().is_empty());
    let list: serde_json::Value =
        serde_json::from_slice(&halfperf(dir.path(), &["list", "--json"]).stdout)
            .expect("list --json");
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"pingpong") && names.contains(&"oneway") && names.contains(&"c2c"));
    let help = halfperf(dir.path(), &["run", "--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--transport"));
}

#[test]
fn on_one_cpu_the_suite_says_what_it_cannot_run_and_oversubscribes_when_asked() {
    let _turn = measuring();
    if Command::new("taskset").arg("--version").output().is_err() {
        return cannot_run_here(
            "on_one_cpu_the_suite_says_what_it_cannot_run",
            "util-linux's taskset is not installed",
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_halfperf");
    let out = Command::new("taskset")
        .args([
            "-c", "0", exe, "run", "pingpong", "oneway", "c2c", "--quick",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout.contains("skipped pingpong: it needs 2 CPUs"),
        "{stdout}"
    );
    assert!(files_in(dir.path()).is_empty());

    let out = Command::new("taskset")
        .args([
            "-c",
            "0",
            exe,
            "run",
            "pingpong",
            "--quick",
            "--oversubscribe",
            "--sizes",
            "8",
            "--transport",
            "mailbox",
            "--out",
            "o.json",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = halfperf::results::read(&dir.path().join("o.json")).unwrap();
    let k = &doc.kernels[0];
    assert_eq!(k.placement, halfperf::control::Placement::Oversubscribed);
    assert!(
        k.warnings.iter().any(|w| w.contains("ranks share CPUs")),
        "{:?}",
        k.warnings
    );
}

#[test]
fn ctrl_c_stops_within_seconds_and_keeps_the_finished_kernels_marked_incomplete() {
    let _turn = measuring();
    let dir = tempfile::tempdir().unwrap();
    // c2c finishes first; the full pingpong sweep takes many seconds. Interrupt
    // once c2c's progress line has been printed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(["run", "c2c", "pingpong", "--trials", "3", "--out", "r.json"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    // The progress line of the finished c2c kernel.
    while !line.trim_start().starts_with("c2c/") {
        line.clear();
        assert!(
            std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() > 0,
            "no c2c progress line"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill with a valid pid of our own child and a standard signal.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let interrupted = Instant::now();
    // Keep reading so the child never blocks on a full pipe.
    let drain = std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            interrupted.elapsed() < Duration::from_secs(5),
            "did not stop after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    drain.join().unwrap().unwrap();
    assert_eq!(status.code(), Some(130));
    let doc = halfperf::results::read(&dir.path().join("r.json")).expect("a complete, valid file");
    assert!(doc.incomplete);
    assert!(doc.kernels.iter().any(|k| k.kernel == "c2c"));
    assert!(!doc.kernels.iter().any(|k| k.kernel == "pingpong"));
    assert_eq!(
        files_in(dir.path()),
        vec!["r.json".to_string()],
        "no temporary file left"
    );
}
