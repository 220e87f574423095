//! The spread of every headline parameter over several result files of the same
//! command, with the probe of the machine's state beside each run, and how many
//! headline parameters each file differs from the first in.
//!
//! `scripts/repeat-runs.sh` runs the command N times and calls this on the files;
//! by hand:
//!
//! ```text
//! cargo run --release --example spread -- run-1.json run-2.json run-3.json
//! ```
//!
//! The first part is `run --repeat K`'s summary, each file taken as one
//! repetition: per parameter the median, the range, the CV over the files, the
//! probe's CV and a verdict (stable: CV at most 10 %; machine moved: at most the
//! probe's CV plus 5 points; else unstable), then every file's value with its
//! probe. The second part compares each file with the first as `compare` does:
//! a parameter differs when the two 95 % intervals do not overlap.

use halfperf::results::{KernelResult, Param, ResultFile};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    // `--compare-only`: no spread, only each file against the first.
    let compare_only = paths.first().is_some_and(|a| a == "--compare-only");
    if compare_only {
        paths.remove(0);
    }
    if paths.len() < 2 {
        eprintln!(
            "usage: spread [--compare-only] FILE FILE...: two or more result files of the same command"
        );
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    for p in &paths {
        match halfperf::results::read(Path::new(p)) {
            Ok(f) => files.push(f),
            Err(e) => {
                eprintln!("spread: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut results = Vec::new();
    for (i, f) in files.iter().enumerate() {
        for r in &f.kernels {
            // A file written by `--repeat K` keeps only its first repetition.
            if r.repetition.is_some_and(|rep| rep != 1) {
                continue;
            }
            let mut r = r.clone();
            r.repetition = Some(i as u32 + 1);
            results.push(r);
        }
    }
    if !compare_only {
        spread(&results, files.len());
    }
    for (i, f) in files.iter().enumerate().skip(1) {
        let (marked, compared) = differing(&files[0], f);
        println!(
            "{} against {}: {} of {compared} headline parameters differ (95 % intervals apart){}",
            paths[i],
            paths[0],
            marked.len(),
            if compared > 0 {
                format!(", {:.1} %", 100.0 * marked.len() as f64 / compared as f64)
            } else {
                String::new()
            }
        );
        for m in marked {
            println!("    {m}");
        }
    }
    ExitCode::SUCCESS
}

/// `run --repeat K`'s summary over `results`, one repetition a file.
fn spread(results: &[KernelResult], files: usize) {
    let rows = halfperf::suite::repeat_spread(results);
    print!(
        "{}",
        halfperf::text::repeat::repeat_spread(&rows, files as u32)
    );
    let unstable = rows
        .iter()
        .filter(|r| r.verdict == halfperf::suite::Verdict::Unstable)
        .count();
    println!(
        "{unstable} of {} headline parameters unstable (CV above 10 % and above the probe's CV + 5 points)",
        rows.len()
    );
    println!();
}

/// The headline parameters of `b` whose interval does not overlap the same
/// parameter's in `a` (described), and how many had an interval in both.
fn differing(a: &ResultFile, b: &ResultFile) -> (Vec<String>, usize) {
    let first = |f: &ResultFile| -> Vec<(String, Param)> {
        f.kernels
            .iter()
            .filter(|r| r.repetition.is_none_or(|rep| rep == 1))
            .flat_map(|r| r.headline.iter().map(move |p| (key(r, p), p.clone())))
            .collect()
    };
    let (pa, pb) = (first(a), first(b));
    let mut marked = Vec::new();
    let mut compared = 0;
    for (k, p) in &pb {
        let Some((_, q)) = pa.iter().find(|(ka, _)| ka == k) else {
            continue;
        };
        let (Some([lo_b, hi_b]), Some([lo_a, hi_a])) = (p.ci95, q.ci95) else {
            continue;
        };
        compared += 1;
        if hi_b < lo_a || hi_a < lo_b {
            marked.push(format!(
                "{k}: {} [{lo_a:.4}, {hi_a:.4}] then {} [{lo_b:.4}, {hi_b:.4}] ({:+.1} %)",
                q.value,
                p.value,
                (p.value / q.value - 1.0) * 100.0
            ));
        }
    }
    (marked, compared)
}

/// `kernel transport name [of]`.
fn key(r: &KernelResult, p: &Param) -> String {
    let mut k = r.kernel.clone();
    for part in [
        r.transport.as_deref(),
        Some(p.name.as_str()),
        p.of.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        k.push(' ');
        k.push_str(part);
    }
    k
}
