//! The gallery of machines (`results/machines/`): every file there reads, is
//! gzip, small, full and repeated, and is named by its CPU; the README's index
//! is what `halfperf index` generates from them; result files round-trip as
//! `.json.gz` through the library and the command line, and the report shows
//! the index.

use halfperf::report::{self, gallery};
use halfperf::results::{self, ResultFile};
use std::path::{Path, PathBuf};

mod common;

use common::{assert_refused, halfperf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The gallery's files, sorted by name (as a shell's glob lists them).
fn machine_files() -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join("results/machines");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("results/machines")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    v.sort();
    v
}

fn named(files: &[PathBuf]) -> Vec<(String, ResultFile)> {
    files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let doc = results::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, doc)
        })
        .collect()
}

#[test]
fn every_machine_file_is_small_gzip_full_repeated_and_named_by_its_cpu() {
    let files = machine_files();
    assert!(!files.is_empty(), "results/machines/ has no .json.gz file");
    for (path, (name, doc)) in files.iter().zip(named(&files)) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..2], &[0x1f, 0x8b], "{name}: not gzip");
        assert!(bytes.len() <= 2 << 20, "{name}: {} bytes", bytes.len());
        assert_eq!(doc.config["repeat"].as_u64().map(|r| r >= 3), Some(true));
        assert_eq!(doc.config["run"]["quick"].as_bool(), Some(false), "{name}");
        assert!(!doc.incomplete, "{name}");
        let cpu = doc.machine.cpu_model.clone().unwrap_or_default();
        let slug: String = cpu
            .to_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        assert!(name.starts_with(&slug), "{name} is not named by {cpu:?}");
    }
}

#[test]
fn the_readme_index_is_what_halfperf_generates() {
    let docs = named(&machine_files());
    let rows: Vec<(String, &ResultFile)> = docs.iter().map(|(n, d)| (n.clone(), d)).collect();
    let want = gallery::index_markdown(&rows);
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let got = gallery::spliced_index(&readme).expect("README.md has the index markers");
    assert_eq!(
        got, want,
        "README.md's index is stale: run `halfperf index results/machines/*.json.gz --write README.md`"
    );
    // One row a file, and the EPYC VM's numbers as its card gives them.
    assert_eq!(
        want.lines().filter(|l| l.contains(".json.gz |")).count(),
        docs.len()
    );
    let epyc = want
        .lines()
        .find(|l| l.starts_with("| amd-epyc-2vcpu-vm.json.gz |"))
        .expect("the EPYC VM's row");
    for cell in [
        "| 2 / 2 / 1 / 1 |",
        "| 51.6 ns |",
        "| 62.0 ns |",
        "| 564 flop |",
    ] {
        assert!(epyc.contains(cell), "{cell} not in {epyc}");
    }
    assert!(epyc.ends_with("| 3 | yes |"), "{epyc}");
}

#[test]
fn the_index_command_prints_the_table_and_refuses_a_file_without_markers() {
    let dir = tempfile::tempdir().unwrap();
    let files = machine_files();
    let args: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let mut argv = vec!["index"];
    argv.extend(args.iter().map(String::as_str));
    let out = halfperf(dir.path(), &argv);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = named(&files);
    let rows: Vec<(String, &ResultFile)> = docs.iter().map(|(n, d)| (n.clone(), d)).collect();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        gallery::index_markdown(&rows)
    );
    std::fs::write(dir.path().join("plain.md"), "# no markers\n").unwrap();
    argv.extend(["--write", "plain.md"]);
    assert_refused(dir.path(), &argv, "no index markers");
    let kept = std::fs::read_to_string(dir.path().join("plain.md")).unwrap();
    assert_eq!(kept, "# no markers\n");
}

#[test]
fn a_result_file_round_trips_as_json_gz_and_plain_json() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = named(&machine_files()).remove(0);
    let gz = dir.path().join("copy.json.gz");
    let plain = dir.path().join("copy.json");
    results::write_atomic(&doc, &gz, false).unwrap();
    results::write_atomic(&doc, &plain, false).unwrap();
    let (gz_bytes, plain_bytes) = (std::fs::read(&gz).unwrap(), std::fs::read(&plain).unwrap());
    assert_eq!(&gz_bytes[..2], &[0x1f, 0x8b]);
    assert_eq!(plain_bytes[0], b'{');
    // A full repeated run compresses to well under a fifth.
    assert!(
        gz_bytes.len() * 5 < plain_bytes.len(),
        "{} vs {}",
        gz_bytes.len(),
        plain_bytes.len()
    );
    let back = serde_json::to_value(results::read(&gz).unwrap()).unwrap();
    assert_eq!(back, serde_json::to_value(&doc).unwrap());
    assert_eq!(
        back,
        serde_json::to_value(results::read(&plain).unwrap()).unwrap()
    );
    // A cut gzip file is refused with the path and the reason.
    let cut = dir.path().join("cut.json.gz");
    std::fs::write(&cut, &gz_bytes[..gz_bytes.len() / 2]).unwrap();
    let err = results::read(&cut).unwrap_err().to_string();
    assert!(err.contains("cut.json.gz") && err.contains("gzip"), "{err}");
}

#[test]
fn the_report_of_the_gallery_opens_with_its_index() {
    let docs: Vec<ResultFile> = named(&machine_files())
        .into_iter()
        .map(|(_, d)| d)
        .collect();
    let built = report::build(&docs);
    assert_eq!(built.index.rows.len(), docs.len());
    assert_eq!(built.index.header[3], "8 B one-way (mailbox)");
    let md = report::to_markdown(&built);
    let html = report::to_html(&built);
    assert!(md.contains("## Index") && md.contains("| 51.6 ns |"));
    assert!(html.contains("id=\"index\"") && html.contains("<td>51.6 ns</td>"));
}

/// The machine saved under `tests/data/NAME` and the CPUs its cpuset allows.
fn fixture(name: &str) -> (halfperf::platform::Topology, Vec<usize>) {
    let root =
        halfperf::platform::MachineRoot::under(&Path::new(ROOT).join("tests/data").join(name));
    let topo = root.topology().expect("fixture parses");
    let allowed = root
        .cpuset(&topo)
        .expect("cpuset")
        .unwrap_or_else(|| topo.cpus.iter().map(|c| c.id).collect());
    (topo, allowed)
}

/// `--home`'s choices on the fixtures: a node's first allowed CPU, and the
/// third CPU as far from the pair as each machine allows (another NUMA node
/// on the two-socket Xeon and in the scattered cpuset, another CCD on the
/// one-node EPYC, another core where the pair spans both sockets).
#[test]
fn the_lines_home_is_chosen_by_node_and_a_third_cpu_lies_away_from_the_pair() {
    use halfperf::platform::{Home, HomeError, third_cpu};
    let (xeon, all) = fixture("sys-xeon-2s-112");
    assert_eq!(Home::Node(1).cpu_for(&xeon, &all, (0, 1)), Ok(28));
    assert_eq!(Home::Local.cpu_for(&xeon, &all, (5, 40)), Ok(5));
    assert_eq!(Home::Cpu(90).cpu_for(&xeon, &all, (0, 1)), Ok(90));
    assert_eq!(xeon.cpu(28).unwrap().numa_node, Some(1));
    // A pair on node 0 (two cores, or SMT siblings): the line on node 1.
    assert_eq!(third_cpu(&xeon, &all, 0, 1), Some(28));
    assert_eq!(third_cpu(&xeon, &all, 0, 56), Some(28));
    // A pair on both nodes: no node or L3 is apart from both, another core is.
    assert_eq!(third_cpu(&xeon, &all, 0, 28), Some(1));
    assert!(matches!(
        Home::Node(2).cpu_for(&xeon, &all, (0, 1)),
        Err(HomeError::NoSuchNode { node: 2, .. })
    ));
    // One NUMA node, eight CCDs: the line in the next CCD.
    let (epyc, all) = fixture("sys-epyc-7763-128");
    assert_eq!(third_cpu(&epyc, &all, 0, 1), Some(8));
    assert_ne!(epyc.l3_domain(8), epyc.l3_domain(0));
    assert_eq!(Home::Node(0).cpu_for(&epyc, &all, (3, 4)), Ok(0));
    // A container allowed 1,5,13-14,25,37: 1 and 5 on node 0, the line on node 1.
    let (cont, allowed) = fixture("sys-container-cpuset");
    assert_eq!(allowed, vec![1, 5, 13, 14, 25, 37]);
    assert_eq!(third_cpu(&cont, &allowed, 1, 5), Some(13));
    assert_eq!(Home::Node(1).cpu_for(&cont, &allowed, (1, 5)), Ok(13));
    assert!(matches!(
        Home::Cpu(2).cpu_for(&cont, &allowed, (1, 5)),
        Err(HomeError::CpuNotAllowed { cpu: 2, .. })
    ));
    // Never one of the pair, and refused without a third CPU.
    for &(a, b) in &[(1, 5), (13, 37), (25, 14)] {
        let t = third_cpu(&cont, &allowed, a, b).unwrap();
        assert!(t != a && t != b && allowed.contains(&t));
    }
    assert_eq!(third_cpu(&cont, &[1, 5], 1, 5), None);
    assert!(matches!(
        Home::Third.cpu_for(&cont, &[1, 5], (1, 5)),
        Err(HomeError::NoThird { count: 2, .. })
    ));
}

/// With `--home third` the plan counts c2c's pairs twice (each timed with
/// its line local and on a third CPU).
#[test]
fn the_plan_counts_c2c_twice_with_its_line_on_a_third_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let xeon = Path::new(ROOT).join("tests/data/sys-xeon-2s-112");
    let plan = |home: &str| -> serde_json::Value {
        let out = halfperf(
            dir.path(),
            &[
                "run",
                "c2c",
                "--quick",
                "--plan",
                "--json",
                "--home",
                home,
                "--sys-root",
                xeon.to_str().unwrap(),
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (local, third) = (plan("local"), plan("third"));
    let points = |p: &serde_json::Value| p["kernels"][0]["points"].as_u64().unwrap();
    assert_eq!(points(&third), 2 * points(&local));
    assert_eq!(third["kernels"][0]["pairs"], local["kernels"][0]["pairs"]);
}

/// `--home` naming a CPU this run may not use, a node the machine lacks, a
/// malformed home, or `third` with two CPUs (under taskset): one line, exit
/// 2, nothing written.
#[test]
fn a_home_that_cannot_be_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let run = ["run", "c2c", "--quick", "--out", "r.json", "--home"];
    let with = |home: &'static str| run.iter().copied().chain([home]).collect::<Vec<_>>();
    assert_refused(
        dir.path(),
        &with("4095"),
        "CPU 4095 is not one this run may use",
    );
    assert_refused(dir.path(), &with("node:4095"), "no NUMA node 4095");
    assert_refused(
        dir.path(),
        &with("socket:0"),
        "expected a CPU number, node:N, third or local",
    );
    let first = halfperf::platform::allowed_cpus()[0].to_string();
    let out = std::process::Command::new("taskset")
        .args(["-c", &first, env!("CARGO_BIN_EXE_halfperf")])
        .args(with("third"))
        .current_dir(dir.path())
        .output();
    let Ok(out) = out else {
        return common::cannot_run_here("a_home_that_cannot_be_is_refused", "no taskset");
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("a CPU is never paired with itself"),
        "{stderr}"
    );
    assert!(!dir.path().join("r.json").exists());
}
