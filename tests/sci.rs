//! The SCI topology model and kernel end to end (Gonzalez 2000, chapters 4-6):
//! `halfperf model sci` with the paper's Table 1 against its chapter 6 crossovers,
//! bad input, `--from FILE`, and a tiny `sci-topology` sweep on this machine (orderings
//! and generous bounds only: the machine is shared and noisy).

use halfperf::control::Placement;
use halfperf::kernels::scibench::{DECOMPOSITION, PROJECTION, TABLE1_MODEL, VALIDATION};
use halfperf::kernels::{self, RunConfig, RunContext};
use halfperf::platform::{self, Topology};
use halfperf::results::{FitResult, KernelResult, ResultFile, SCHEMA_VERSION, TOOL_NAME};
use halfperf::transport::TransportKind;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Output};

mod common;

fn halfperf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(args)
        .output()
        .expect("the binary runs")
}

const PAPER: [&str; 10] = [
    "--lp-ns",
    "7",
    "--lf-ns",
    "60",
    "--ls-ns",
    "670",
    "--overhead-ns",
    "2085",
    "--overhead-per-byte-ns",
    "11.6",
];

fn crossovers(json: &Value, application: &str) -> Vec<f64> {
    json["crossovers"][application]
        .as_array()
        .expect("an array")
        .iter()
        .map(|c| c["nodes"].as_f64().expect("a crossover in range"))
        .collect()
}

fn model_json(args: &[&str]) -> Value {
    let out = halfperf(&[&["model", "sci", "--json"], args].concat());
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn paper_inputs_give_the_chapter_6_crossovers() {
    // Table 2's legible row: 3D -> 4D at 1831 nodes (current system, average latency)
    // and 232 (enhanced, average). The model gives 18.2, 190.8, 1832.6 and, with l_s
    // halved, 8.2, 44.7, 228.9 nodes.
    let current = model_json(&PAPER);
    let average = crossovers(&current, "average");
    assert_eq!(current["crossovers"]["average"][0]["from_dims"], 1);
    assert_eq!(current["crossovers"]["average"][0]["to_dims"], 2);
    assert!((average[0] - 1220.0 / 67.0).abs() < 0.01, "{average:?}");
    assert!((average[1] - 190.84).abs() < 0.05, "{average:?}");
    assert!((average[2] - 1831.0).abs() / 1831.0 < 0.002, "{average:?}");
    // The paper's multi-unicast (the sum) is (N - 1) x the average, so its crossovers
    // coincide: Table 2's 2050 nodes for 3D -> 4D is not reproducible from the paper's
    // definition. The pipelined sender's cross where its farthest request's latency
    // does: 16.14, 140.37 and 1141.93 nodes.
    let multi = crossovers(&current, "multi_unicast");
    for (a, m) in average.iter().zip(&multi) {
        assert!((a - m).abs() < 1e-6 * a, "{a} vs {m}");
    }
    let pipelined = crossovers(&current, "pipelined_multi_unicast");
    for (got, want) in pipelined.iter().zip([16.139, 140.372, 1141.93]) {
        assert!((got - want).abs() / want < 1e-4, "{pipelined:?}");
    }
    let enhanced_args: Vec<&str> = PAPER
        .iter()
        .map(|&a| if a == "670" { "335" } else { a })
        .collect();
    let enhanced = crossovers(&model_json(&enhanced_args), "average");
    assert!((enhanced[0] - 550.0 / 67.0).abs() < 0.01, "{enhanced:?}");
    assert!((enhanced[1] - 44.716).abs() < 0.01, "{enhanced:?}");
    assert!((enhanced[2] - 232.0).abs() / 232.0 < 0.02, "{enhanced:?}");
    // Within the paper's 1000 nodes the 3D -> 4D crossover of the current system is
    // out of range ("three-dimensional ... up to 1000 nodes and beyond").
    let json = model_json(&[&PAPER[..], &["--max-nodes", "1000"]].concat());
    assert!(json["crossovers"]["average"][2]["nodes"].is_null());
}

#[test]
fn paper_inputs_as_text() {
    let out = halfperf(&[&["model", "sci"], &PAPER[..]].concat());
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "1D -> 2D",
        "18.2",
        "190.8",
        "3D -> 4D",
        "1832.6",
        "5218.2",
        "pipelined",
        "1141.9",
    ] {
        assert!(text.contains(want), "{want} missing from\n{text}");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    let empty = empty.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (PAPER[..4].to_vec(), "--ls-ns"),
        ([&PAPER[..], &["--lp-ns", "-1"]].concat(), "argument"),
        (
            vec![
                "--lp-ns",
                "-1",
                "--lf-ns",
                "1",
                "--ls-ns",
                "1",
                "--overhead-ns",
                "1",
            ],
            "propagation_lp_ns",
        ),
        (
            vec![
                "--lp-ns",
                "nan",
                "--lf-ns",
                "1",
                "--ls-ns",
                "1",
                "--overhead-ns",
                "1",
            ],
            "propagation_lp_ns",
        ),
        ([&PAPER[..], &["--dims", "0,1"]].concat(), "at least 1"),
        ([&PAPER[..], &["--dims", ""]].concat(), ""),
        (
            [&PAPER[..], &["--dims", "1,4", "--max-nodes", "10"]].concat(),
            "max nodes",
        ),
        ([&PAPER[..], &["--size", "big"]].concat(), "big"),
        ([&PAPER[..], &["--size", "0"]].concat(), "--size"),
        (
            [&PAPER[..], &["--size", "-64"]].concat(),
            "unexpected argument",
        ),
        ([&PAPER[..], &["--max-nodes", "0"]].concat(), "--max-nodes"),
        (vec!["--from", "/nonexistent/x.json"], "cannot read"),
        (vec!["--from", empty], "not a halfperf result"),
    ];
    for (args, want) in cases {
        let out = halfperf(&[&["model", "sci"], &args[..]].concat());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// A result file holding only a decomposition with the paper's Table 1 values.
fn table1_file() -> ResultFile {
    let topo = Topology::detect().unwrap();
    let allowed = platform::allowed_cpus();
    let clock = platform::measure_clock();
    let params: BTreeMap<String, f64> = [
        ("propagation_lp_ns", 7.0),
        ("forwarding_lf_ns", 60.0),
        ("switching_ls_ns", 670.0),
        ("overhead_o_ns", 2085.0),
        ("overhead_per_byte_ns", 11.6),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    ResultFile {
        schema_version: SCHEMA_VERSION,
        tool: TOOL_NAME.into(),
        started_utc: "2026-01-01T00:00:00Z".into(),
        machine: halfperf::suite::machine_info(&topo, &allowed, &clock),
        software: halfperf::suite::software_info(),
        config: Value::Null,
        kernels: vec![KernelResult {
            kernel: DECOMPOSITION.into(),
            method: "scibench".into(),
            transport: Some("mailbox".into()),
            cpus: vec![0, 1],
            distance_class: None,
            placement: Placement::Pinned,
            ranks: 2,
            points: Vec::new(),
            fits: vec![FitResult {
                model: TABLE1_MODEL.into(),
                x: "size_bytes".into(),
                y: "overhead_o_ns".into(),
                params,
                std_errors: BTreeMap::new(),
                r2: 1.0,
                n_points: 8,
                flagged: false,
            }],
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
            headline: Vec::new(),
            repetition: None,
        }],
        incomplete: false,
        summary: None,
    }
}

#[test]
fn components_from_a_result_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table1.json");
    halfperf::results::write_atomic(&table1_file(), &path, false).unwrap();
    let path = path.to_str().unwrap();
    let json = model_json(&["--from", path]);
    assert_eq!(json["components"]["switching_ls_ns"], 670.0);
    let average = crossovers(&json, "average");
    assert!((average[2] - 1831.0).abs() / 1831.0 < 0.002, "{average:?}");
    // A flag overrides the file: the enhanced system.
    let json = model_json(&["--from", path, "--ls-ns", "335"]);
    assert!((crossovers(&json, "average")[2] - 232.0).abs() / 232.0 < 0.02);
    // A file without a decomposition says what to run.
    let mut other = table1_file();
    other.kernels[0].kernel = "pingpong".into();
    let path = dir.path().join("other.json");
    halfperf::results::write_atomic(&other, &path, false).unwrap();
    let out = halfperf(&["model", "sci", "--from", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("sci-topology") && err.contains("--from"),
        "{err}"
    );
}

fn find<'a>(results: &'a [KernelResult], kernel: &str) -> Option<&'a KernelResult> {
    results.iter().find(|r| r.kernel == kernel)
}

fn min_of(r: &KernelResult, nodes: f64, dims: f64, hops: f64, size: f64) -> f64 {
    r.points
        .iter()
        .find(|p| {
            p.number("nodes") == Some(nodes)
                && p.number("dims") == Some(dims)
                && p.number("hops") == Some(hops)
                && p.number("size_bytes") == Some(size)
        })
        .and_then(|p| p.stats("ping_pong_ns"))
        .map(|s| s.min)
        .expect("the point was measured")
}

/// More hops cost more; a switch (an agent's copy and one more hop) costs more than
/// none; at both sizes of the test sweep.
fn orderings_hold(topology: &KernelResult) -> bool {
    [64.0, 512.0].iter().all(|&size| {
        let one = min_of(topology, 2.0, 1.0, 1.0, size);
        let four = min_of(topology, 8.0, 1.0, 4.0, size);
        let non_switching = min_of(topology, 8.0, 2.0, 2.0, size);
        let switching = min_of(topology, 8.0, 2.0, 3.0, size);
        one > 0.0 && one < 1e6 && four > one && switching > non_switching
    })
}

/// Whether `l_f` comes out as what the emulation makes it: a forwarding node polls the
/// header, looks up the route and writes the header on, so a ring hop is one line
/// transfer (`l_p`) and a lookup, and `l_f = (PP_4 - PP_1)/3 - l_p` is small beside
/// `l_p`. Each size's value, kept below zero where noise puts it there, lies within
/// `l_p / 2` of zero, and Table 1's (their median, 0 where that is negative) in
/// `[0, l_p / 2)`. It is not asserted positive: on the 2-vCPU Xeon VM it solves to -52 to
/// +55 ns against an `l_p` of 120 to 212 ns measured by a separate ping-pong, and it
/// came out at or below zero in about half the runs. A solve that dropped `l_p` or
/// counted it twice would be off by a whole `l_p`.
///
/// The bound is never under [`LF_NOISE_NS`]: `l_f` is a third of a difference of
/// two ping-pongs of 500 to 700 ns, and on a two-vCPU EPYC VM, whose `l_p` is only
/// 40 to 56 ns, it came out at −20 to +35 ns over eight runs.
///
/// The bound grows by the spread of `l_p`'s own trials: when the machine changed
/// state during the kernel, the ping-pongs `l_f` is taken from moved as much.
/// (A CI run on that VM, its `l_p` trials 30.6 to 43.7 ns, gave `l_f` 43.4 ns
/// at 512 B in all three tries.)
fn forwarding_is_small(decomposition: &KernelResult) -> bool {
    let Some(table1) = decomposition.fits.iter().find(|f| f.model == TABLE1_MODEL) else {
        return false;
    };
    let lp = table1.params["propagation_lp_ns"];
    let moved = decomposition
        .points
        .iter()
        .find_map(|p| p.stats("cache_line_one_way_ns"))
        .map_or(0.0, |s| s.max - s.min);
    let bound = (0.5 * lp).max(LF_NOISE_NS) + moved;
    let sizes: Vec<f64> = decomposition
        .points
        .iter()
        .filter_map(|p| p.number("forwarding_lf_ns"))
        .collect();
    !sizes.is_empty()
        && sizes.iter().all(|lf| lf.abs() < bound)
        && (0.0..bound).contains(&table1.params["forwarding_lf_ns"])
}

/// What `l_f` may stray from zero by however small `l_p` is, ns.
const LF_NOISE_NS: f64 = 40.0;

#[test]
fn topology_kernel_decomposes_this_machine() {
    // The two tests here that measure take turns: run together, their spinning
    // workers shared the two CPUs and the first ring timed the scheduler (2x).
    let _turn = common::measuring();
    let topo = Topology::detect().unwrap();
    let allowed = platform::allowed_cpus();
    if allowed.len() < 2 {
        return common::cannot_run_here(
            "topology_kernel_decomposes_this_machine",
            "the sci-topology kernel needs 2 CPUs",
        );
    }
    let clock = platform::measure_clock();
    let config = RunConfig {
        quick: true,
        transports: vec![TransportKind::Mailbox],
        sizes: Some(vec![8, 64, 512]),
        trials: Some(5),
        ..RunConfig::default()
    };
    let ctx = RunContext::quiet(&topo, &allowed, &clock, &config);
    let spec = kernels::find("sci-topology").expect("registered");
    assert_eq!(spec.method, "scibench");
    // A loaded machine may inflate a whole point; allow three runs, and check the last.
    let mut last = None;
    for _ in 0..3 {
        let results = kernels::run_kernel(spec, &ctx).expect("the kernel runs");
        let plausible = find(&results, DECOMPOSITION).is_some_and(forwarding_is_small)
            && find(&results, "sci-topology").is_some_and(orderings_hold);
        last = Some(results);
        if plausible {
            break;
        }
    }
    let results = last.unwrap();
    let topology = find(&results, "sci-topology").expect("PP points");
    assert_eq!(topology.placement, Placement::Pinned);
    // 6 configurations x 3 sizes, and rings of 2..9 nodes at 64 B.
    assert_eq!(topology.points.len(), 6 * 3 + 8);
    assert!(orderings_hold(topology), "{:?}", topology.points);
    let decomposition = find(&results, DECOMPOSITION).expect("decomposition");
    let table1 = decomposition
        .fits
        .iter()
        .find(|f| f.model == TABLE1_MODEL)
        .unwrap_or_else(|| panic!("no Table 1 estimates: {:?}", decomposition.warnings));
    let p = |name: &str| table1.params[name];
    assert!(p("propagation_lp_ns") > 0.0);
    assert!(p("overhead_o_ns") > 0.0);
    assert!(
        forwarding_is_small(decomposition),
        "{:?} {:?}",
        decomposition.points,
        decomposition.warnings
    );
    assert!(p("switching_ls_ns") > 0.0);
    // The agent copies the payload out of memory into the other ring's buffer; a
    // forwarding node only passes the header on.
    assert!(p("switching_ls_ns") > p("forwarding_lf_ns"));
    assert!(p("overhead_per_byte_ns") >= 0.0);
    // Every validation point has a finite error; the projection has three crossovers
    // per set of inputs with the paper's among them.
    let validation = find(&results, VALIDATION).expect("validation");
    assert_eq!(validation.points.len(), 3 + 8);
    assert!(
        validation
            .points
            .iter()
            .all(|q| q.number("error_pct").is_some_and(f64::is_finite))
    );
    let projection = find(&results, PROJECTION).expect("projection");
    let crossovers = projection
        .points
        .iter()
        .filter(|q| q.number("from_dims").is_some())
        .count();
    assert_eq!(crossovers, 4 * 3);
    // And the curves of Fig. 14: four inputs, four dimension counts.
    assert!(
        projection
            .points
            .iter()
            .filter(|q| q.number("average_latency_ns").is_some())
            .count()
            >= 4 * 4 * 2
    );
    let paper_3d_4d = projection
        .points
        .iter()
        .find(|q| q.number("inputs") == Some(2.0) && q.number("from_dims") == Some(3.0))
        .and_then(|q| q.number("crossover_average_nodes"))
        .unwrap();
    assert!((paper_3d_4d - 1831.0).abs() / 1831.0 < 0.002);
}

#[test]
fn run_by_method_name_includes_the_topology_kernel() {
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.json");
    let o = halfperf(&[
        "run",
        "scibench",
        "sci-topology",
        "--quick",
        "--transport",
        "mailbox",
        "--sizes",
        "64,512",
        "--trials",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let file = halfperf::results::read(&out).unwrap();
    let names: Vec<&str> = file.kernels.iter().map(|k| k.kernel.as_str()).collect();
    for want in ["pingpong", "oneway", "c2c", "sci-topology", DECOMPOSITION] {
        assert!(names.contains(&want), "{want} missing: {names:?}");
    }
    // sci-topology is named twice (alone and through its method) but runs once.
    assert_eq!(names.iter().filter(|&&n| n == "sci-topology").count(), 1);
    let bad = halfperf(&["run", "nosuchmethod"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("scibench"));
}
