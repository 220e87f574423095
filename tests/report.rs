//! Reports and comparisons of fixture result files: every kernel appears with the
//! figures its shape calls for, the page is self-contained, the SVG is well formed,
//! compare's ratios and marks are the exact ones of the hand-written fixtures, and
//! every committed result file validates against the committed JSON Schema.

use halfperf::analysis;
use halfperf::report::{self, Report};
use halfperf::results::{self, ResultFile};
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn load(name: &str) -> ResultFile {
    results::read(&data(name)).expect("fixture reads")
}

fn figure_ids(r: &Report) -> Vec<String> {
    r.sections
        .iter()
        .flat_map(|s| s.figures.iter().map(|f| f.id.clone()))
        .collect()
}

/// Minimal well-formedness: starts with `<svg`, ends with `</svg>`, and every
/// element opened is closed in order.
fn assert_well_formed_svg(svg: &str, what: &str) {
    let t = svg.trim();
    assert!(t.starts_with("<svg"), "{what}: does not start with <svg");
    assert!(t.ends_with("</svg>"), "{what}: does not end with </svg>");
    let mut stack: Vec<String> = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest
            .find('>')
            .unwrap_or_else(|| panic!("{what}: unclosed tag"));
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .unwrap_or_else(|| panic!("{what}: stray </{name}>"));
            assert_eq!(open, name.trim(), "{what}: </{name}> closes <{open}>");
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap_or("").to_string();
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "{what}: unclosed {stack:?}");
}

#[test]
fn axis_labels_carry_units_from_field_names() {
    assert_eq!(report::axis_label("one_way_ns"), "one-way latency (ns)");
    assert_eq!(report::axis_label("size_bytes"), "message size (bytes)");
    assert_eq!(report::axis_label("bandwidth_mb_per_s"), "bandwidth (MB/s)");
    assert_eq!(
        report::axis_label("n_elements"),
        "vector length n (elements)"
    );
    assert_eq!(report::axis_label("widgets"), "widgets");
    // A ratio named after what it compares has no unit.
    assert_eq!(
        report::axis_label("predicted_slowdown_r_plus_s"),
        "predicted slowdown r plus s"
    );
}

#[test]
fn quick_run_fixture_has_every_expected_plot() {
    let file = load("fixture-quick.json");
    let r = report::build(std::slice::from_ref(&file));
    let ids = figure_ids(&r);
    // Every kernel result appears as a section.
    assert_eq!(r.sections.len(), file.kernels.len(), "{ids:?}");
    for k in &file.kernels {
        assert!(
            r.sections.iter().any(|s| s.title.starts_with(&k.kernel)),
            "no section for {}",
            k.kernel
        );
    }
    for t in ["mailbox", "channel"] {
        for k in ["pingpong", "oneway"] {
            for q in ["one_way_ns", "bandwidth_mb_per_s"] {
                let id = format!("fig-{k}-{t}-shared-l3--{q}");
                let alt = ids
                    .iter()
                    .any(|i| i.starts_with(&format!("fig-{k}-{t}")) && i.ends_with(q));
                assert!(alt, "missing {id} in {ids:?}");
            }
        }
    }
    assert!(ids.iter().any(|i| i.starts_with("fig-c2c")), "{ids:?}");
    for s in &r.sections {
        for f in &s.figures {
            assert_well_formed_svg(&f.svg, &f.id);
            assert!(!f.title.is_empty());
        }
    }
    // The latency line is drawn on the latency plots, the 50 %/90 % sizes marked.
    let pp = r
        .sections
        .iter()
        .find(|s| s.title.starts_with("pingpong over mailbox"))
        .expect("pingpong section");
    let lat = pp
        .figures
        .iter()
        .find(|f| f.id.ends_with("one_way_ns"))
        .unwrap();
    assert!(lat.svg.contains("one-way latency (ns)") && lat.svg.contains("message size (bytes)"));
    assert!(
        lat.svg.contains("t_startup + N t_per_byte"),
        "no fit in legend"
    );
}

#[test]
fn report_of_two_machines_overlays_and_keeps_unknown_shapes() {
    let files = [load("machine-a.json"), load("machine-b.json")];
    let r = report::build(&files);
    let ids = figure_ids(&r);
    assert_eq!(
        r.sections
            .iter()
            .map(|s| s.title.as_str())
            .collect::<Vec<_>>(),
        [
            "pingpong over mailbox (scibench, shared L3)",
            "c2c (scibench)",
            "triad (hockney)",
            "mystery (future)"
        ]
    );
    // Overlaid: one latency figure with both machines in its legend.
    let pp = &r.sections[0];
    let lat = pp
        .figures
        .iter()
        .find(|f| f.id.ends_with("one_way_ns"))
        .unwrap();
    assert!(lat.svg.contains("machine-a 2026-11-01T10:00:00Z"));
    assert!(lat.svg.contains("machine-b 2026-11-02T10:00:00Z"));
    let bw = pp
        .figures
        .iter()
        .find(|f| f.id.ends_with("bandwidth_mb_per_s"))
        .unwrap();
    // n_1/2 = 100 / 0.25 = 400 B and 150 / 0.25 = 600 B; 90 % at 3600 B and 5400 B.
    for m in [
        "50%: 400.0 B",
        "90%: 3600.0 B",
        "50%: 600.0 B",
        "90%: 5400.0 B",
    ] {
        assert!(bw.svg.contains(m), "{m} not marked");
    }
    // A heat map per machine for the CPU-pair matrix, values in the cells.
    let heat: Vec<_> = r.sections[1].figures.iter().collect();
    assert_eq!(heat.len(), 2, "{ids:?}");
    assert!(heat[0].svg.contains("\n40\n") && heat[1].svg.contains("\n90\n"));
    // Hockney's line is drawn; a model the report does not know is named, not drawn.
    let triad = &r.sections[2];
    let t = triad
        .figures
        .iter()
        .find(|f| f.id.ends_with("time_ns"))
        .unwrap();
    assert!(t.svg.contains("t = (n + n_half) / r_inf"));
    assert!(
        t.caption
            .iter()
            .any(|c| c.contains("some future model not drawn"))
    );
    assert!(r.sections[2].notes.iter().all(|n| n.unusual_placement));
    // The unknown shape: no figure, but its points in a table.
    let mystery = &r.sections[3];
    assert!(mystery.figures.is_empty());
    assert!(
        mystery
            .tables
            .iter()
            .any(|t| t.header.contains(&"gizmo_count".to_string()))
    );
    // Warnings sit with their kernel.
    assert!(pp.notes[1].warnings.iter().any(|w| w.contains("busy")));
}

#[test]
fn written_report_is_self_contained_with_svg_files_beside_the_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let status = Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(["report", "--out"])
        .arg(&out)
        .arg(data("machine-a.json"))
        .arg(data("machine-b.json"))
        .arg(data("fixture-quick.json"))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "a URL in the page"
    );
    assert!(
        !html.to_ascii_lowercase().contains("<script"),
        "a script in the page"
    );
    assert!(!html.contains(" src="), "an external resource in the page");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let mut svgs = 0;
    for line in md.lines().filter(|l| l.starts_with("![")) {
        let file = line.rsplit_once('(').unwrap().1.trim_end_matches(')');
        let svg = std::fs::read_to_string(out.join(file)).unwrap_or_else(|_| panic!("{file}"));
        assert_well_formed_svg(&svg, file);
        let id = file.trim_end_matches(".svg");
        assert!(
            html.contains(&format!("<figure id=\"{id}\"")),
            "{id} not in the page"
        );
        svgs += 1;
    }
    assert!(svgs >= 10, "only {svgs} figures");
}

#[test]
fn compare_gives_exact_ratios_and_marks_real_differences() {
    let files = [load("machine-a.json"), load("machine-b.json")];
    let c = analysis::compare(&files);
    let row = |k: &str, q: &str| {
        c.rows
            .iter()
            .find(|r| r.kernel == k && r.quantity == q)
            .unwrap_or_else(|| panic!("no row {k} {q}"))
    };
    // t_startup, an intercept that noise can push below zero, is signed: a
    // difference, never a ratio.
    let r = row("pingpong/mailbox", "t_startup_ns");
    assert_eq!(r.values, [Some(100.0), Some(150.0)]);
    assert_eq!(r.ratios, [None, None]);
    assert_eq!(r.differences, [None, Some(50.0)]);
    assert_eq!(r.differs, [None, Some(true)]); // 50 > 2 + 3
    let r = row("pingpong/mailbox", "t_per_byte_ns");
    assert_eq!(r.ratios[1], Some(1.0));
    assert_eq!(r.differs[1], Some(false));
    // Points match on their swept variables, whatever the calibration's reps.
    let r = row("pingpong/mailbox", "one_way_ns.min @ size_bytes=8");
    assert_eq!(r.ratios[1], Some(152.0 / 102.0));
    assert_eq!(r.differs[1], Some(true));
    let c2c = |pair: &str| format!("one_way_ns.min @ {pair},distance_class_index=2,size_bytes=8");
    assert_eq!(row("c2c", &c2c("cpu_a=0,cpu_b=1")).ratios[1], Some(1.25));
    assert_eq!(row("c2c", &c2c("cpu_a=0,cpu_b=2")).differs[1], Some(false));
    assert_eq!(row("c2c", &c2c("cpu_a=1,cpu_b=2")).ratios[1], Some(1.5));
    let r = row("triad", "r_inf_flop_per_s");
    assert_eq!((r.ratios[1], r.differs[1]), (Some(2.0), None));

    let csv = analysis::to_csv(&c);
    assert!(csv.starts_with("kernel,quantity,machine-a 2026-11-01T10:00:00Z value,"));
    assert!(
        csv.contains("pingpong/mailbox,t_startup_ns,100,,,2,,,,150,,50,3,*,intervals disjoint,\n"),
        "{csv}"
    );
    // The CLI prints the same CSV.
    let out = Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(["compare", "--points", "--csv"])
        .arg(data("machine-a.json"))
        .arg(data("machine-b.json"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), csv);
}

/// Two runs of Krumme & Greenfield's kernels compare point by point, each time as
/// its mean ± standard deviation over the repetitions: the counts a
/// run tallies (repetitions solved, echoes left out, messages streamed), the
/// slots a lane had (chosen from the size) and the slowdown it measures do not
/// name a point, so a rerun that left out one more echo still matches.
#[test]
fn compare_matches_decomposition_points_whatever_the_run_tallied() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let files = [
        results::read(&dir.join("xeon-avx512-2vcpu-vm-2026-11-22-decomposition.json")).unwrap(),
        results::read(&dir.join("xeon-avx512-2vcpu-vm-2026-11-22-quick.json")).unwrap(),
    ];
    let c = analysis::compare(&files);
    for size in [16, 500, 1000, 1500, 2000, 65_536] {
        let q = format!("a_ns.mean @ q_float=0,size_bytes={size}");
        let r = c
            .rows
            .iter()
            .find(|r| r.kernel == "decomposition/mailbox" && r.quantity == q)
            .unwrap_or_else(|| panic!("no row {q}"));
        assert!(r.values.iter().all(Option::is_some), "{q}: {:?}", r.values);
        // The six times are quoted as Tables 1 and 2 give them: the mean of the
        // repetitions, the standard deviation as its uncertainty.
        let a = files[0]
            .kernels
            .iter()
            .filter(|k| k.kernel == "decomposition" && k.transport.as_deref() == Some("mailbox"))
            .flat_map(|k| &k.points)
            .find(|p| {
                p.number("q_float") == Some(0.0) && p.number("size_bytes") == Some(size as f64)
            })
            .and_then(|p| p.stats("a_ns"))
            .unwrap();
        assert_eq!(
            (r.values[0], r.uncertainties[0]),
            (Some(a.mean), Some(a.std_dev))
        );
        assert_ne!(a.mean, a.min);
    }
    let streams: Vec<&str> = c
        .rows
        .iter()
        .filter(|r| {
            r.kernel == "interference/channel" && r.quantity.starts_with("period_ns.mean @")
        })
        .map(|r| r.quantity.as_str())
        .collect();
    assert_eq!(
        streams,
        [1, 2, 3].map(|k| format!(
            "period_ns.mean @ channels_active={},message_bytes=2000,streams={k}",
            2 * k
        )),
        "{streams:?}"
    );
}

/// `results/schema.json` is what the types generate now.
#[test]
fn committed_schema_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/schema.json");
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        committed,
        results::json_schema(),
        "results/schema.json is stale: regenerate with `halfperf schema > results/schema.json`"
    );
}

/// Every committed result file and every fixture validates against the schema and
/// reads with the current reader.
#[test]
fn committed_result_files_validate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("results/schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let mut files: Vec<PathBuf> = Vec::new();
    // The folders' files, and those of their folders one level down (a set of
    // separate runs of one command).
    let mut dirs: Vec<PathBuf> = vec![root.join("results"), root.join("tests/data")];
    while let Some(dir) = dirs.pop() {
        let top = dir.parent() == Some(root) || dir.ends_with("tests/data");
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && top {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "json") && !p.ends_with("schema.json") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 3, "{files:?}");
    for p in &files {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
        results::read(p).unwrap_or_else(|e| panic!("{e}"));
    }
    // And the schema is not vacuous: a kernel without points is refused.
    let mut bad: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("machine-a.json")).unwrap()).unwrap();
    bad["kernels"][0].as_object_mut().unwrap().remove("points");
    assert!(!validator.is_valid(&bad));
}

/// The figures a section of each kernel must have, by the end of their ids.
fn expected_figures(kernel: &str) -> &'static [&'static str] {
    match kernel {
        "pingpong" | "oneway" | "comet-echo" => &["-one_way_ns", "-bandwidth_mb_per_s"],
        "c2c" => &["-one_way_ns-1"],
        "sci-topology" => &["-ping_pong_ns", "-ring-nodes"],
        "sci-decomposition" => &["-components"],
        "sci-validation" => &["-fig13a", "-fig13b", "-split"],
        "sci-projection" => &[
            "-fig14a-this-machine",
            "-fig14b-this-machine",
            "-fig14a-paper-table-1",
            "-fig14b-paper-table-1",
        ],
        "hockney-vector" => &["-time_ns", "-rate_flop_per_s"],
        "hockney-sync" => &["-time_ns"],
        "decomposition" => &["-fsraue-0", "-fsraue-lines-0"],
        "interference" => &["-slowdown"],
        "comet-echo-hops" => &["-one_way_ns"],
        "comet-exchange" => &["-exchange_ns"],
        "comet-broadcast-linear" | "comet-broadcast-tree" => {
            &["-broadcast_ns", "-broadcast_ns-vs-processors"]
        }
        "comet-global-sum-doubling" | "comet-global-sum-tree" => {
            &["-global_sum_ns", "-global_sum_ns-vs-processors"]
        }
        "comet-barrier-central" | "comet-barrier-dissemination" | "comet-barrier-std" => {
            &["-barrier_ns"]
        }
        "comet-contention" => &["-one_way_ns"],
        "comet-overlap" => &["-gain_percent", "-sync_ns", "-async_ns"],
        "comet-update-guard"
        | "comet-shift-north"
        | "comet-shift-east"
        | "comet-transpose"
        | "comet-row-broadcast"
        | "comet-col-broadcast" => &["-time_ns", "-time_ns-vs-matrix_order"],
        "speedup" => &[
            "-speedup-load-4",
            "-speedup-load-16",
            "-speedup-load-64",
            "-speedup-load-400",
            "-message-latency",
        ],
        other => panic!("no expected figures for kernel {other}: add them here"),
    }
}

fn figure<'a>(r: &'a Report, id_end: &str) -> &'a report::Figure {
    r.sections
        .iter()
        .flat_map(|s| &s.figures)
        .find(|f| f.id.ends_with(id_end))
        .unwrap_or_else(|| panic!("no figure ending {id_end}"))
}

/// A quick run of every method (one transport per kernel, three synchronisation
/// methods): every kernel has its section and every expected figure, drawn.
#[test]
fn every_method_has_its_figures() {
    let file = load("fixture-methods.json");
    let r = report::build(std::slice::from_ref(&file));
    let ids = figure_ids(&r);
    let mut kernels: Vec<&str> = file.kernels.iter().map(|k| k.kernel.as_str()).collect();
    kernels.dedup();
    // Every method of the suite is in the fixture.
    for k in [
        "pingpong",
        "c2c",
        "sci-topology",
        "sci-projection",
        "hockney-vector",
        "hockney-sync",
        "decomposition",
        "comet-broadcast-tree",
        "comet-transpose",
        "speedup",
    ] {
        assert!(kernels.contains(&k), "{k} missing from the fixture");
    }
    for k in &file.kernels {
        let section = r
            .sections
            .iter()
            .find(|s| s.title.starts_with(&format!("{} ", k.kernel)) && !s.notes.is_empty())
            .unwrap_or_else(|| panic!("no section for {}", k.kernel));
        for end in expected_figures(&k.kernel) {
            let f = section
                .figures
                .iter()
                .find(|f| f.id.ends_with(end))
                .unwrap_or_else(|| panic!("{}: no figure ending {end} in {ids:?}", k.kernel));
            assert!(!f.svg.is_empty(), "{}: not drawn: {:?}", f.id, f.caption);
            assert_well_formed_svg(&f.svg, &f.id);
        }
    }
    // Hockney sync: s_1/2 bars per method, and all methods' lines together.
    let bars = figure(&r, "fig-hockney-sync-methods-s-half");
    for m in ["tasks-spawn", "tasks-pool", "locks", "s_1/2 (flop)"] {
        assert!(bars.svg.contains(m), "{m} not in the s_1/2 bars");
    }
    let sync = figure(&r, "fig-hockney-sync-methods-time");
    assert!(sync.svg.contains("grain (flop)") && sync.svg.contains("locks"));
    // Hockney vector: a line per memory level.
    let v = figure(&r, "hockney-vector-dyadic-f64-time_ns");
    assert!(v.svg.contains("r_inf on L1") && v.svg.contains("Fig. 1 lengths"));
    // Decomposition: each of F S R A U E with its line.
    for p in [
        "F = F0 + F1 n",
        "S = S0",
        "R = R0",
        "A = A0",
        "U = U0",
        "E = E0",
    ] {
        assert!(
            r.sections
                .iter()
                .flat_map(|s| &s.figures)
                .any(|f| f.id.starts_with("fig-decomposition") && f.svg.contains(p)),
            "no line {p}"
        );
    }
    // SCI: the components (Fig. 12), model against measurement (Fig. 13), the
    // stacked split, and the projections with their crossovers (Fig. 14).
    let c = figure(&r, "-components");
    for t in [
        "overhead o",
        "switching l_s",
        "forwarding l_f",
        "propagation l_p",
    ] {
        assert!(c.svg.contains(t), "{t}");
    }
    for f in ["-fig13a", "-fig13b"] {
        let f = figure(&r, f);
        assert!(f.svg.contains("measured (min)") && f.svg.contains("model, eqs. 21-25"));
    }
    let split = figure(&r, "-split");
    assert!(split.svg.contains("overhead 2 o") && split.svg.contains("2 nodes"));
    let p14 = figure(&r, "-fig14a-paper-table-1");
    assert!(p14.svg.contains("4-D torus") && p14.svg.contains("total nodes"));
    // The paper's own inputs cross from 3-D to 4-D near 1831 nodes (Table 2).
    assert!(
        p14.svg.contains("3D→4D: 183"),
        "no 3-D to 4-D crossover near 1831"
    );
    // Speedup: benchmark and simulation with the fitted eq. 13.
    let s = figure(&r, "-speedup-load-400");
    for t in ["benchmark", "simulation", "fit: eq. 13", "processors N"] {
        assert!(s.svg.contains(t), "{t}");
    }
    // T_ML: one series per chain length, with the eqs. 7-9 fit in the caption.
    let m = figure(&r, "-message-latency");
    for t in ["H = 1", "H = 4", "message length L (bytes)"] {
        assert!(m.svg.contains(t), "{t}");
    }
    assert!(m.caption.iter().any(|c| c.contains("t_i = ")));
    // CoMet: against P with the log2 P line.
    let b = figure(
        &r,
        "comet-broadcast-tree-mailbox-broadcast_ns-vs-processors",
    );
    assert!(b.svg.contains("processors P") && b.svg.contains("a + b log2 P"));
}

/// A result without the fields a figure needs gets the figure's note, not a panic.
#[test]
fn missing_fields_give_notes_not_panics() {
    let mut file = load("fixture-methods.json");
    for k in &mut file.kernels {
        for p in &mut k.points {
            for f in [
                "model_overhead_ns",
                "nodes",
                "simulated_ms",
                "speedup",
                "ping_pong_ns",
                "measured_ping_pong_ns",
            ] {
                p.0.remove(f);
            }
        }
        for f in &mut k.fits {
            f.params.remove("s_half_flop");
            f.params.remove("a_ms");
        }
    }
    let r = report::build(std::slice::from_ref(&file));
    let captions: Vec<&String> = r
        .sections
        .iter()
        .flat_map(|s| &s.figures)
        .flat_map(|f| &f.caption)
        .collect();
    let has = |t: &str| captions.iter().any(|c| c.contains(t));
    assert!(has("carry no model components"));
    assert!(has("only the crossovers"));
    assert!(has("no s_1/2 fitted"));
    assert!(has("no points with speedup"));
    // And a page is written from it.
    assert!(report::to_html(&r).contains("not drawn"));
}

/// A rerun of the quick suite (a subset of its kernels, committed as a fixture)
/// matches the committed quick run row for row: what a run calibrates (a
/// contending load's message size, the overlap kernel's repetitions) or derives
/// from what it measured (a model's error in percent, eq. 15's optimal processor
/// count, a t test's figures, a crossover) does not name a point, and a kernel's
/// fits that share a parameter (the broadcast's `t_startup_ns` at P = 2, 4, 8)
/// each keep their own row.
#[test]
fn a_rerun_matches_every_row_of_the_quick_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let files = [
        results::read(&dir.join("xeon-avx512-2vcpu-vm-2026-11-22-quick.json")).unwrap(),
        load("rerun-quick-subset.json"),
    ];
    let kernels: Vec<String> = files[1].kernels.iter().map(analysis::kernel_key).collect();
    assert_eq!(kernels.len(), 10, "{kernels:?}");
    let c = analysis::compare(&files);
    let rows: Vec<_> = c
        .rows
        .iter()
        .filter(|r| kernels.contains(&r.kernel))
        .collect();
    assert!(rows.len() > 400, "only {} rows", rows.len());
    let unmatched: Vec<String> = rows
        .iter()
        .filter(|r| r.values.iter().any(Option::is_none))
        .map(|r| format!("{} {}", r.kernel, r.quantity))
        .collect();
    assert!(unmatched.is_empty(), "{unmatched:#?}");
    for q in [
        "load_size_bytes",
        "reps_sync",
        "error_pct",
        "optimal_processors_eq15",
        "p_value",
    ] {
        assert!(
            !rows.iter().any(|r| r.quantity.contains(&format!("{q}="))),
            "{q} names a point"
        );
    }
    let startup = |p: u32| {
        rows.iter()
            .find(|r| {
                r.kernel == "comet-broadcast-linear/mailbox"
                    && r.quantity == format!("t_startup_ns (t_startup + N t_per_byte at P = {p})")
            })
            .unwrap_or_else(|| panic!("no t_startup_ns at P = {p}"))
            .values[0]
            .unwrap()
    };
    assert!(startup(2) < startup(4) && startup(4) < startup(8));
    assert!(rows.iter().any(|r| r.kernel == "comet-contention/channel"
        && r.quantity == "t_startup_ns (t_startup + N t_per_byte under 90% load)"));
}

/// Krumme & Greenfield's six times are drawn as their tables quote them, the
/// means of the repetitions, in one stacked figure per transport (a bar per size
/// and version of `Q`, the negative parts below zero and named) and one figure of
/// the six against size with Table 3's lines.
#[test]
fn decomposition_figures_stack_the_six_means_in_the_papers_capitals() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let file =
        results::read(&dir.join("xeon-avx512-2vcpu-vm-2026-11-22-decomposition.json")).unwrap();
    let r = report::build(std::slice::from_ref(&file));
    let ids = figure_ids(&r);
    let decomposition: Vec<&String> = ids
        .iter()
        .filter(|i| i.starts_with("fig-decomposition-mailbox"))
        .collect();
    // Two figures, not one per field.
    assert_eq!(decomposition.len(), 2, "{decomposition:?}");
    let stacked = figure(&r, "fig-decomposition-mailbox-shared-l3-fsraue-0");
    for letter in ["F", "S", "R", "A", "U", "E"] {
        assert!(
            stacked.svg.contains(&format!("\n{letter}\n")),
            "no part {letter}"
        );
    }
    for q in ["integer Q", "float Q"] {
        assert!(stacked.svg.contains(q), "no category of {q}");
    }
    // A's mean is -11.7 ns at 16 B (integer Q), U's -28.1 ns at 2000 B.
    assert!(
        stacked
            .caption
            .iter()
            .any(|c| c.starts_with("Negative here: A, U ")),
        "{:?}",
        stacked.caption
    );
    let lines = figure(&r, "fig-decomposition-mailbox-shared-l3-fsraue-lines-0");
    for line in ["F = F0 + F1 n", "A = A0 + A1 n", "E = E0 + E1 n"] {
        assert!(lines.svg.contains(line), "no line {line}");
    }
    assert!(!lines.svg.contains("(min)"));
    assert!(
        !lines.caption.iter().any(|c| c.contains("no Table 3 line")),
        "{:?}",
        lines.caption
    );
}
