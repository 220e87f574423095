//! The machine card of the committed reference files, and `compare` of cards:
//! rows for every method with units and 95 % intervals, values and intervals
//! checked by hand against the files' fits and points, a file compared with itself
//! marking nothing, and no ratio of a signed value.

use halfperf::analysis;
use halfperf::analysis::{card, compare_cards};
use halfperf::results::{self, CardRow, MachineCard, ResultFile};
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
fn the_quick_reference_card_has_the_one_way_streaming_rows() {
    let file = load(QUICK);
    let c = card(&file);
    for t in ["mailbox", "channel"] {
        let kernel = format!("oneway/{t}");
        let k = file
            .kernels
            .iter()
            .find(|k| k.kernel == "oneway" && k.transport.as_deref() == Some(t))
            .unwrap();
        let fit = &k.fits[0];
        let r = row(&c, &kernel, "t_per_byte_ns");
        assert_eq!(r.unit, "ns/B");
        assert!(
            (r.value - fit.params["t_per_byte_ns"]).abs() < 1e-12,
            "{r:?}"
        );
        assert!(r.ci95.is_some(), "{r:?}");
        let r = row(&c, &kernel, "one_way_ns");
        assert_eq!(
            (r.unit.as_str(), r.line.as_str()),
            ("ns", "8 B one-way streaming time per message")
        );
        assert!(r.ci95.is_some(), "{r:?}");
    }
    // The mailbox's streaming line starts at -5.6 ns: no n_1/2; the channel's at
    // 344.9 ns with 0.04379 ns/B: n_1/2 = 7878 B.
    assert!(
        !c.rows
            .iter()
            .any(|r| r.kernel == "oneway/mailbox" && r.name == "n_half_bytes")
    );
    let r = row(&c, "oneway/channel", "n_half_bytes");
    assert!((r.value - 7877.7).abs() < 0.1, "{r:?}");
}

#[test]
fn the_quick_reference_decisions_say_no_more_than_the_data() {
    let c = card(&load(QUICK));
    let text = |word: &str| {
        c.decisions
            .iter()
            .find(|d| d.text.contains(word))
            .unwrap_or_else(|| panic!("no decision with {word}: {:?}", c.decisions))
    };
    // spin-hint's r_inf (8.134 Gflop/s) is above events-park's (8.094): the lines
    // do not cross, and grains went up to 2.11 Mflop.
    let d = text("spinning");
    assert!(
        d.text
            .contains("at every grain measured (up to 2.11 Mflop)"),
        "{}",
        d.text
    );
    assert_eq!(d.value, None);
    // The SCI fit gives an interval for o only, and the crossover does not depend
    // on o: no interval, the inputs without one named.
    let d = text("torus");
    assert_eq!(d.ci95, None);
    assert!(
        d.text.contains("no interval: l_p, l_f, l_s have none"),
        "{}",
        d.text
    );
    // Eq. 18 with eq. 13's covariance (Fieller): b = 1.084 with standard error
    // 0.084 reaches 1 / 0.8 = 1.25 within its interval, so the work has a positive
    // lower end and no upper one, and says so; no interval down to zero.
    let d = text("efficiency");
    assert_eq!(d.ci95, None, "{d:?}");
    assert!(d.value.unwrap() > 0.0);
    assert!(
        d.text.contains("(95 %: from ") && d.text.contains("no upper end"),
        "{}",
        d.text
    );
    assert!(!d.text.contains("from 0 "), "{}", d.text);
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
        let p = analysis::compare(&[f.clone(), f]);
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
    let p = analysis::compare(&files);
    for r in &p.rows {
        let negative = r.values.iter().flatten().any(|v| *v <= 0.0);
        if negative || r.kernel.starts_with("decomposition") {
            assert!(r.ratios.iter().all(Option::is_none), "{r:?}");
        }
    }
    let text = halfperf::text::card_comparison(&c);
    assert!(!text.contains(" x-"), "{text}");
}
