//! The card says which instruction set the vector kernels ran, from their
//! dispatch: a run forced to the 128-bit baseline (`HALFPERF_SIMD=baseline`)
//! on a CPU that offers more records and prints the baseline, not the
//! widest level the CPU offers nor the compile-time features.

mod common;

use halfperf::analysis::card_of;
use halfperf::kernels::hockney::SIMD_ENV;
use halfperf::results::read;
use std::process::Command;

#[test]
fn the_card_names_the_level_the_dispatch_ran() {
    let _turn = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let run = |level: &str, out: &str| {
        Command::new(env!("CARGO_BIN_EXE_halfperf"))
            .args(["run", "hockney-vector", "--quick", "--out", out])
            .env(SIMD_ENV, level)
            .current_dir(dir.path())
            .output()
            .expect("halfperf runs")
    };
    let out = run("baseline", "base.json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let card = card_of(&read(&dir.path().join("base.json")).unwrap());
    let run_isa = &card.identity.isa_run;
    // Eight results (four operations, two precisions), each at every level.
    assert_eq!(
        run_isa.iter().filter(|e| e.contains("-f64 ")).count(),
        4,
        "{run_isa:?}"
    );
    for e in run_isa {
        let want = match e.starts_with("scalar-f") {
            true => ": scalar",
            false if cfg!(target_arch = "x86_64") => ": sse2",
            false => ": baseline 128-bit",
        };
        assert!(e.ends_with(want), "{e} in {run_isa:?}");
        assert!(e.contains("L1"), "{e}");
    }
    // The printed card says so, whatever the CPU offers.
    let text = halfperf::text::card::card(&card);
    let line = text
        .lines()
        .find(|l| l.contains("vector code run"))
        .unwrap();
    if cfg!(target_arch = "x86_64") {
        assert!(line.contains("run: sse2 (every vector kernel"), "{line}");
    }
    // A level this CPU cannot run, or no level at all, is refused.
    let out = run("avx9000", "bad.json");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() || err.contains("HALFPERF_SIMD=avx9000"),
        "{err}"
    );
}
