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
        "| 2 / 2 / 1 / ? |",
        "| 65.6 ns |",
        "| 82.6 ns |",
        "| 579 flop |",
    ] {
        assert!(epyc.contains(cell), "{cell} not in {epyc}");
    }
    assert!(
        epyc.ends_with("| 3 | no: machine state not recorded |"),
        "{epyc}"
    );
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
    assert!(md.contains("## Index") && md.contains("| 65.6 ns |"));
    assert!(html.contains("id=\"index\"") && html.contains("<td>65.6 ns</td>"));
}
