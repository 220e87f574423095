//! Noise injection: a thread spins on the very CPU a kernel measures on, and the
//! run must say so. The printed tables and the result file carry the busy-machine
//! warning, the load check reads busy, and every fit is flagged: results never look
//! clean when the run was not. (Only presence is asserted: on a loaded machine the
//! warning may appear anyway, so its absence elsewhere is never tested.)

mod common;

use common::halfperf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[test]
fn a_spinner_on_the_measured_cpu_warns_and_flags_every_fit() {
    let cores = core_affinity::get_core_ids().expect("the allowed CPUs");
    assert!(
        cores.len() >= 2,
        "the noise test needs two CPUs: a pingpong measures between two"
    );
    let (c0, c1) = (cores[0], cores[1]);
    let stop = Arc::new(AtomicBool::new(false));
    let spinner = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            assert!(core_affinity::set_for_current(c0), "pin the spinner");
            let mut x = 0u64;
            // Relaxed: a stop signal that carries no data.
            while !stop.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let cpus = format!("{},{}", c0.id, c1.id);
    let out = halfperf(
        dir.path(),
        &[
            "run",
            "pingpong",
            "--quick",
            "--cpus",
            &cpus,
            "--sizes",
            "8,512,4K",
            "--trials",
            "2",
            "--out",
            "r.json",
            "--tables",
            "--warnings",
        ],
    );
    stop.store(true, Ordering::Relaxed);
    spinner.join().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("machine busy"),
        "no warning printed:\n{stdout}"
    );
    assert!(
        stdout.contains("FLAGGED"),
        "no fit flagged in the tables:\n{stdout}"
    );

    let doc = halfperf::results::read(&dir.path().join("r.json")).expect("the result file");
    assert!(!doc.kernels.is_empty());
    let mut fits = 0;
    for k in &doc.kernels {
        let load = k
            .load
            .as_ref()
            .expect("every result carries its load check");
        assert!(
            load.busy,
            "{}: a spinner on CPU {} not seen: {load:?}",
            k.kernel, c0.id
        );
        assert!(
            k.warnings.iter().any(|w| w.contains("machine busy")),
            "{}: {:?}",
            k.kernel,
            k.warnings
        );
        for f in &k.fits {
            fits += 1;
            assert!(f.flagged, "{}: fit {} not flagged", k.kernel, f.model);
        }
        if !k.fits.is_empty() {
            assert!(
                k.warnings
                    .iter()
                    .any(|w| w.contains("flagged: measured on a busy machine")),
                "{}: the reason is missing: {:?}",
                k.kernel,
                k.warnings
            );
        }
    }
    assert!(
        fits > 0,
        "pingpong fits the startup time and the time per byte"
    );
}
