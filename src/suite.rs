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
    mut on_result: impl FnMut(&KernelResult),
) -> SuiteOutcome {
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    let mut failure = None;
    for spec in kernels {
        if ctx.cancelled() {
            failure = Some(KernelError::Interrupted);
            break;
        }
        match run_kernel(spec, ctx) {
            Ok(rs) => {
                rs.iter().for_each(&mut on_result);
                results.extend(rs);
            }
            Err(KernelError::NotRunnable { kernel, reason }) => skipped.push((kernel, reason)),
            Err(e) => {
                failure = Some(e);
                break;
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
