//! The command line's own value parsers: `--repeat`, `--floor`, `--cpus`, `--sizes`, the
//! kernels named and the result file's path, each with the one-line errors the
//! CLI promises (the lists themselves are read by the parsers `platform` shares
//! with `/sys`).

use anyhow::{Context, Result, bail};
use halfperf::kernels::{self, KernelSpec};
use halfperf::platform::{SizeError, parse_cpu_list, parse_size};
use std::path::{Path, PathBuf};

/// The largest message size a sweep accepts (64 MiB).
const MAX_SIZE_BYTES: usize = 64 << 20;

/// The most repetitions `--repeat` takes: a hundred quick suites are most of an hour.
const MAX_REPEAT: u32 = 100;

/// `--repeat K`: a whole number from 1 to [`MAX_REPEAT`].
pub(crate) fn parse_repeat(text: &str) -> Result<u32, String> {
    match text.trim().parse::<i64>() {
        Ok(k) if (1..=i64::from(MAX_REPEAT)).contains(&k) => Ok(k as u32),
        Ok(k) => Err(format!(
            "{k} repetitions: give a whole number from 1 to {MAX_REPEAT}"
        )),
        Err(_) => Err(format!(
            "not a number of repetitions: give a whole number from 1 to {MAX_REPEAT}"
        )),
    }
}

/// `compare --floor PCT`: a per cent from 0 to 100.
pub(crate) fn floor_pct(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "'{text}': give the run-to-run floor as a per cent from 0 to 100"
        )),
    }
}

/// Parses a CPU list (`0,2-3`), in the order given, each CPU once.
pub(crate) fn parse_cpus(text: &str) -> Result<Vec<usize>> {
    parse_cpu_list(text).context("--cpus")
}

/// Parses a size list (`8,64,4K,1M`) and checks every size is 1 B..64 MiB.
pub(crate) fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(str::trim)
        .map(|part| {
            let n = match parse_size(part) {
                Ok(n) => usize::try_from(n).ok().filter(|&n| n <= MAX_SIZE_BYTES),
                Err(SizeError::TooLarge { .. }) => None,
                Err(e) => return Err(anyhow::Error::new(e).context("--sizes")),
            };
            let Some(n) = n else {
                bail!("--sizes: {part} is larger than the 64M a sweep accepts");
            };
            if n == 0 {
                bail!("--sizes: a message of 0 bytes measures nothing; the smallest size is 1");
            }
            Ok(n)
        })
        .collect()
}

/// The kernels named: `all` (or none) for every kernel, a method name (`scibench`)
/// for all of that method's kernels, else kernels by name.
pub(crate) fn resolve_kernels(names: &[String]) -> Result<Vec<&'static KernelSpec>> {
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(kernels::default_suite());
    }
    let mut chosen: Vec<&'static KernelSpec> = Vec::new();
    for n in names {
        let found: Vec<&'static KernelSpec> = match kernels::find(n) {
            Some(k) => vec![k],
            None => kernels::registry()
                .into_iter()
                .filter(|k| k.method == n)
                .collect(),
        };
        if found.is_empty() {
            // `--json FILE` reads as the flag and a kernel named FILE: say where a
            // file name goes.
            if n.ends_with(".json") || n.contains('/') {
                bail!(
                    "unknown kernel {n:?}: it looks like a file; a result file is written with `--out FILE` (`--json` takes no value: it prints the result on stdout)"
                );
            }
            let known: Vec<_> = kernels::registry().iter().map(|k| k.name).collect();
            bail!(
                "unknown kernel {n:?}; known kernels: {} (or a method name such as scibench)",
                known.join(", ")
            );
        }
        for k in found {
            if !chosen.iter().any(|c| c.name == k.name) {
                chosen.push(k);
            }
        }
    }
    Ok(chosen)
}

/// Where a command writes its result file: `--out FILE` and `--force`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct OutArgs {
    /// Write the result file here (default: halfperf-HOST-TIME.json; not with --json).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Replace an existing --out file.
    #[arg(long)]
    pub(crate) force: bool,
}

impl OutArgs {
    /// The file to write: `--out`, none for `--json` alone, else the default
    /// name of a run started at `started` (RFC 3339).
    pub(crate) fn path(&self, json: bool, started: &str) -> Option<PathBuf> {
        match (&self.out, json) {
            (Some(p), _) => Some(p.clone()),
            (None, true) => None,
            (None, false) => Some(default_out_path(started)),
        }
    }
}

pub(crate) fn default_out_path(started: &str) -> PathBuf {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "host".into());
    let stamp: String = started
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from(format!("halfperf-{host}-{stamp}.json"))
}

pub(crate) fn check_out_path(path: &Path, force: bool) -> Result<()> {
    if path.exists() && !force {
        bail!(
            "{} already exists; choose another --out or pass --force to replace it",
            path.display()
        );
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        bail!("--out: directory {} does not exist", dir.display());
    }
    Ok(())
}
