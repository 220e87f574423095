//! The topology parser against a fixture sysfs tree: 2 packages x 2 cores x 2 SMT
//! threads (Linux numbering: CPU n and n + 4 are siblings), a private L1/L2 per
//! core, an L3 and a NUMA node per package.

use halfperf::platform::{CacheKind, DistanceClass, Topology};
use std::path::Path;

fn fixture() -> Topology {
    Topology::read_from(Path::new("tests/data/sys-2pkg-2core-smt")).expect("fixture parses")
}

#[test]
fn counts_cpus_cores_packages_numa_and_smt() {
    let t = fixture();
    assert_eq!(t.logical_cpus(), 8);
    assert_eq!(t.physical_cores(), 4);
    assert_eq!(t.packages(), 2);
    assert_eq!(t.numa_nodes(), 2);
    assert!(t.smt());
    let cpu5 = t.cpu(5).unwrap();
    assert_eq!(
        (cpu5.core_id, cpu5.package_id, cpu5.numa_node),
        (1, 0, Some(0))
    );
    assert_eq!(cpu5.smt_siblings, vec![1, 5]);
}

#[test]
fn caches_are_deduplicated_with_their_sharing_cpus() {
    let t = fixture();
    // 4 cores x (L1d + L1i + L2) + 2 L3.
    assert_eq!(t.caches.len(), 14);
    let l3: Vec<_> = t.caches.iter().filter(|c| c.level == 3).collect();
    assert_eq!(l3.len(), 2);
    assert_eq!(l3[0].size_bytes, 16 << 20);
    assert_eq!(l3[0].shared_cpus, vec![0, 1, 4, 5]);
    assert_eq!(l3[0].line_bytes, Some(64));
    assert!(t.caches.iter().any(|c| c.kind == CacheKind::Instruction));
    assert_eq!(
        t.data_cache_sizes(0),
        vec![(1, 32 << 10), (2, 1 << 20), (3, 16 << 20)]
    );
}

#[test]
fn distance_classes_follow_the_hierarchy() {
    let t = fixture();
    assert_eq!(t.distance(0, 4), Some(DistanceClass::SameCore));
    assert_eq!(t.distance(0, 1), Some(DistanceClass::SharedL3));
    assert_eq!(t.distance(0, 2), Some(DistanceClass::OtherPackage));
    assert_eq!(t.distance(0, 0), None);
    assert_eq!(t.distance(0, 99), None);
    let all: Vec<usize> = (0..8).collect();
    let pairs = t.pairs_by_class(&all);
    assert_eq!(
        pairs,
        vec![
            (DistanceClass::SameCore, 0, 4),
            (DistanceClass::SharedL3, 0, 1),
            (DistanceClass::OtherPackage, 0, 2)
        ]
    );
    // Restricted to one package, the most distant class is the shared L3.
    assert_eq!(
        t.pairs_by_class(&[0, 1, 4]).last(),
        Some(&(DistanceClass::SharedL3, 0, 1))
    );
}

#[test]
fn a_missing_tree_is_an_error_naming_the_file() {
    let err = Topology::read_from(Path::new("tests/data/no-such-tree")).unwrap_err();
    assert!(
        err.to_string().contains("devices/system/cpu/online"),
        "{err}"
    );
}

#[test]
fn the_live_machine_parses() {
    let t = Topology::detect().expect("this machine's /sys");
    assert!(t.logical_cpus() >= 1);
    assert!(t.physical_cores() >= 1 && t.physical_cores() <= t.logical_cpus());
}
