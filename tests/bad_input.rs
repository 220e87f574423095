//! Every class of bad input to the command line, and its one-line error: exit
//! status 2, exactly one line on stderr naming the problem, and no file written.

mod common;

use common::assert_refused;

#[test]
fn bad_run_arguments_are_refused_before_any_measurement() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--cpus", "9999"], "CPU 9999 does not exist"),
        (&["run", "--cpus", "0,0"], "listed twice"),
        (&["run", "--cpus", "0,x"], "not a CPU number"),
        (&["run", "--cpus", "3-1"], "backwards"),
        (&["run", "--sizes", "0"], "0 bytes"),
        (&["run", "--sizes=-5"], "not a size"),
        (&["run", "--sizes", "100M"], "larger than"),
        (&["run", "--sizes", "99999999999999999999"], "not a size"),
        (&["run", "--sizes", "abc"], "not a size"),
        (&["run", "nosuchkernel"], "unknown kernel \"nosuchkernel\""),
        (&["run", "--json", "x.json"], "written with `--out FILE`"),
        (&["run", "out/x"], "looks like a file"),
        (&["run", "--transport", "pigeon"], "pigeon"),
        (&["run", "--trials", "0"], "0"),
        (&["run", "--deadline-ms", "0"], "0"),
        (&["run", "--inject-fault", "explode:1"], "stall:RANK"),
        (&["run", "--out", "no/such/dir/x.json"], "does not exist"),
        (&["frobnicate"], "frobnicate"),
    ];
    for (args, needle) in cases {
        assert_refused(d, args, needle);
    }
}

/// `run --repeat K` takes a whole number from 1 to 100: zero, a negative number,
/// text, a fraction and a huge count are each one clear line, exit 2, no file.
#[test]
fn bad_repeat_counts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "pingpong", "--repeat", "0"], "0 repetitions"),
        (&["run", "pingpong", "--repeat", "-3"], "-3 repetitions"),
        (&["run", "pingpong", "--repeat=-1"], "-1 repetitions"),
        (
            &["run", "pingpong", "--repeat", "many"],
            "not a number of repetitions",
        ),
        (
            &["run", "pingpong", "--repeat", "2.5"],
            "not a number of repetitions",
        ),
        (&["run", "pingpong", "--repeat", "1000000"], "from 1 to 100"),
        (
            &["run", "pingpong", "--repeat", "99999999999999999999999"],
            "not a number of repetitions",
        ),
    ];
    for (args, needle) in cases {
        assert_refused(d, args, needle);
    }
}

/// `compare --floor PCT` takes a per cent from 0 to 100: a negative number,
/// text and more than 100 are each one clear line, exit 2.
#[test]
fn bad_floors_are_refused_by_compare() {
    let dir = tempfile::tempdir().unwrap();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/machine-a.json");
    for floor in ["-3", "much", "101", "nan"] {
        assert_refused(
            dir.path(),
            &["compare", file, file, "--floor", floor],
            "give the run-to-run floor as a per cent from 0 to 100",
        );
    }
}

#[test]
fn bad_result_files_are_refused_by_compare() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| std::fs::write(d.join(name), text).unwrap();
    write("empty.json", "");
    write("truncated.json", "{\"schema_version\": 1, \"tool\": \"half");
    write("notjson.json", "hello");
    write(
        "newer.json",
        "{\"schema_version\": 999, \"tool\": \"halfperf\"}",
    );
    write(
        "other.json",
        "{\"schema_version\": 1, \"tool\": \"criterion\"}",
    );
    let cases: &[(&str, &str)] = &[
        ("empty.json", "empty"),
        ("truncated.json", "not JSON"),
        ("notjson.json", "not JSON"),
        ("newer.json", "newer than this halfperf"),
        ("other.json", "written by \"criterion\""),
        ("missing.json", "cannot read"),
    ];
    for (file, needle) in cases {
        assert_refused(d, &["compare", file], needle);
        assert_refused(d, &["card", file], needle);
    }
}

/// A build without the `mpi` feature refuses `--transport mpi` with one line
/// that says how to build it, before anything is measured or written.
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_transport_without_the_feature_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_refused(
        dir.path(),
        &["run", "pingpong", "--transport", "mpi", "--out", "x.json"],
        "--features mpi",
    );
}
