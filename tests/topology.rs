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
        err.to_string().contains("no-such-tree is not a /sys tree"),
        "{err}"
    );
}

#[test]
fn the_live_machine_parses() {
    let t = Topology::detect().expect("this machine's /sys");
    assert!(t.logical_cpus() >= 1);
    assert!(t.physical_cores() >= 1 && t.physical_cores() <= t.logical_cpus());
}

// ---- Fixtures of real big machines (scripts/gen-sys-fixtures.py) ----

use halfperf::kernels::RunConfig;
use halfperf::kernels::plan::{self, Shape};
use halfperf::platform::{CoreType, MachineRoot, PairKind, measure_clock};

fn machine(name: &str) -> (MachineRoot, Topology, Vec<usize>) {
    let root = MachineRoot::under(&Path::new("tests/data").join(name));
    let topo = root.topology().expect("fixture parses");
    let allowed = root
        .cpuset(&topo)
        .expect("cpuset")
        .unwrap_or_else(|| topo.cpus.iter().map(|c| c.id).collect());
    (root, topo, allowed)
}

fn classes(t: &Topology, allowed: &[usize]) -> Vec<DistanceClass> {
    t.pairs_by_class(allowed).iter().map(|p| p.0).collect()
}

/// Two Xeon Gold 6348: 2 x 28 cores x 2 threads, CPU n and n + 56 siblings,
/// an L3 and a NUMA node per socket.
#[test]
fn a_two_socket_xeon_is_detected() {
    let (root, t, allowed) = machine("sys-xeon-2s-112");
    assert_eq!(
        (
            t.logical_cpus(),
            t.physical_cores(),
            t.packages(),
            t.numa_nodes()
        ),
        (112, 56, 2, 2)
    );
    assert!(t.smt());
    assert_eq!(t.l3_domains(), 2);
    assert_eq!(t.cpu(60).unwrap().smt_siblings, vec![4, 60]);
    assert_eq!(t.cpu(30).unwrap().numa_node, Some(1));
    assert_eq!(
        t.cpu_model.as_deref(),
        Some("Intel(R) Xeon(R) Gold 6348 CPU @ 2.60GHz")
    );
    assert_eq!(
        classes(&t, &allowed),
        vec![
            DistanceClass::SameCore,
            DistanceClass::SharedL3,
            DistanceClass::OtherPackage
        ]
    );
    let s = root.state();
    assert_eq!(s.governor.as_deref(), Some("performance"));
    assert_eq!(s.turbo, Some(true));
    assert_eq!(s.isolcpus.as_deref(), Some("2-3"));
    assert_eq!(s.hypervisor, None);
    assert_eq!(s.numa_balancing, Some(false));
    assert_eq!(s.microcode.as_deref(), Some("0xd0003a5"));
    assert_eq!(s.transparent_hugepages.as_deref(), Some("madvise"));
}

/// EPYC 7763: 64 cores x 2 threads, 8 CCDs of 8 cores each an L3, NPS1.
#[test]
fn an_epyc_with_eight_ccds_is_detected() {
    let (root, t, allowed) = machine("sys-epyc-7763-128");
    assert_eq!(
        (
            t.logical_cpus(),
            t.physical_cores(),
            t.packages(),
            t.numa_nodes()
        ),
        (128, 64, 1, 1)
    );
    assert_eq!(t.l3_domains(), 8);
    assert_eq!(t.l3_domain(70), t.l3_domain(1));
    assert_ne!(t.l3_domain(8), t.l3_domain(7));
    assert_eq!(t.distance(0, 7), Some(DistanceClass::SharedL3));
    assert_eq!(t.distance(0, 8), Some(DistanceClass::SamePackage));
    assert_eq!(
        classes(&t, &allowed),
        vec![
            DistanceClass::SameCore,
            DistanceClass::SharedL3,
            DistanceClass::SamePackage
        ]
    );
    // A sweep over P takes one CCD's eight cores, then their siblings,
    // before the next CCD.
    let order = t.sweep_order(&allowed);
    assert_eq!(&order[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(&order[8..10], &[64, 65]);
    assert_eq!(order[16], 8);
    let s = root.state();
    assert_eq!(
        (s.governor.as_deref(), s.cpufreq_driver.as_deref(), s.turbo),
        (Some("schedutil"), Some("acpi-cpufreq"), Some(true))
    );
    assert_eq!(s.max_freq_khz, Some(2_450_000));
}

/// i9-12900K: 8 P cores with SMT (CPUs 0-15), 8 E cores in two clusters of
/// four sharing an L2 (CPUs 16-23).
#[test]
fn a_hybrid_intel_records_core_types() {
    let (root, t, allowed) = machine("sys-alderlake-hybrid-24");
    assert_eq!((t.logical_cpus(), t.physical_cores()), (24, 16));
    assert_eq!(t.cpu(3).unwrap().core_type, Some(CoreType::Performance));
    assert_eq!(t.cpu(20).unwrap().core_type, Some(CoreType::Efficiency));
    assert_eq!(t.cpu(20).unwrap().cluster_id, Some(72));
    assert_eq!(t.data_cache_sizes(0)[0], (1, 48 << 10));
    assert_eq!(t.data_cache_sizes(16)[..2], [(1, 32 << 10), (2, 2 << 20)]);
    // Two E cores of a cluster share an L2: a class P cores never reach.
    assert_eq!(t.distance(16, 17), Some(DistanceClass::SharedL2));
    let e_pair = t.pair_kind(16, 17).unwrap();
    let p_pair = t.pair_kind(0, 2).unwrap();
    assert_eq!(
        e_pair.types,
        Some((CoreType::Efficiency, CoreType::Efficiency))
    );
    assert_eq!(p_pair.class, DistanceClass::SharedL3);
    assert_eq!(
        t.pair_kind(2, 16).unwrap().types,
        Some((CoreType::Performance, CoreType::Efficiency))
    );
    // The default pair of a class is a pair of P cores.
    assert_eq!(
        t.pairs_by_class(&allowed),
        vec![
            (DistanceClass::SameCore, 0, 1),
            (DistanceClass::SharedL2, 16, 17),
            (DistanceClass::SharedL3, 0, 2)
        ]
    );
    // c2c's representatives: every class and core-type pair, P-P apart from E-E.
    let kinds: Vec<PairKind> = t
        .representative_pairs(&allowed, Some(1))
        .into_iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    assert_eq!(
        kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>(),
        vec![
            "same core (SMT), P-P",
            "shared L2, E-E",
            "shared L3, P-P",
            "shared L3, P-E",
            "shared L3, E-E"
        ]
    );
    assert_eq!(root.state().governor.as_deref(), Some("powersave"));
}

/// Graviton3: 64 Neoverse V1 cores, no SMT, one L3; a Nitro guest.
#[test]
fn an_arm_server_is_detected() {
    let (root, t, allowed) = machine("sys-graviton3-64");
    assert_eq!(
        (
            t.logical_cpus(),
            t.physical_cores(),
            t.packages(),
            t.numa_nodes()
        ),
        (64, 64, 1, 1)
    );
    assert!(!t.smt());
    assert_eq!(t.l3_domains(), 1);
    assert_eq!(classes(&t, &allowed), vec![DistanceClass::SharedL3]);
    assert!(t.cpu_model.as_deref().unwrap().contains("Neoverse V1"));
    let s = root.state();
    assert_eq!(s.hypervisor.as_deref(), Some("AWS Nitro (KVM)"));
    assert_eq!((s.governor, s.turbo), (None, None));
    assert_eq!(s.smt_control.as_deref(), Some("notsupported"));
}

/// A container on a 48-CPU two-socket Xeon whose cpuset allows 1, 5, 13-14,
/// 25 and 37, with a 3-CPU quota, in a KVM guest.
#[test]
fn a_container_cpuset_limits_the_cpus() {
    let (root, t, allowed) = machine("sys-container-cpuset");
    assert_eq!(t.logical_cpus(), 48);
    assert_eq!(allowed, vec![1, 5, 13, 14, 25, 37]);
    assert_eq!(
        classes(&t, &allowed),
        vec![
            DistanceClass::SameCore,
            DistanceClass::SharedL3,
            DistanceClass::OtherPackage
        ]
    );
    let s = root.state();
    assert_eq!(s.cpu_quota, Some(3.0));
    assert_eq!(s.hypervisor.as_deref(), Some("KVM/QEMU"));
    assert_eq!(s.fragile().len(), 2, "{:?}", s.fragile());
}

#[test]
fn a_cpuset_naming_missing_cpus_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new("tests/data/sys-graviton3-64");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(src.join("sys"))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let cg = dir.path().join("sys/fs/cgroup");
    std::fs::create_dir_all(&cg).unwrap();
    std::fs::write(cg.join("cpuset.cpus.effective"), "0-3,200\n").unwrap();
    let root = MachineRoot::under(dir.path());
    let t = root.topology().unwrap();
    let err = root.cpuset(&t).unwrap_err().to_string();
    assert!(
        err.contains("[200]") && err.contains("do not exist"),
        "{err}"
    );
}

#[test]
fn a_root_that_is_not_sys_is_an_error() {
    let err = Topology::read_from(Path::new("tests/data")).unwrap_err();
    assert!(err.to_string().contains("is not a /sys tree"), "{err}");
}

const FIXTURES: [&str; 5] = [
    "sys-xeon-2s-112",
    "sys-epyc-7763-128",
    "sys-alderlake-hybrid-24",
    "sys-graviton3-64",
    "sys-container-cpuset",
];

/// On every fixture the default suite plans under a minute quick and under
/// twenty full; quick c2c takes two pairs of every kind, and the CoMet and
/// speedup sweeps take powers of two up to the allowed CPUs.
#[test]
fn every_fixture_plans_within_its_budgets() {
    let clock = measure_clock();
    let suite = halfperf::kernels::default_suite();
    for name in FIXTURES {
        let (_, t, allowed) = machine(name);
        for quick in [true, false] {
            let config = RunConfig {
                quick,
                ..RunConfig::default()
            };
            let shape = Shape {
                topology: &t,
                cpus: &allowed,
                config: &config,
                clock: &clock,
                repeat: 1,
            };
            let p = plan::plan(&suite, &shape, None).unwrap();
            let limit = if quick { 60.0 } else { 1200.0 };
            assert!(p.total_s <= limit, "{name} quick={quick}: {}", p.total_s);
            let c2c = p.kernels.iter().find(|k| k.kernel == "c2c").unwrap();
            let kinds = t.pairs_by_kind(&allowed).len();
            let (n, all) = c2c.pairs.unwrap();
            assert_eq!(all, allowed.len() * (allowed.len() - 1) / 2);
            if quick {
                let most: usize = t
                    .pairs_by_kind(&allowed)
                    .iter()
                    .map(|g| g.1.len().min(2))
                    .sum();
                assert_eq!(n, most, "{name}: {kinds} kinds");
            }
            let bcast = p
                .kernels
                .iter()
                .find(|k| k.kernel == "comet-broadcast")
                .unwrap();
            let top = *bcast.processors.last().unwrap();
            assert!(
                top.is_power_of_two() || top == 9,
                "{name}: {:?}",
                bcast.processors
            );
            if allowed.len() >= 32 {
                assert!(
                    top * 2 > allowed.len() && top <= allowed.len(),
                    "{name}: {top}"
                );
                // Inside one L3 domain first.
                let first = &bcast.cpus[..2];
                assert_eq!(t.l3_domain(first[0]), t.l3_domain(first[1]));
            }
            let speedup = p.kernels.iter().find(|k| k.kernel == "speedup").unwrap();
            assert!(speedup.processors.windows(2).all(|w| w[1] == 2 * w[0]));
        }
    }
}

/// A budget too small for one pair per kind is refused; a smaller budget
/// samples more.
#[test]
fn a_budget_samples_and_a_tiny_one_is_refused() {
    let clock = measure_clock();
    let suite = halfperf::kernels::default_suite();
    let (_, t, allowed) = machine("sys-epyc-7763-128");
    let config = RunConfig::default();
    let shape = Shape {
        topology: &t,
        cpus: &allowed,
        config: &config,
        clock: &clock,
        repeat: 1,
    };
    let wide = plan::plan(&suite, &shape, Some(100.0)).unwrap();
    let narrow = plan::plan(&suite, &shape, Some(14.0)).unwrap();
    let pairs = |p: &plan::RunPlan| p.kernels.iter().find_map(|k| k.pairs).unwrap().0;
    assert!(
        pairs(&narrow) < pairs(&wide),
        "{} {}",
        pairs(&narrow),
        pairs(&wide)
    );
    assert!(narrow.total_s <= 14.0 * 60.0);
    assert!(
        narrow.sampled.iter().any(|s| s.starts_with("c2c:")),
        "{:?}",
        narrow.sampled
    );
    assert!(plan::plan(&suite, &shape, Some(0.1)).is_err());
    assert!(plan::plan(&suite, &shape, Some(0.0)).is_err());
}
