//! The core-to-core heat map on big machines: a synthetic c2c matrix over each
//! fixture's topology (every pair, its latency set by its distance class), drawn
//! by the report. The map follows the topology (packages, L3 domains, core
//! types as bands), a map of more than 64 CPUs stays about 1,000 pixels wide
//! with the class summary beside it, and a file without CPU places still draws.

use halfperf::platform::{DistanceClass, MachineRoot, Topology};
use halfperf::report;
use halfperf::results::{self, KernelResult, ResultFile};
use serde_json::json;
use std::path::Path;

/// A latency per distance class (ns), plus a small spread by pair so that the
/// colours vary within a class.
fn latency(class: DistanceClass, a: usize, b: usize) -> f64 {
    let base = match class {
        DistanceClass::SameCore => 12.0,
        DistanceClass::SharedL2 => 25.0,
        DistanceClass::SharedL3 => 40.0,
        DistanceClass::SamePackage => 90.0,
        _ => 180.0,
    };
    base + ((a * 7 + b * 3) % 5) as f64
}

/// The fixture's machine with a c2c result over every pair of its CPUs.
fn synthetic(name: &str) -> (Topology, ResultFile) {
    let root = MachineRoot::under(&Path::new("tests/data").join(name));
    let topo = root.topology().expect("fixture parses");
    let cpus: Vec<usize> = topo.cpus.iter().map(|c| c.id).collect();
    let mut points = Vec::new();
    for (i, &a) in cpus.iter().enumerate() {
        for &b in &cpus[i + 1..] {
            let class = topo.distance(a, b).unwrap();
            let index = DistanceClass::ALL.iter().position(|c| *c == class).unwrap();
            let v = latency(class, a, b);
            points.push(json!({
                "cpu_a": a, "cpu_b": b, "distance_class_index": index, "size_bytes": 8,
                "one_way_ns": {"count": 5, "min": v, "median": v + 1.0, "mean": v + 1.0,
                               "max": v + 3.0, "std_dev": 1.0, "p90": v + 3.0, "p99": v + 3.0}
            }));
        }
    }
    let mut file = results::read(Path::new("tests/data/machine-a.json")).expect("machine-a reads");
    let template = file
        .kernels
        .iter()
        .find(|k| k.kernel == "c2c")
        .expect("a c2c result");
    let mut k = serde_json::to_value(template).unwrap();
    k["points"] = json!(points);
    k["cpus"] = json!(cpus);
    let kernel: KernelResult = serde_json::from_value(k).unwrap();
    file.kernels = vec![kernel];
    file.machine.cpu_model = Some(name.to_string());
    file.machine.logical_cpus = cpus.len();
    file.machine.cpu_places = Some(topo.places(&cpus));
    (topo, file)
}

/// The heat map figure of a one-file report, written with its page under the
/// test's target directory (for a look in a browser).
fn heat_map(name: &str, file: &ResultFile) -> report::Figure {
    let built = report::build(std::slice::from_ref(file));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("heatmap")
        .join(name);
    report::write(&built, &dir).expect("the report writes");
    let mut fig = built
        .sections
        .iter()
        .flat_map(|s| &s.figures)
        .find(|f| f.title.contains("matrix"))
        .expect("a heat map")
        .clone();
    // plotters puts a text's content on lines of its own.
    fig.svg = fig.svg.replace('\n', "");
    fig
}

/// The SVG's width attribute.
fn width(svg: &str) -> u32 {
    let at = svg.find("width=\"").expect("a width") + 7;
    svg[at..].split('"').next().unwrap().parse().unwrap()
}

#[test]
fn a_two_socket_xeon_map_names_its_packages_and_keeps_its_width() {
    let (_, file) = synthetic("sys-xeon-2s-112");
    let fig = heat_map("xeon-2s-112", &file);
    assert!(fig.svg.contains(">package 0<") && fig.svg.contains(">package 1<"));
    // One L3 per package: no L3 bands.
    assert!(!fig.svg.contains(">L3 1<"));
    assert!(width(&fig.svg) <= 1800, "{}", width(&fig.svg));
    // The class summary beside the map and under it.
    assert!(
        fig.svg.contains("other package, 3136 pair(s)"),
        "no summary beside"
    );
    assert!(
        fig.caption
            .iter()
            .any(|c| c.starts_with("other package, 3136 pair(s)"))
    );
    assert!(fig.caption[0].contains("bands above and left"));
    // Large maps carry no values in their cells.
    assert!(!fig.svg.contains(">183<"));
}

#[test]
fn an_epyc_map_names_its_eight_ccds() {
    let (_, file) = synthetic("sys-epyc-7763-128");
    let fig = heat_map("epyc-7763-128", &file);
    for d in 0..8 {
        assert!(fig.svg.contains(&format!(">L3 {d}<")), "no band for L3 {d}");
    }
    assert!(fig.svg.contains(">package 0<"));
    assert!(width(&fig.svg) <= 1800);
    assert!(fig.svg.contains("same package, "));
}

#[test]
fn a_hybrid_map_labels_p_and_e_cores_and_shows_values() {
    let (topo, file) = synthetic("sys-alderlake-hybrid-24");
    let fig = heat_map("alderlake-hybrid-24", &file);
    assert!(fig.svg.contains(">P cores<") && fig.svg.contains(">E cores<"));
    // Every CPU labelled with its type; 24 CPUs: values in the cells.
    assert!(fig.svg.contains(">0P<") && fig.svg.contains(">23E<"));
    let (a, b) = (16, 17);
    let v = latency(topo.distance(a, b).unwrap(), a, b);
    assert!(fig.svg.contains(&format!(">{v:.0}<")), "no cell {v}");
    // Small maps keep the summary under them only.
    assert!(!fig.svg.contains("pair(s):"));
}

#[test]
fn a_file_without_cpu_places_still_draws_its_map() {
    let (_, mut file) = synthetic("sys-alderlake-hybrid-24");
    file.machine.cpu_places = None;
    let fig = heat_map("alderlake-no-places", &file);
    assert!(!fig.svg.is_empty());
    assert!(!fig.svg.contains(">P cores<"));
    assert!(fig.caption[0].contains("nearest neighbours side by side"));
}
