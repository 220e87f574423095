//! `halfperf run overheads`: Krumme & Greenfield's send and receive overheads
//! on a pinned pair, end to end: the result per transport, its three lines,
//! the card's rows, and `predict` taking its `o` and `O` from them rather than
//! from the decomposition's hosted nodes. Timing assertions are orderings
//! and generous bounds: the machine may be a loaded two-core virtual machine.

mod common;

use common::{cannot_run_here, halfperf, measuring};
use halfperf::kernels::decomposition::{OVERHEADS_MODEL, OVERHEADS_SIZES};
use halfperf::results::KernelResult;
use serde_json::Value;

fn median(k: &KernelResult, size: usize, name: &str) -> f64 {
    k.points
        .iter()
        .find(|p| p.number("size_bytes") == Some(size as f64))
        .and_then(|p| p.stats(name))
        .unwrap_or_else(|| panic!("{name} at {size} B missing"))
        .median
}

#[test]
fn pinned_overheads_measure_and_feed_predict() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        cannot_run_here(
            "pinned_overheads_measure_and_feed_predict",
            "it needs two CPUs",
        );
        return;
    }
    let _turn = measuring();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = halfperf(
        d,
        &[
            "run",
            "overheads",
            "pingpong",
            "oneway",
            "--quick",
            "--out",
            "q.json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = halfperf::results::read(&d.join("q.json")).unwrap();
    let results: Vec<&KernelResult> = file
        .kernels
        .iter()
        .filter(|k| k.kernel == "overheads")
        .collect();
    assert_eq!(results.len(), 2, "one result per transport");
    let (small, big) = (OVERHEADS_SIZES[0], *OVERHEADS_SIZES.last().unwrap());
    for k in &results {
        let t = k.transport.as_deref().unwrap();
        assert_eq!(k.placement, halfperf::control::Placement::Pinned, "{t}");
        assert_eq!(k.points.len(), OVERHEADS_SIZES.len(), "{t}");
        let fit = k
            .fits
            .iter()
            .find(|f| f.model == OVERHEADS_MODEL)
            .unwrap_or_else(|| panic!("{t}: no fit: {:?}", k.warnings));
        for name in [
            "s0_ns",
            "s1_ns_per_byte",
            "r0_ns",
            "r1_ns_per_byte",
            "c0_ns",
            "c1_ns_per_byte",
        ] {
            assert!(fit.params[name].is_finite(), "{t} {name}");
            assert!(fit.std_errors[name].is_finite(), "{t} {name}");
        }
        // Copies order the sizes: a 64 KiB message costs its sender, its
        // receiver and its round trip more than an 8-byte one.
        for name in ["send_ns", "recv_ns", "cold_one_way_ns"] {
            let (s, b) = (median(k, small, name), median(k, big, name));
            assert!(
                s > 0.0 && b > s,
                "{t} {name}: {s} at {small} B, {b} at {big} B"
            );
        }
        for name in ["s1_ns_per_byte", "r1_ns_per_byte", "c1_ns_per_byte"] {
            assert!(fit.params[name] > 0.0, "{t} {name}: {}", fit.params[name]);
        }
        // The card shows the lines.
        let key = format!("overheads/{t}");
        let card = halfperf::analysis::card(&file);
        for name in ["s0_ns", "r0_ns", "s1_ns_per_byte", "r1_ns_per_byte"] {
            assert!(
                card.rows.iter().any(|r| r.kernel == key && r.name == name),
                "{key} {name} not on the card"
            );
        }
    }
    // predict takes o and O from the pinned rows, and says nothing of hosted ones.
    let goal = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("workloads/p2/binomial-bcast.goal")
        .display()
        .to_string();
    for t in ["mailbox", "channel"] {
        let out = halfperf(
            d,
            &[
                "predict",
                &goal,
                "--from",
                "q.json",
                "--transport",
                t,
                "--cpus",
                "2",
                "--json",
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = v["inputs"]["rows"].as_array().unwrap();
        for r in &rows[..4] {
            assert_eq!(
                r["kernel"].as_str(),
                Some(format!("overheads/{t}").as_str())
            );
        }
        assert!(v["time_ns"].as_f64().unwrap() > 0.0, "{v}");
        let notes = v["notes"].to_string();
        assert!(!notes.contains("no pinned S and R"), "{notes}");
    }
}
