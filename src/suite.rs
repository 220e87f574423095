//! A whole run: describes the machine and the build, runs the chosen kernels in
//! turn with the load check around each, and assembles the result document.

#![forbid(unsafe_code)]

use crate::kernels::{KernelError, KernelSpec, RunConfig, RunContext, run_kernel};
use crate::platform::{ClockInfo, Topology};
use crate::results::{
    KernelResult, MachineInfo, ResultFile, SCHEMA_VERSION, SoftwareInfo, TOOL_NAME,
};

/// The machine as a result file records it.
pub fn machine_info(topology: &Topology, allowed: &[usize], clock: &ClockInfo) -> MachineInfo {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .ok()
    };
    MachineInfo {
        hostname: read("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into()),
        cpu_model: topology.cpu_model.clone(),
        logical_cpus: topology.logical_cpus(),
        physical_cores: topology.physical_cores(),
        smt: topology.smt(),
        packages: topology.packages(),
        numa_nodes: topology.numa_nodes(),
        allowed_cpus: allowed.to_vec(),
        caches: topology.caches.clone(),
        os: format!(
            "{} {}",
            read("/proc/sys/kernel/ostype").unwrap_or_else(|| std::env::consts::OS.into()),
            read("/proc/sys/kernel/osrelease").unwrap_or_default()
        ),
        clock: clock.clone(),
    }
}

/// The build as a result file records it.
pub fn software_info() -> SoftwareInfo {
    SoftwareInfo {
        halfperf_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: env!("HALFPERF_GIT_COMMIT").into(),
        rustc: env!("HALFPERF_RUSTC").into(),
        target_features_compiled: compiled_features(),
        target_features_detected: detected_features(),
    }
}

fn compiled_features() -> Vec<String> {
    let mut v = Vec::new();
    macro_rules! check {
        ($($f:literal),*) => { $( if cfg!(target_feature = $f) { v.push($f.to_string()); } )* };
    }
    check!(
        "sse2", "sse4.2", "avx", "avx2", "fma", "avx512f", "avx512vl", "neon"
    );
    v
}

fn detected_features() -> Vec<String> {
    #[allow(unused_mut)]
    let mut v: Vec<String> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! detect {
            ($($f:tt),*) => { $( if std::arch::is_x86_feature_detected!($f) { v.push($f.to_string()); } )* };
        }
        detect!(
            "sse2", "sse4.2", "avx", "avx2", "fma", "avx512f", "avx512vl"
        );
    }
    v
}

/// What a run produced: the document, and the kernels that did not run.
#[derive(Debug)]
pub struct SuiteOutcome {
    /// The result document (possibly `incomplete`).
    pub file: ResultFile,
    /// Kernels skipped because they cannot run here, with the reason.
    pub skipped: Vec<(String, String)>,
    /// The failure that stopped the run, if one did.
    pub failure: Option<KernelError>,
}

/// Runs `kernels` in order. A kernel that cannot run here is skipped and named; a
/// kernel that fails stops the run, and the document keeps what completed, marked
/// `incomplete`; so does an interruption.
pub fn run_suite(
    kernels: &[&KernelSpec],
    ctx: &RunContext<'_>,
    started_utc: String,
    config_json: serde_json::Value,
    on_result: impl FnMut(&KernelResult),
) -> SuiteOutcome {
    run_suite_repeated(kernels, 1, ctx, started_utc, config_json, on_result)
}

/// [`run_suite`] `repeat` times, interleaved (kernel A, B, A, B, ...), so that a
/// change of the machine's state lands on every kernel alike. With `repeat > 1`
/// every result carries its repetition number, from 1; a kernel that cannot run
/// here is skipped (and named) once.
pub fn run_suite_repeated(
    kernels: &[&KernelSpec],
    repeat: u32,
    ctx: &RunContext<'_>,
    started_utc: String,
    config_json: serde_json::Value,
    mut on_result: impl FnMut(&KernelResult),
) -> SuiteOutcome {
    let mut results = Vec::new();
    let mut skipped: Vec<(String, String)> = Vec::new();
    let mut failure = None;
    'reps: for rep in 1..=repeat.max(1) {
        for spec in kernels {
            if skipped.iter().any(|(k, _)| k == spec.name) {
                continue;
            }
            if ctx.cancelled() {
                failure = Some(KernelError::Interrupted);
                break 'reps;
            }
            match run_kernel(spec, ctx) {
                Ok(mut rs) => {
                    if repeat > 1 {
                        rs.iter_mut().for_each(|r| r.repetition = Some(rep));
                    }
                    rs.iter().for_each(&mut on_result);
                    results.extend(rs);
                }
                Err(KernelError::NotRunnable { kernel, reason }) => skipped.push((kernel, reason)),
                Err(e) => {
                    failure = Some(e);
                    break 'reps;
                }
            }
        }
    }
    let mut file = ResultFile {
        schema_version: SCHEMA_VERSION,
        tool: TOOL_NAME.into(),
        started_utc,
        machine: machine_info(ctx.topology, ctx.allowed, ctx.clock),
        software: software_info(),
        config: config_json,
        kernels: results,
        incomplete: failure.is_some(),
        summary: None,
    };
    file.summary = Some(crate::results::card(&file));
    SuiteOutcome {
        file,
        skipped,
        failure,
    }
}

/// The run's settings as the result file records them.
pub fn config_json(config: &RunConfig, kernels: &[&KernelSpec]) -> serde_json::Value {
    serde_json::json!({
        "kernels": kernels.iter().map(|k| k.name).collect::<Vec<_>>(),
        "run": config,
        "trials": config.trials(),
    })
}

/// One headline parameter over the repetitions of `run --repeat K`.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatSpread {
    /// Kernel, transport (or method) and parameter, as in [`crate::results::Param`].
    pub kernel: String,
    /// The transport or method.
    pub transport: Option<String>,
    /// The parameter's name.
    pub name: String,
    /// Its qualifier.
    pub of: Option<String>,
    /// The values, in repetition order.
    pub values: Vec<f64>,
    /// Their median.
    pub median: f64,
    /// Smallest and largest.
    pub range: [f64; 2],
    /// Coefficient of variation: sample standard deviation over the mean (0 for
    /// one value; NaN when the mean is 0).
    pub cv: f64,
}

/// Every headline parameter's spread over the repetitions in `results` (those
/// with `repetition` set), in the order the parameters first appear.
pub fn repeat_spread(results: &[KernelResult]) -> Vec<RepeatSpread> {
    let mut out: Vec<RepeatSpread> = Vec::new();
    for r in results.iter().filter(|r| r.repetition.is_some()) {
        for p in &r.headline {
            let same = |s: &RepeatSpread| {
                s.kernel == r.kernel
                    && s.transport == r.transport
                    && s.name == p.name
                    && s.of == p.of
            };
            match out.iter_mut().find(|s| same(s)) {
                Some(s) => s.values.push(p.value),
                None => out.push(RepeatSpread {
                    kernel: r.kernel.clone(),
                    transport: r.transport.clone(),
                    name: p.name.clone(),
                    of: p.of.clone(),
                    values: vec![p.value],
                    median: 0.0,
                    range: [0.0; 2],
                    cv: 0.0,
                }),
            }
        }
    }
    for s in &mut out {
        let summary = crate::model::stats::summarize(&s.values);
        if let Ok(m) = summary {
            s.median = m.median;
            s.range = [m.min, m.max];
            s.cv = if m.count < 2 {
                0.0
            } else {
                m.std_dev / m.mean.abs()
            };
        } else {
            s.median = f64::NAN;
            s.range = [f64::NAN; 2];
            s.cv = f64::NAN;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::results::Param;

    fn result(rep: u32, value: f64) -> KernelResult {
        let mut r = KernelResult::new("pingpong", "scibench", Placement::Pinned, vec![0, 1])
            .with_transport(Some("mailbox"))
            .with_headline(vec![Param::new("t_startup_ns", None, value)]);
        r.repetition = Some(rep);
        r
    }

    /// Values 90, 100, 110: median 100, range 90..110, standard deviation 10,
    /// CV 10 / 100 = 0.1.
    #[test]
    fn spread_over_three_repetitions() {
        let rs = [result(1, 90.0), result(2, 110.0), result(3, 100.0)];
        let s = repeat_spread(&rs);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].values, vec![90.0, 110.0, 100.0]);
        assert_eq!((s[0].median, s[0].range), (100.0, [90.0, 110.0]));
        assert!((s[0].cv - 0.1).abs() < 1e-12);
    }
}
