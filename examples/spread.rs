//! The spread of every headline parameter over several result files of the same
//! command, with the probe of the machine's state beside each run, and how many
//! card parameters each file differs from the first in.
//!
//! `scripts/repeat-runs.sh` runs the command N times and calls this on the files;
//! by hand:
//!
//! ```text
//! cargo run --release --example spread -- run-1.json run-2.json run-3.json
//! cargo run --release --example spread -- repeat-3.json   # one `run --repeat K` file
//! ```
//!
//! Given one file written by `run --repeat K`, it prints that run's summary
//! over its repetitions again, and nothing else.
//!
//! The first part is `run --repeat K`'s summary, each file taken as one
//! repetition: per parameter the median, the range, the CV over the files, the
//! probe's CV and a verdict (stable: CV at most 10 %; machine moved: at most the
//! probe's CV plus 5 points; mode changed: a sync method's hand-overs slept in
//! some files and not in others; moved with the probe: `compare` marks no file
//! `*` against the file of the median value and one or more `~`; within its
//! intervals: `compare` marks nothing, every file's 95 % interval overlapping
//! the median one's; else unstable), then every file's value with its probe
//! and that mark. The second part compares each file's machine card with the first's as
//! `compare` does: a parameter differs (`*`) when the two 95 % intervals do not
//! overlap and the machine's probe does not explain it, and moved with the
//! machine (`~`) when the probes moved too and its ratio to the probe held.

use halfperf::analysis::Why;
use halfperf::results::{KernelResult, ResultFile};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    // `--compare-only`: no spread, only each file against the first.
    let compare_only = paths.first().is_some_and(|a| a == "--compare-only");
    if compare_only {
        paths.remove(0);
    }
    if paths.is_empty() || (compare_only && paths.len() < 2) {
        eprintln!(
            "usage: spread [--compare-only] FILE FILE...: two or more result files of the same command, or one written by `run --repeat K`"
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
    if let [one] = files.as_slice() {
        // One file: the summary over its own repetitions, as `run --repeat K`
        // printed it.
        let reps = one.kernels.iter().filter_map(|r| r.repetition).max();
        let Some(reps) = reps.filter(|&k| k >= 2) else {
            eprintln!(
                "spread: {} holds one repetition; give two or more files, or one written by `run --repeat K` with K of 2 or more",
                paths[0]
            );
            return ExitCode::from(2);
        };
        spread(&one.kernels, reps as usize);
        return ExitCode::SUCCESS;
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
        let (marked, [moved, mode], compared) = differing(&files[0], f);
        let differ = marked.len() - moved - mode;
        let pct = |n: usize| 100.0 * n as f64 / compared.max(1) as f64;
        println!(
            "{} against {}: {differ} of {compared} card parameters differ (*: 95 % intervals apart, neither the probe nor the hand-overs' sleeps explain it), {:.1} %; {moved} moved with the machine (~), {:.1} %; {mode} with the method's mode (~), {:.1} %",
            paths[i],
            paths[0],
            pct(differ),
            pct(moved),
            pct(mode),
        );
        for m in marked {
            println!("    {m}");
        }
    }
    ExitCode::SUCCESS
}

/// `run --repeat K`'s summary over `results`, one repetition a file.
fn spread(results: &[KernelResult], files: usize) {
    let rows = halfperf::analysis::repeat_spread(results);
    print!(
        "{}",
        halfperf::text::repeat::repeat_spread(&rows, files as u32)
    );
    println!();
}

/// The card parameters of `b` that `compare` marks against `a` (described, `*`
/// or `~`), how many of them moved with the machine and with the method's
/// mode (`~`), and how many had an interval in both.
fn differing(a: &ResultFile, b: &ResultFile) -> (Vec<String>, [usize; 2], usize) {
    let c = halfperf::analysis::compare_cards(&[a.clone(), b.clone()]);
    let mut marked = Vec::new();
    let (mut compared, mut moved, mut mode) = (0, 0, 0);
    for r in &c.rows {
        let Some(why) = r.why[1] else { continue };
        if why == Why::NoInterval {
            continue;
        }
        compared += 1;
        moved += usize::from(why == Why::MachineMoved);
        mode += usize::from(why == Why::ModeChanged);
        let (Some(x), Some(y)) = (&r.cells[0], &r.cells[1]) else {
            continue;
        };
        if why.mark().is_empty() {
            continue;
        }
        let of = r.of.as_deref().map_or(String::new(), |o| format!(" {o}"));
        let ci = |c: Option<[f64; 2]>| c.map_or("-".into(), |[l, h]| format!("[{l:.4}, {h:.4}]"));
        marked.push(format!(
            "{} {} {}{of}: {} {} then {} {} ({:+.1} %){}",
            why.mark(),
            r.kernel,
            r.name,
            x.value,
            ci(x.ci95),
            y.value,
            ci(y.ci95),
            (y.value / x.value - 1.0) * 100.0,
            r.notes[1]
                .as_deref()
                .map_or(String::new(), |n| format!("; {n}"))
        ));
    }
    (marked, [moved, mode], compared)
}
