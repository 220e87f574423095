//! The Criterion benches' parameters: what `cargo bench` fits from the times it
//! measured itself, and the result file it writes beside Criterion's report.
//!
//! Each bench times its batches in `iter_custom` through a [`Recorder`], which
//! keeps every batch's time per repetition (the clock's read cost subtracted, as
//! `halfperf run` does) under the bench's id. Criterion calls the routine first
//! for its warm-up and then once per sample, so the last `sample_size` batches
//! of an id are its samples ([`Recorder::samples`]). When a group ends, the
//! bench hands them to [`fits`], which builds the same [`KernelResult`]s as the
//! kernels of `halfperf run` with the library's own fits (Hockney's line and
//! levels, `hockney-sync`'s result, the latency line, the barrier's medians), the
//! same names, and 95 % intervals; [`finish_group`] prints their card rows as
//! `halfperf card` does and merges them into one halfperf result file,
//! `target/criterion/halfperf.json` ([`output_path`]), whose `config.source`
//! is [`SOURCE`]. So `halfperf card`, `compare` and `report` read a bench run
//! as they read a `halfperf run`, and two machines' bench runs compare.
//!
//! Invariants: the timed closure does nothing but the kernel's batch (the
//! sample is pushed after the clock stops, into a vector reserved before);
//! bench ids are `method/kernel/variant/param` and do not depend on the
//! machine (the vector lengths past the paper's are `hockney-vector`'s own
//! inside each memory level, named by level and rank, `L2-3`), so that
//! Criterion's `--save-baseline` on two machines lines up. A bench run under [`quick`]
//! (`HALFPERF_BENCH_QUICK=1`, or `CI=true`) measures a subset of the same ids
//! with Criterion's smallest sample.
//!
//! Departures from `halfperf run`: a Criterion sample is one batch of a
//! length Criterion chose, and a point's samples are taken one after the
//! other, not in rounds interleaved with the other points; the bootstrap
//! resamples the sample index, which pairs samples taken at different times
//! (they are independent, so the interval stands, but a drift of the machine
//! between points lands in the fit rather than in every point alike). The
//! synchronisation bench's samples are rounds of `hockney-sync` over one
//! grain, with the kernel's probes, fitted by the kernel's own result
//! ([`crate::kernels::hockney::sync_bench`]); the transport bench takes its
//! two-flag round trips, measured in pairs with the mailbox's, as the probe;
//! the vector bench has no rate probe, so `compare` cannot tell a slower
//! processor from a slower kernel there. The barrier bench's rows per P are
//! printed beside the card ([`per_p_table`]), which shows only the largest
//! team of real processors.
//!
//! Every group takes its Criterion settings from [`budget`], whose table and
//! bench counts give a whole pass's expected time.

#![forbid(unsafe_code)]

pub mod budget;
pub mod fits;

use crate::analysis;
use crate::kernels::hockney::sync_bench::SyncSample;
use crate::platform::{ClockInfo, LoadReport, LoadWindow, Topology, allowed_cpus, measure_clock};
use crate::results::{self, KernelResult, ResultFile, SCHEMA_VERSION, TOOL_NAME};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The value of `config.source` in a bench run's result file.
pub const SOURCE: &str = "cargo bench";

/// The environment variable that asks for the quick mode (any value but `0`
/// or empty); `CI=true` asks for it too.
pub const QUICK_ENV: &str = "HALFPERF_BENCH_QUICK";

/// The environment variable naming the result file instead of [`output_path`]'s default.
pub const OUT_ENV: &str = "HALFPERF_BENCH_OUT";

/// The result file's name inside Criterion's directory.
pub const FILE_NAME: &str = "halfperf.json";

/// Criterion's samples per bench in the quick mode (its smallest).
pub const QUICK_SAMPLES: usize = 10;

/// Why a bench's result file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The machine's topology could not be read.
    #[error("cannot describe the machine: {0}")]
    Topology(#[from] crate::platform::TopologyError),
    /// Reading or writing the result file failed.
    #[error(transparent)]
    File(#[from] results::ResultFileError),
}

/// Whether the quick mode is asked for: [`QUICK_ENV`] set to anything but `0`
/// or empty, or `CI=true`.
pub fn quick() -> bool {
    quick_from(
        std::env::var(QUICK_ENV).ok().as_deref(),
        std::env::var("CI").ok().as_deref(),
    )
}

/// [`quick`] from the two variables' values.
pub fn quick_from(quick_env: Option<&str>, ci: Option<&str>) -> bool {
    let on = |v: Option<&str>| v.is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    on(quick_env) || ci.is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// Where the result file goes: [`OUT_ENV`], else `criterion/halfperf.json`
/// under `CARGO_TARGET_DIR` (or `target`, which is where Criterion writes its
/// report when the benches run from the package's directory, as `cargo bench`
/// runs them).
pub fn output_path() -> PathBuf {
    if let Some(p) = std::env::var_os(OUT_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join("criterion").join(FILE_NAME)
}

/// One bench binary's timings, keyed by bench id, and the machine's state
/// around them.
pub struct Recorder {
    samples: BTreeMap<String, Vec<(u64, f64)>>,
    sync: BTreeMap<String, Vec<SyncSample>>,
    clock: ClockInfo,
    window: Option<LoadWindow>,
    started: Instant,
}

/// Batches kept per id before the vector grows: Criterion's warm-up and a
/// default sample of 100.
const RESERVE: usize = 160;

impl Recorder {
    /// A recorder, with the clock's cost measured and the load window opened.
    pub fn new() -> Recorder {
        Recorder {
            samples: BTreeMap::new(),
            sync: BTreeMap::new(),
            clock: measure_clock(),
            window: Some(LoadWindow::begin(Duration::from_millis(200))),
            started: Instant::now(),
        }
    }

    /// The clock measured at the start (its read cost is subtracted from every batch).
    pub fn clock(&self) -> &ClockInfo {
        &self.clock
    }

    /// Runs `batch(iters)` (a Criterion `iter_custom` body, which times itself)
    /// and records its time under `id`; returns the time for Criterion.
    pub fn time(&mut self, id: &str, iters: u64, batch: impl FnOnce(u64) -> Duration) -> Duration {
        let took = batch(iters);
        self.record(id, iters, took);
        took
    }

    /// Records one batch of `iters` repetitions that took `took`.
    pub fn record(&mut self, id: &str, iters: u64, took: Duration) {
        let per_rep = crate::kernels::harness::timing::per_rep_ns(took, iters.max(1), &self.clock);
        push(&mut self.samples, id, (iters, per_rep));
    }

    /// Runs `sample()`, one synchronisation sample (a round of the kernel,
    /// which times itself and its probes,
    /// [`crate::kernels::hockney::sync_bench::sync_sample`]) with the
    /// segments its batch had, and records it under `id`, its segment time
    /// as the batch's time per repetition; returns what Criterion is told
    /// for `iters` iterations (the segment time times `iters`).
    pub fn time_sync(
        &mut self,
        id: &str,
        iters: u64,
        sample: impl FnOnce() -> (SyncSample, u64),
    ) -> Duration {
        let (s, segments) = sample();
        push(&mut self.samples, id, (segments, s.time_ns));
        push(&mut self.sync, id, s);
        crate::kernels::hockney::sync_bench::criterion_time(&s, iters)
    }

    /// The last `keep` synchronisation samples of `id` (as [`Recorder::samples`]).
    pub fn sync_samples(&self, id: &str, keep: usize) -> Vec<SyncSample> {
        self.sync
            .get(id)
            .map_or(&[][..], |v| &v[v.len().saturating_sub(keep)..])
            .to_vec()
    }

    /// The time per repetition (ns) of `id`'s last `keep` batches: Criterion's
    /// samples after its warm-up when `keep` is the group's sample size; all of
    /// them when fewer were taken (`--test`, a filter).
    pub fn samples(&self, id: &str, keep: usize) -> Vec<f64> {
        self.last(id, keep).iter().map(|s| s.1).collect()
    }

    /// The most repetitions one of `id`'s last `keep` batches had.
    pub fn reps(&self, id: &str, keep: usize) -> u64 {
        self.last(id, keep).iter().map(|s| s.0).max().unwrap_or(0)
    }

    fn last(&self, id: &str, keep: usize) -> &[(u64, f64)] {
        self.samples
            .get(id)
            .map_or(&[], |v| &v[v.len().saturating_sub(keep)..])
    }

    /// The load around everything recorded so far (the window closes and a
    /// new one opens for the next group).
    fn load(&mut self) -> Option<LoadReport> {
        let report = self.window.take().map(LoadWindow::finish);
        self.window = Some(LoadWindow::begin(Duration::from_millis(100)));
        report
    }
}

/// Appends `x` to `id`'s vector, reserved for [`RESERVE`] at its first.
fn push<T>(map: &mut BTreeMap<String, Vec<T>>, id: &str, x: T) {
    match map.get_mut(id) {
        Some(v) => v.push(x),
        None => {
            let mut v = Vec::with_capacity(RESERVE);
            v.push(x);
            map.insert(id.to_owned(), v);
        }
    }
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

/// Ends a bench group whose benches took `samples` samples each: attaches the load and the group's time to `kernels`,
/// prints their card (as `halfperf card` prints one), and merges them into
/// the result file at [`output_path`]. A kernel without points (its benches
/// filtered out) is left out, and nothing is written when none is left; a file that cannot be written is
/// said on stderr, and the bench goes on.
pub fn finish_group(
    rec: &mut Recorder,
    bench: &str,
    samples: usize,
    mut kernels: Vec<KernelResult>,
) {
    kernels.retain(|k| !k.points.is_empty());
    if kernels.is_empty() {
        return;
    }
    let load = rec.load();
    let elapsed = rec.started.elapsed().as_secs_f64();
    rec.started = Instant::now();
    for k in &mut kernels {
        if let Some(w) = load.as_ref().and_then(LoadReport::warning) {
            k.warnings.push(w);
        }
        k.load = load.clone();
        k.elapsed_s = elapsed;
    }
    let path = output_path();
    match document(bench, samples, kernels.clone()) {
        Ok(own) => {
            let card = analysis::card(&own);
            println!(
                "\nhalfperf parameters from `cargo bench --bench {bench}` (95 % intervals):\n{}",
                crate::text::card::card(&card)
            );
        }
        Err(e) => eprintln!("halfperf: no card for {bench}: {e}"),
    }
    if let Some(table) = per_p_table(&kernels) {
        println!("{table}");
    }
    match merge_into(&path, bench, samples, kernels) {
        Ok(_) => println!("halfperf result file: {}", path.display()),
        Err(e) => eprintln!("halfperf: cannot write {}: {e}", path.display()),
    }
}

/// The barrier time at every P of the kernels that have one (`barrier_ns`
/// of `P = p` in their headline), as the card prints a value (busy where
/// the load check saw other processes), each P that ran more ranks than
/// CPUs marked virtual; `None` where no kernel has one.
/// The card itself shows only the largest team of real processors.
pub fn per_p_table(kernels: &[KernelResult]) -> Option<String> {
    use std::fmt::Write as _;
    let mut out = String::new();
    for k in kernels {
        let key = format!("{}/{}", k.kernel, k.transport.as_deref().unwrap_or("-"));
        for h in k.headline.iter().filter(|h| h.name == "barrier_ns") {
            let p = h.of.as_deref().and_then(|of| of.strip_prefix("P = "));
            let point = k.points.iter().find(|pt| {
                pt.number("processors")
                    .is_some_and(|n| Some(n.to_string().as_str()) == p)
            });
            let virt = point.is_some_and(|pt| pt.number("virtual") == Some(1.0));
            let trust = match k.load.as_ref().is_some_and(|l| l.busy) {
                true => crate::results::Trust::Busy,
                false => crate::results::Trust::Ok,
            };
            let mut value = crate::text::card::value_text(h.value, h.ci95, "ns", trust, None);
            if virt {
                let _ = write!(
                    value,
                    " (virtual: {} ranks on {} CPUs)",
                    p.unwrap_or("?"),
                    k.cpus.len()
                );
            }
            let of = h.of.as_deref().unwrap_or("");
            let _ = writeln!(out, "  {key:<40} {of:<8} {value}");
        }
        if let Some(line) = barrier_line_text(k) {
            let _ = writeln!(out, "  {key:<40} {line}");
        }
    }
    (!out.is_empty()).then(|| format!("barrier time per P (median [95 % interval]):\n{out}"))
}

/// What a barrier kernel's line `a + b log2 P` came to: its two
/// coefficients with their intervals and which P were virtual, or why there
/// is none (fewer than three P); `None` for a kernel without barrier times.
fn barrier_line_text(k: &KernelResult) -> Option<String> {
    let count = k.headline.iter().filter(|h| h.name == "barrier_ns").count();
    if count == 0 {
        return None;
    }
    let Some(fit) = k
        .fits
        .iter()
        .find(|f| f.model.starts_with(fits::BARRIER_LINE))
    else {
        return Some(format!(
            "no line a + b log2 P: {count} processor counts, a line needs 3 or more"
        ));
    };
    let coefficient = |name: &str, unit: &str| {
        let p = crate::kernels::headline::from_fits(std::slice::from_ref(fit))
            .into_iter()
            .find(|p| p.name == name)?;
        Some(crate::text::card::value_text(
            p.value,
            p.ci95,
            unit,
            crate::results::Trust::Ok,
            None,
        ))
    };
    let flag = if fit.flagged { ", flagged" } else { "" };
    Some(format!(
        "line {}: a {}, b {} per doubling{flag}",
        fit.model,
        coefficient("a_ns", "ns")?,
        coefficient("b_ns_per_doubling", "ns")?,
    ))
}

/// A result document of `kernels` from the bench `bench` (`samples` a
/// bench) on this machine, with its card.
pub fn document(
    bench: &str,
    samples: usize,
    kernels: Vec<KernelResult>,
) -> Result<ResultFile, BenchError> {
    let topology = Topology::detect()?;
    let allowed = allowed_cpus();
    let clock = measure_clock();
    let mut file = ResultFile {
        schema_version: SCHEMA_VERSION,
        tool: TOOL_NAME.into(),
        started_utc: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        machine: crate::suite::machine_info(&topology, &allowed, &clock),
        software: crate::suite::software_info(),
        config: config(&[(bench.to_owned(), samples)], quick()),
        kernels,
        incomplete: false,
        summary: None,
    };
    file.summary = Some(analysis::card(&file));
    Ok(file)
}

/// The `config` of a bench run's file: its [`SOURCE`], the benches it holds
/// with their samples a bench, whether they ran in the quick mode (`run.quick`,
/// where the card reads it) and the fewest samples (`trials`, likewise).
fn config(benches: &[(String, usize)], quick: bool) -> serde_json::Value {
    let samples: serde_json::Map<String, serde_json::Value> = benches
        .iter()
        .map(|(b, n)| (b.clone(), serde_json::json!(n)))
        .collect();
    serde_json::json!({
        "source": SOURCE,
        "benches": samples,
        "run": { "quick": quick },
        "trials": benches.iter().map(|b| b.1).min(),
    })
}

/// Merges `kernels` (from the bench `bench`) into the file at `path`: a
/// kernel of the same name and transport already there is replaced, the
/// others are kept, and the card is made again. A file from another machine
/// or not from `cargo bench` is replaced whole. Written atomically.
pub fn merge_into(
    path: &Path,
    bench: &str,
    samples: usize,
    kernels: Vec<KernelResult>,
) -> Result<ResultFile, BenchError> {
    let mut file = document(bench, samples, kernels)?;
    if let Ok(old) = results::read(path) {
        file = merged(old, file);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| results::ResultFileError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    }
    results::write_atomic(&file, path, true)?;
    Ok(file)
}

/// `new` with the kernels of `old` that it does not replace, when `old` is a
/// bench run on the same machine; else `new`.
pub fn merged(old: ResultFile, mut new: ResultFile) -> ResultFile {
    let from_bench = old.config.get("source").and_then(|s| s.as_str()) == Some(SOURCE);
    if !from_bench || old.machine.hostname != new.machine.hostname {
        return new;
    }
    let key = |k: &KernelResult| (k.kernel.clone(), k.transport.clone());
    let replaced: Vec<_> = new.kernels.iter().map(key).collect();
    let mut kernels: Vec<KernelResult> = old
        .kernels
        .into_iter()
        .filter(|k| !replaced.contains(&key(k)))
        .collect();
    kernels.append(&mut new.kernels);
    let mut benches = benches_of(&old.config);
    for (b, n) in benches_of(&new.config) {
        benches.retain(|x| x.0 != b);
        benches.push((b, n));
    }
    let quick = new.config["run"]["quick"].as_bool().unwrap_or(false);
    new.config = config(&benches, quick);
    new.started_utc = old.started_utc;
    new.kernels = kernels;
    new.summary = Some(analysis::card(&new));
    new
}

/// The benches a file's `config` names, with their samples.
fn benches_of(config: &serde_json::Value) -> Vec<(String, usize)> {
    config["benches"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(b, n)| (b.clone(), n.as_u64().unwrap_or(0) as usize))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_mode_from_either_variable() {
        assert!(!quick_from(None, None));
        assert!(quick_from(Some("1"), None));
        assert!(!quick_from(Some("0"), None) && !quick_from(Some(""), Some("false")));
        assert!(quick_from(None, Some("true")) && quick_from(Some("0"), Some("TRUE")));
    }

    /// Criterion's warm-up calls come first: the last `keep` batches are
    /// the samples, each per repetition with the clock's cost taken off.
    #[test]
    fn the_last_batches_are_the_samples() {
        let mut rec = Recorder::new();
        rec.clock.read_overhead_ns = 100.0;
        for (iters, ns) in [(1u64, 5_000u64), (2, 6_000), (10, 10_100), (20, 40_100)] {
            rec.time("a/8", iters, |_| Duration::from_nanos(ns));
        }
        assert_eq!(rec.samples("a/8", 2), [1000.0, 2000.0]);
        assert_eq!(rec.reps("a/8", 2), 20);
        assert_eq!(rec.samples("a/8", 10).len(), 4);
        assert!(rec.samples("b/8", 2).is_empty() && rec.reps("b/8", 2) == 0);
    }

    /// Every P of a barrier prints with its interval, the P beyond the two
    /// CPUs marked virtual, then why there is no line; kernels without
    /// barrier times print nothing.
    #[test]
    fn the_per_p_table_marks_virtual_processors() {
        let per_p: Vec<fits::Samples> = [(2usize, 400.0), (4, 20_000.0)]
            .iter()
            .map(|&(p, t)| (p, 10, (0..9).map(|i| t + i as f64).collect()))
            .collect();
        let k = fits::barrier_result(
            "comet-barrier-central",
            None,
            &[0, 1],
            crate::control::Placement::Virtual,
            &per_p,
        );
        let table = per_p_table(std::slice::from_ref(&k)).expect("a table");
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[3].contains("no line a + b log2 P"), "{table}");
        assert!(
            lines[1].contains("P = 2") && lines[1].contains("404"),
            "{table}"
        );
        assert!(!lines[1].contains("virtual"), "{table}");
        assert!(
            lines[2].contains("P = 4") && lines[2].contains("(virtual: 4 ranks on 2 CPUs)"),
            "{table}"
        );
        let other = KernelResult::new("pingpong", "m", crate::control::Placement::Pinned, vec![0]);
        assert!(per_p_table(&[other]).is_none());
    }

    fn file(host: &str, bench: &str, kernels: &[(&str, &str)]) -> ResultFile {
        let mut f = document(
            bench,
            10,
            kernels
                .iter()
                .map(|(k, t)| {
                    KernelResult::new(*k, "m", crate::control::Placement::Pinned, vec![0])
                        .with_transport(Some(*t))
                })
                .collect(),
        )
        .expect("a document");
        f.machine.hostname = host.into();
        f
    }

    /// A bench's kernels replace those of the same name and transport, the
    /// others stay, and the benches add up; another machine's file does not
    /// mix in.
    #[test]
    fn merging_replaces_a_benchs_own_kernels() {
        let old = file(
            "h",
            "transport",
            &[("pingpong", "mailbox"), ("pingpong", "channel")],
        );
        let mut new = file(
            "h",
            "comet",
            &[("comet-barrier-central", "-"), ("pingpong", "channel")],
        );
        new.kernels[1].elapsed_s = 7.0;
        let m = merged(old.clone(), new.clone());
        let names: Vec<_> = m
            .kernels
            .iter()
            .map(|k| {
                (
                    k.kernel.as_str(),
                    k.transport.as_deref().unwrap(),
                    k.elapsed_s,
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("pingpong", "mailbox", 0.0),
                ("comet-barrier-central", "-", 0.0),
                ("pingpong", "channel", 7.0)
            ]
        );
        assert_eq!(m.config["source"], SOURCE);
        assert_eq!(
            benches_of(&m.config),
            [("comet".to_owned(), 10), ("transport".to_owned(), 10)]
        );
        let other = merged(
            file("elsewhere", "transport", &[("pingpong", "mailbox")]),
            new.clone(),
        );
        assert_eq!(other.kernels.len(), 2);
    }
}
