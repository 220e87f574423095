//! The registry is the one list of kernels: names are unique, every presenter
//! (terminal tables, report figures) keys on a kernel the registry has, and the
//! README lists exactly the kernels `halfperf list` shows.

use halfperf::kernels::{registry, scibench};
use std::collections::BTreeSet;

fn registered() -> Vec<&'static str> {
    registry().iter().map(|k| k.name).collect()
}

#[test]
fn kernel_names_are_unique() {
    let names = registered();
    let unique: BTreeSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
}

#[test]
fn every_presenter_keys_on_a_registered_kernel() {
    let names = registered();
    let known: BTreeSet<&str> = names
        .iter()
        .copied()
        .chain(scibench::SCI_TOPOLOGY_ALSO.iter().copied())
        .collect();
    assert!(names.contains(&scibench::SCI_TOPOLOGY));
    for key in halfperf::text::PRESENTED
        .iter()
        .chain(halfperf::report::PRESENTED)
    {
        assert!(known.contains(key), "presenter key {key:?} is no kernel");
    }
}

#[test]
fn readme_lists_the_registered_kernels() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Kernels\n")
        .nth(1)
        .expect("a Kernels section")
        .split("\n## ")
        .next()
        .unwrap();
    let listed: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("- "))
        .flat_map(|l| l.split('`').skip(1).step_by(2))
        .collect();
    assert_eq!(listed, registered());
}
