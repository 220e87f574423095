//! The registry is the one list of kernels: names are unique, every presenter
//! (terminal tables, report figures) keys on a kernel the registry has, and the
//! README lists exactly the kernels `halfperf list` shows.

use halfperf::kernels::card::{BENCH_ONLY, CardRows};
use halfperf::kernels::{card_entries, card_rows_of};
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

/// The committed result files: the reference runs, the machines' files and
/// the test fixtures.
fn reference_files() -> Vec<halfperf::results::ResultFile> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut paths = Vec::new();
    for dir in ["results", "results/machines", "tests/data"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).expect("a folder of results") {
            let path = entry.expect("an entry").path();
            let name = path.to_string_lossy().into_owned();
            if (name.ends_with(".json") || name.ends_with(".json.gz"))
                && !name.ends_with("schema.json")
            {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .map(|p| halfperf::results::read(p).expect("a committed result reads"))
        .collect()
}

/// Every card entry a kernel declares names results that the committed files
/// hold (`pingpong/mpi-raw`, written only under mpirun, aside), and every one
/// of those results gives the card rows, under its own kernel key.
#[test]
fn every_kernels_card_rows_exist() {
    let files = reference_files();
    let mut entries = 0;
    for spec in registry() {
        for entry in spec.card {
            entries += 1;
            let mut seen = 0;
            for file in &files {
                let card = halfperf::analysis::card(file);
                for k in &file.kernels {
                    if !entry.matches(&k.kernel, k.transport.as_deref())
                        || halfperf::kernels::card_rows_of(&k.kernel, k.transport.as_deref())
                            != Some(entry.rows)
                    {
                        continue;
                    }
                    seen += 1;
                    let key = halfperf::analysis::kernel_key(k);
                    assert!(
                        card.rows.iter().any(|r| r.kernel == key),
                        "{}: {key} gives no card row",
                        spec.name
                    );
                }
            }
            if entry.transport != Some("mpi-raw") {
                assert!(seen > 0, "{}: no committed result for {entry:?}", spec.name);
            }
        }
    }
    assert!(entries >= 10, "{entries} card entries");
}

/// The card chooses its rows by the kernels' entries, never by matching a
/// kernel's name: no registered name, nor a result name an entry gives,
/// appears as a string literal in the card's code (its tests aside).
#[test]
fn the_card_matches_no_kernel_name() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/src/analysis/");
    let mut names: BTreeSet<String> = registered().iter().map(|n| n.to_string()).collect();
    for entry in card_entries() {
        names.insert(entry.result.trim_end_matches('*').to_owned());
    }
    assert!(names.contains(halfperf::benchfit::fits::COPY));
    for file in ["card.rs", "card_rows.rs"] {
        let text = std::fs::read_to_string(format!("{root}{file}")).expect("a card file");
        let code = text.split("#[cfg(test)]").next().unwrap();
        for name in &names {
            for quoted in [
                format!("\"{name}\""),
                format!("\"{name}/"),
                format!("\"{name}-"),
            ] {
                assert!(
                    !code.contains(&quoted),
                    "{file} matches the kernel name {quoted}"
                );
            }
        }
    }
}

/// A result only `cargo bench` writes gets its card rows from its entry in
/// the registry's bench-only list, not from a name the card matches: the
/// bench's copy group is presented by its recorded headline, and a result
/// that neither a spec nor that list names gets no rows.
#[test]
fn bench_only_results_have_card_entries() {
    let copy = halfperf::benchfit::fits::COPY;
    assert!(BENCH_ONLY.iter().any(|e| e.names(copy)), "{BENCH_ONLY:?}");
    assert!(registry().iter().all(|k| k.name != copy));
    assert_eq!(card_rows_of(copy, None), Some(CardRows::Headline));
    assert_eq!(card_rows_of("no-such-bench-group", None), None);
    // On a card: the copy group's recorded 0.13 ns/B is a row; the same
    // headline under a name no entry gives is none.
    let mut file = reference_files().swap_remove(0);
    let result = |name: &str| {
        halfperf::results::KernelResult::new(
            name,
            "bench",
            halfperf::control::Placement::Pinned,
            vec![0, 1],
        )
        .with_headline(vec![halfperf::results::Param::new(
            "copy_ns_per_byte",
            None,
            0.13,
        )])
    };
    file.kernels = vec![result(copy), result("no-such-bench-group")];
    let card = halfperf::analysis::card(&file);
    let shown: Vec<(&str, &str, f64)> = card
        .rows
        .iter()
        .map(|r| (r.kernel.as_str(), r.name.as_str(), r.value))
        .collect();
    assert_eq!(shown, [(copy, "copy_ns_per_byte", 0.13)]);
}

/// Every kernel carries its own plan: the plan's code (`plan.rs`, `work.rs`)
/// names no kernel, and every registered kernel's estimate on a fixture
/// machine is a positive time on CPUs of that machine. The pair kernels'
/// hand-worked figures are in `tests/plan_check.rs`; here, orderings: a full
/// run of a kernel never plans less than its quick run, and c2c alone
/// measures pairs, over every CPU.
#[test]
fn every_kernel_carries_its_plan() {
    use halfperf::kernels::RunConfig;
    use halfperf::kernels::plan::{Shape, budget_of};
    use halfperf::platform::{ClockInfo, Topology};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/src/kernels/");
    for file in ["plan.rs", "work.rs"] {
        let text = std::fs::read_to_string(format!("{root}{file}")).expect("a plan file");
        let code = text.split("#[cfg(test)]").next().unwrap();
        for name in registered() {
            let quoted = format!("\"{name}\"");
            assert!(!code.contains(&quoted), "{file} names the kernel {quoted}");
        }
    }
    let topology = Topology::read_from(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sys-2pkg-2core-smt"
    )))
    .expect("the fixture parses");
    let cpus: Vec<usize> = topology.cpus.iter().map(|c| c.id).collect();
    assert!(cpus.len() >= 4, "{cpus:?}");
    let clock = ClockInfo {
        source: "test".into(),
        read_overhead_ns: 25.0,
        resolution_ns: 20.0,
    };
    let estimate = |spec, quick| {
        let config = RunConfig {
            quick,
            ..RunConfig::default()
        };
        let shape = Shape {
            topology: &topology,
            cpus: &cpus,
            config: &config,
            clock: &clock,
            repeat: 1,
        };
        budget_of(spec, &shape, None, cpus.len())
    };
    for spec in registry() {
        let (quick, full) = (estimate(spec, true), estimate(spec, false));
        assert_eq!(quick.kernel, spec.name);
        assert!(
            quick.estimate_s > 0.0 && quick.estimate_s.is_finite(),
            "{}: {}",
            spec.name,
            quick.estimate_s
        );
        assert!(
            full.estimate_s >= quick.estimate_s,
            "{}: full {} < quick {}",
            spec.name,
            full.estimate_s,
            quick.estimate_s
        );
        assert!(!quick.cpus.is_empty() && quick.cpus.iter().all(|c| cpus.contains(c)));
        let c2c = spec.name == "c2c";
        assert_eq!(quick.pairs.is_some(), c2c, "{}", spec.name);
        assert!(!c2c || quick.cpus.len() == cpus.len(), "{:?}", quick.cpus);
    }
}

/// The MPI dispatch is the registry's, once: every kernel that says it runs
/// over MPI carries its run between processes, the others none, and no
/// kernel's own run looks at the run's processes (the registry calls the
/// MPI function instead). The list's "Over MPI" line, which `halfperf list`
/// prints, names these eighteen.
#[test]
fn every_kernel_over_mpi_carries_its_mpi_run() {
    use halfperf::kernels::{OverMpi, over_mpi_names, runs_over_mpi};
    for spec in registry() {
        assert_eq!(
            spec.over_mpi.run().is_some(),
            runs_over_mpi(spec),
            "{}: {:?}",
            spec.name,
            spec.over_mpi
        );
        if let OverMpi::Runs { processes, .. } = spec.over_mpi {
            assert!(processes >= 2, "{}: {processes}", spec.name);
        }
    }
    let expected = [
        "pingpong",
        "oneway",
        "c2c",
        "hockney-sync",
        "decomposition",
        "interference",
        "comet-echo",
        "comet-exchange",
        "comet-broadcast",
        "comet-global-sum",
        "comet-barrier",
        "comet-contention",
        "comet-overlap",
        "comet-update-guard",
        "comet-shift",
        "comet-transpose",
        "comet-row-col-broadcast",
        "speedup",
    ];
    assert_eq!(over_mpi_names(), expected);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/src/kernels");
    let mut stack = vec![std::path::PathBuf::from(root)];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let text = std::fs::read_to_string(&path).expect("a source file");
                let dispatches = path.ends_with("registry.rs");
                assert!(
                    dispatches || !text.contains("ctx.processes"),
                    "{} reads the run's processes: only the registry dispatches over MPI",
                    path.display()
                );
            }
        }
    }
    assert!(files > 50, "{files} source files under src/kernels");
}

/// With MPI, each kernel's run between processes is its own: no two kernels
/// share one (a spec copied from another would run the other kernel).
#[cfg(feature = "mpi")]
#[test]
fn every_kernel_over_mpi_has_its_own_mpi_run() {
    let runs: Vec<(&str, usize)> = registry()
        .into_iter()
        .filter_map(|k| Some((k.name, k.over_mpi.run()? as usize)))
        .collect();
    assert_eq!(runs.len(), 18);
    for (i, (a, fa)) in runs.iter().enumerate() {
        for (b, fb) in &runs[i + 1..] {
            assert_ne!(fa, fb, "{a} and {b} share their run over MPI");
        }
    }
}
