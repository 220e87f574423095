//! A whole run: describes the machine and the build, runs the chosen kernels in
//! turn with the load check around each, and assembles the result document.
//!
//! With the environment variable `HALFPERF_PHASES` set, a run prints to
//! standard error, after each kernel, where its time went ([`Phases`]): the
//! load check's idle sample before it, its whole time, and within that the
//! pair and copy probes and the calibration batches no trial keeps; and at
//! the end the time the result document took to assemble.

#![forbid(unsafe_code)]

use crate::kernels::{
    KernelError, KernelSpec, LoadCheck, RunConfig, RunContext, run_kernel_checked,
};
use crate::platform::{ClockInfo, MachineRoot, Topology};
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
        state: Some(MachineRoot::live().state()),
        l3_domains: Some(topology.l3_domains()),
        cpu_places: Some(topology.places(&topology.cpus.iter().map(|c| c.id).collect::<Vec<_>>())),
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
    #[cfg(target_arch = "aarch64")]
    {
        macro_rules! detect {
            ($($f:tt),*) => { $( if std::arch::is_aarch64_feature_detected!($f) { v.push($f.to_string()); } )* };
        }
        detect!("neon", "sve", "sve2");
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
    let mut check = LoadCheck::default();
    let phases = std::env::var_os(PHASES_VAR).is_some();
    'reps: for rep in 1..=repeat.max(1) {
        for spec in kernels {
            if skipped.iter().any(|(k, _)| k == spec.name) {
                continue;
            }
            if ctx.cancelled() {
                failure = Some(KernelError::Interrupted);
                break 'reps;
            }
            let before = Phases::now(&check);
            let outcome = run_kernel_checked(spec, ctx, &mut check);
            if phases {
                eprintln!("{}", Phases::now(&check).since(&before).line(spec.name));
            }
            match outcome {
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
    let incomplete = failure.is_some();
    let assembling = std::time::Instant::now();
    let file = document(ctx, &started_utc, &config_json, results, incomplete);
    if phases {
        eprintln!(
            "phases: the result document and its card took {:.3} s",
            assembling.elapsed().as_secs_f64()
        );
    }
    SuiteOutcome {
        file,
        skipped,
        failure,
    }
}

/// The environment variable that makes a run print its [`Phases`].
pub const PHASES_VAR: &str = "HALFPERF_PHASES";

/// Where a kernel's time went, s: read from the harness's tallies before
/// and after it ([`Phases::since`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phases {
    /// The clock since the process started (the kernel's whole time,
    /// its idle sample included, once taken `since`).
    pub wall_s: f64,
    /// The load check's idle samples.
    pub idle_sample_s: f64,
    /// The pair and copy probes ([`crate::kernels::harness::probe::PROBE_NS`]).
    pub probes_s: f64,
    /// The calibration batches no trial kept
    /// ([`crate::kernels::harness::timing::CALIBRATION_NS`]).
    pub calibration_s: f64,
}

impl Phases {
    /// The tallies now, with `check`'s idle samples.
    pub fn now(check: &LoadCheck) -> Phases {
        use crate::kernels::harness::{probe::PROBE_NS, timing::CALIBRATION_NS};
        use std::sync::atomic::Ordering::Relaxed;
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let start = START.get_or_init(std::time::Instant::now);
        Phases {
            wall_s: start.elapsed().as_secs_f64(),
            idle_sample_s: check.sampled.as_secs_f64(),
            // Relaxed: tallies, read between kernels, after their threads joined.
            probes_s: PROBE_NS.load(Relaxed) as f64 * 1e-9,
            calibration_s: CALIBRATION_NS.load(Relaxed) as f64 * 1e-9,
        }
    }

    /// What passed between `before` and this.
    pub fn since(&self, before: &Phases) -> Phases {
        Phases {
            wall_s: self.wall_s - before.wall_s,
            idle_sample_s: self.idle_sample_s - before.idle_sample_s,
            probes_s: self.probes_s - before.probes_s,
            calibration_s: self.calibration_s - before.calibration_s,
        }
    }

    /// One line for `kernel`: its whole time, each phase, and the rest
    /// (the trials, the method's own schedule, team starts, fits).
    pub fn line(&self, kernel: &str) -> String {
        let rest = self.wall_s - self.idle_sample_s - self.probes_s - self.calibration_s;
        format!(
            "phases {kernel}: {:.3} s = idle sample {:.3} + probes {:.3} + calibration batches not kept {:.3} + trials and the rest {rest:.3}",
            self.wall_s, self.idle_sample_s, self.probes_s, self.calibration_s
        )
    }
}

/// The result document of a run started at `started_utc` with settings
/// `config_json` that produced `results` (`incomplete` when it did not finish),
/// with its machine card.
pub fn document(
    ctx: &RunContext<'_>,
    started_utc: &str,
    config_json: &serde_json::Value,
    results: Vec<KernelResult>,
    incomplete: bool,
) -> ResultFile {
    let mut results = results;
    crate::kernels::scibench::check_against_pingpong(&mut results);
    let mut file = ResultFile {
        schema_version: SCHEMA_VERSION,
        tool: TOOL_NAME.into(),
        started_utc: started_utc.into(),
        machine: machine_info(ctx.topology, ctx.allowed, ctx.clock),
        software: software_info(),
        config: config_json.clone(),
        kernels: results,
        incomplete,
        summary: None,
    };
    if let Some(state) = &mut file.machine.state {
        state.preheat_ms = ctx.config.preheat_ms;
    }
    file.summary = Some(crate::analysis::card(&file));
    file
}

/// The run's settings as the result file records them.
pub fn config_json(config: &RunConfig, kernels: &[&KernelSpec]) -> serde_json::Value {
    serde_json::json!({
        "kernels": kernels.iter().map(|k| k.name).collect::<Vec<_>>(),
        "run": config,
        "trials": config.trials(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel that ran from 1.0 s to 3.5 s, its idle sample 0.1 s, its
    /// probes 0.05 s and its calibrations 0.25 s: the rest is 2.1 s.
    #[test]
    fn a_kernels_phases_are_the_tallies_between_two_reads() {
        let before = Phases {
            wall_s: 1.0,
            idle_sample_s: 0.1,
            probes_s: 0.2,
            calibration_s: 0.3,
        };
        let after = Phases {
            wall_s: 3.5,
            idle_sample_s: 0.2,
            probes_s: 0.25,
            calibration_s: 0.55,
        };
        let d = after.since(&before);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(d.wall_s, 2.5) && close(d.idle_sample_s, 0.1), "{d:?}");
        assert!(
            close(d.probes_s, 0.05) && close(d.calibration_s, 0.25),
            "{d:?}"
        );
        assert_eq!(
            d.line("k"),
            "phases k: 2.500 s = idle sample 0.100 + probes 0.050 + calibration batches not kept 0.250 + trials and the rest 2.100"
        );
        // The live tallies only grow.
        let check = LoadCheck::default();
        let (a, b) = (Phases::now(&check), Phases::now(&check));
        let d = b.since(&a);
        assert!(d.wall_s >= 0.0 && d.idle_sample_s == 0.0 && d.probes_s >= 0.0);
    }
}
