//! The machine card of the committed reference files, and `compare` of cards:
//! rows for every method with units and 95 % intervals, values and intervals
//! checked by hand against the files' fits and points, a file compared with itself
//! marking nothing, and no ratio of a signed value.

use halfperf::results::{self, CardRow, MachineCard, ResultFile, card, compare_cards};
use std::path::Path;

fn load(name: &str) -> ResultFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results")
        .join(name);
    results::read(&path).unwrap_or_else(|e| panic!("{e}"))
}

const QUICK: &str = "xeon-avx512-2vcpu-vm-2026-11-22-quick.json";
const XEON_KG: &str = "xeon-avx512-2vcpu-vm-2026-11-22-decomposition.json";
const EPYC_KG: &str = "epyc-2vcpu-vm-2026-11-23-decomposition.json";

fn row<'a>(c: &'a MachineCard, kernel: &str, name: &str) -> &'a CardRow {
    c.rows
        .iter()
        .find(|r| r.kernel == kernel && r.name == name)
        .unwrap_or_else(|| panic!("no row {kernel} {name}"))
}

#[test]
fn the_quick_reference_card_has_every_method_with_units_and_intervals() {
    let file = load(QUICK);
    let c = card(&file);
    for method in [
        "scibench",
        "hockney",
        "krumme-greenfield",
        "comet",
        "speedup",
    ] {
        assert!(
            c.rows.iter().any(|r| r.method == method),
            "{method} missing"
        );
    }
    for r in &c.rows {
        assert_eq!(r.unit, results::unit_of(&r.name), "{r:?}");
        if let Some([lo, hi]) = r.ci95 {
            assert!(lo <= r.value && r.value <= hi, "{r:?}");
        }
    }
    assert_eq!(
        c.identity.cpu_model,
        file.machine.cpu_model.clone().unwrap()
    );
    assert!(c.identity.quick);
    assert_eq!(c.identity.trials, Some(5));

    // t_startup of the mailbox ping-pong: 35.406 ns, standard error 1.21 ns over
    // 17 points and 2 parameters: t(0.975, 15) = 2.1314.
    let fit = &file.kernels[0].fits[0];
    let (v, se) = (fit.params["t_startup_ns"], fit.std_errors["t_startup_ns"]);
    let r = row(&c, "pingpong/mailbox", "t_startup_ns");
    assert_eq!(r.unit, "ns");
    assert!((r.value - v).abs() < 1e-9);
    let [lo, hi] = r.ci95.unwrap();
    assert!((hi - v - 2.131_449_546 * se).abs() < 1e-6 * se, "{r:?}");
    assert!((v - lo - 2.131_449_546 * se).abs() < 1e-6 * se, "{r:?}");

    // 8 B one-way over two bare flags: the median of 15 trials, 140.588 ns, with
    // t(0.975, 14) 1.2533 s / sqrt(15) = 2.1448 x 1.2533 x 3.0708 / 3.873 = 2.131 ns.
    let r = row(&c, "pingpong/atomic-flags", "one_way_ns");
    assert!((r.value - 140.588_396).abs() < 1e-3, "{r:?}");
    let [lo, hi] = r.ci95.unwrap();
    assert!(((hi - lo) / 2.0 - 2.131).abs() < 0.01, "{r:?}");
    // The mailbox over two bare flags: 0.983, range of the trials 0.951 to 1.020.
    let r = row(&c, "pingpong/atomic-flags", "mailbox_over_baseline");
    assert_eq!(r.unit, "x");
    assert!((r.value - 0.983).abs() < 1e-3 && r.ci95.unwrap()[0] < 0.952);

    // Krumme & Greenfield's six lines per transport, A signed.
    for t in ["mailbox", "channel"] {
        let kg: Vec<_> = c
            .rows
            .iter()
            .filter(|r| r.kernel == format!("decomposition/{t}"))
            .collect();
        assert_eq!(kg.len(), 12, "{kg:?}");
    }
    assert!(row(&c, "decomposition/mailbox", "int_a0_ns").signed);

    // The synchronisation methods sorted by s_1/2.
    let s_half: Vec<f64> = c
        .rows
        .iter()
        .filter(|r| r.name == "s_half_flop")
        .map(|r| r.value)
        .collect();
    assert_eq!(s_half.len(), 9);
    assert!(s_half.windows(2).all(|w| w[0] <= w[1]), "{s_half:?}");

    // The triad per memory level, and eq. 13's optimal N = sqrt(b U / c).
    assert_eq!(
        row(&c, "hockney-vector/triad-f64", "l1_r_inf_flop_per_s").unit,
        "flop/s"
    );
    let r = row(&c, "speedup/mailbox", "optimal_nodes");
    let u = file
        .kernels
        .iter()
        .find(|k| k.kernel == "speedup")
        .unwrap()
        .points
        .iter()
        .filter_map(|p| p.number("uniprocessor_ms"))
        .fold(0.0, f64::max);
    let expected = (1.083_900_916 * u / 0.428_375_707).sqrt();
    assert!(
        (r.value - expected).abs() < 1e-6 * expected,
        "{r:?} {expected}"
    );

    let texts: Vec<&str> = c.decisions.iter().map(|d| d.text.as_str()).collect();
    assert!(texts.iter().any(|t| t.contains("mailbox")), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.contains("spinning") || t.contains("parking")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("torus")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("efficiency")), "{texts:?}");
}

#[test]
fn the_decomposition_reference_cards_have_the_six_lines_with_intervals() {
    for name in [XEON_KG, EPYC_KG] {
        let c = card(&load(name));
        assert_eq!(c.rows.len(), 24, "{name}");
        for r in &c.rows {
            assert_eq!(r.method, "krumme-greenfield");
            assert!(r.ci95.is_some(), "{name}: {r:?}");
            assert!(r.signed, "{r:?}");
        }
    }
}

#[test]
fn a_file_compared_with_itself_marks_nothing() {
    for name in [QUICK, XEON_KG, EPYC_KG] {
        let f = load(name);
        let c = compare_cards(&[f.clone(), f.clone()]);
        assert!(!c.rows.is_empty());
        for r in &c.rows {
            assert_ne!(r.differs[1], Some(true), "{r:?}");
            assert!(
                r.ratios[1] == Some(1.0) || r.differences[1] == Some(0.0),
                "{r:?}"
            );
        }
        let p = results::compare(&[f.clone(), f]);
        assert!(p.rows.iter().all(|r| r.differs[1] != Some(true)));
    }
}

#[test]
fn xeon_against_epyc_decomposition_has_no_ratio_of_a_signed_value() {
    let files = [load(XEON_KG), load(EPYC_KG)];
    let c = compare_cards(&files);
    assert_eq!(c.rows.len(), 24);
    assert!(c.columns[0] != c.columns[1], "{:?}", c.columns);
    for r in &c.rows {
        assert!(r.signed, "{r:?}");
        assert_eq!(r.ratios, vec![None, None], "{r:?}");
        assert!(r.differences[1].is_some(), "{r:?}");
    }
    let p = results::compare(&files);
    for r in &p.rows {
        let negative = r.values.iter().flatten().any(|v| *v <= 0.0);
        if negative || r.kernel.starts_with("decomposition") {
            assert!(r.ratios.iter().all(Option::is_none), "{r:?}");
        }
    }
    let text = halfperf::text::card_comparison(&c);
    assert!(!text.contains(" x-"), "{text}");
}
