//! The result document's types. Changing a field's meaning or removing one bumps
//! [`SCHEMA_VERSION`]; adding one does not.

use super::machine_card::MachineCard;
use crate::control::Placement;
use crate::model::stats::Summary;
use crate::platform::{Cache, ClockInfo, DistanceClass, LoadReport, MachineState, Topology};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of the document this build writes and the newest it reads.
///
/// Version 2 added the `summary` (the machine card); version 1 files are read as
/// they are, their card computed when asked for.
pub const SCHEMA_VERSION: u64 = 2;

/// The value of the document's `tool` field.
pub const TOOL_NAME: &str = "halfperf";

/// One run's result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResultFile {
    /// [`SCHEMA_VERSION`] at the time of writing.
    pub schema_version: u64,
    /// Always `"halfperf"`.
    pub tool: String,
    /// When the run started, RFC 3339 UTC.
    pub started_utc: String,
    /// The machine measured.
    pub machine: MachineInfo,
    /// The build that measured it.
    pub software: SoftwareInfo,
    /// The run's settings as given and as resolved.
    pub config: serde_json::Value,
    /// One entry per kernel and transport run.
    pub kernels: Vec<KernelResult>,
    /// True when the run was interrupted and `kernels` holds only those completed.
    #[serde(default)]
    pub incomplete: bool,
    /// The machine card: identity, headline parameters with intervals and trust
    /// marks, decisions. Absent in version 1 files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<MachineCard>,
}

/// The machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MachineInfo {
    /// Host name.
    pub hostname: String,
    /// CPU model name.
    pub cpu_model: Option<String>,
    /// Online logical CPUs.
    pub logical_cpus: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Whether any core has more than one hardware thread.
    pub smt: bool,
    /// Packages (sockets).
    pub packages: usize,
    /// NUMA nodes.
    pub numa_nodes: usize,
    /// The CPUs this process was allowed to use.
    pub allowed_cpus: Vec<usize>,
    /// Every cache.
    pub caches: Vec<Cache>,
    /// Operating system and kernel release.
    pub os: String,
    /// The clock and its measured overhead.
    pub clock: ClockInfo,
    /// The machine's settings (governor, turbo, THP, a hypervisor, ...) and
    /// the preheat before timing; absent in files of earlier builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<MachineState>,
    /// L3 domains (an EPYC's CCDs; one per package on most Xeons; 0 without
    /// an L3); absent in files of earlier builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l3_domains: Option<usize>,
    /// Where each CPU of the machine sits (package, NUMA node, L3 domain,
    /// core, core type), in topology order: the heat map's axes and labels;
    /// absent in files of earlier builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_places: Option<Vec<crate::platform::CpuPlace>>,
}

/// The build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SoftwareInfo {
    /// halfperf's version.
    pub halfperf_version: String,
    /// The git commit it was built from, where known.
    pub git_commit: String,
    /// The compiler.
    pub rustc: String,
    /// Target features compiled in (`-C target-feature`/`target-cpu`).
    pub target_features_compiled: Vec<String>,
    /// Vector features the CPU reports at run time.
    pub target_features_detected: Vec<String>,
}

/// One kernel's measurements, for one transport where it has one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelResult {
    /// Kernel name (`pingpong`, `oneway`, `c2c`, ...).
    pub kernel: String,
    /// The method (paper) it ports.
    pub method: String,
    /// The transport, for message-passing kernels.
    pub transport: Option<String>,
    /// The CPUs used, rank order for pinned teams.
    pub cpus: Vec<usize>,
    /// The distance class of a CPU pair, for two-CPU kernels.
    pub distance_class: Option<DistanceClass>,
    /// How ranks were placed.
    pub placement: Placement,
    /// Number of ranks.
    pub ranks: usize,
    /// The swept points.
    pub points: Vec<Point>,
    /// The fitted models.
    pub fits: Vec<FitResult>,
    /// Everything the reader should distrust, in words.
    pub warnings: Vec<String>,
    /// Other processes' CPU use around the kernel.
    pub load: Option<LoadReport>,
    /// Wall time the kernel took, in seconds.
    pub elapsed_s: f64,
    /// The parameters a user would quote from this kernel, each with its 95 %
    /// interval; the machine card is built from them. Empty in files written
    /// before they were recorded. A kernel that probes the machine's state adds
    /// `probe_round_trip_ns` (the CPU pair's two-flag round trip: the probes'
    /// median, their range as the interval) and `NAME_over_probe` beside a
    /// latency `NAME_ns` (the latency over the probe's one-way time). `compare`
    /// uses them: where two files' values of a latency-like parameter have
    /// disjoint intervals and so have their probes, the ratios to the probe are
    /// compared, and a ratio that held is marked `~` (the machine moved), not `*`.
    /// `hockney-sync` and `hockney-vector` add `rate_probe_flop_per_s` (`P`
    /// times a processor's serial rate, sampled once a round or once a length:
    /// the median, a bootstrap over the samples as the interval), against which
    /// `compare` judges `r_inf` the same way; `pingpong` and `oneway` add
    /// `copy_probe_ns_per_byte` (a plain cross-core copy of 32 KiB each way,
    /// ns per byte one way, once a round: the median, the rounds' range as the
    /// interval), against which it judges `t_per_byte_ns`. `hockney-sync` also
    /// adds `syscall_probe_ns` per method (one `FUTEX_WAKE` that wakes nobody on
    /// the master's CPU, once a round: the median, a bootstrap over the rounds
    /// as the interval), against which `compare` judges a `t0_ns` that the
    /// round trip does not explain. A `hockney-sync`
    /// method whose short grains slept in some rounds and not in others
    /// takes `t0_ns` and `s_half_flop` from the rounds that did not sleep and
    /// adds `t_wake_ns` (what a sleep adds to a segment: a bootstrap over the
    /// sleeping rounds as the interval).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headline: Vec<Param>,
    /// Which repetition of `run --repeat K` this is, from 1; absent for a run
    /// without repetitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u32>,
}

impl KernelResult {
    /// A result of `kernel` (porting `method`) on `cpus`, placed by `placement`,
    /// one rank a CPU, with no transport, distance class, points, fits or
    /// warnings; the runner fills in the load, the elapsed time, the headline
    /// and the repetition. The `with_*` setters fill in the rest.
    pub fn new(
        kernel: impl Into<String>,
        method: impl Into<String>,
        placement: Placement,
        cpus: Vec<usize>,
    ) -> KernelResult {
        KernelResult {
            kernel: kernel.into(),
            method: method.into(),
            transport: None,
            ranks: cpus.len(),
            cpus,
            distance_class: None,
            placement,
            points: Vec::new(),
            fits: Vec::new(),
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
            headline: Vec::new(),
            repetition: None,
        }
    }

    /// With the transport (or the measured thing a kernel names in its place).
    pub fn with_transport(mut self, transport: Option<impl Into<String>>) -> KernelResult {
        self.transport = transport.map(Into::into);
        self
    }

    /// With the distance class of the two CPUs, for a kernel on exactly two.
    pub fn with_pair_distance(mut self, topology: &Topology) -> KernelResult {
        self.distance_class = match self.cpus[..] {
            [a, b] => topology.distance(a, b),
            _ => None,
        };
        self
    }

    /// With a distance class.
    pub fn with_distance_class(mut self, class: Option<DistanceClass>) -> KernelResult {
        self.distance_class = class;
        self
    }

    /// With `ranks` ranks, where they are not one a CPU.
    pub fn with_ranks(mut self, ranks: usize) -> KernelResult {
        self.ranks = ranks;
        self
    }

    /// With the swept points.
    pub fn with_points(mut self, points: Vec<Point>) -> KernelResult {
        self.points = points;
        self
    }

    /// With the fitted models.
    pub fn with_fits(mut self, fits: Vec<FitResult>) -> KernelResult {
        self.fits = fits;
        self
    }

    /// With the warnings.
    pub fn with_warnings(mut self, warnings: Vec<String>) -> KernelResult {
        self.warnings = warnings;
        self
    }

    /// Sets the headline parameters.
    pub fn with_headline(mut self, headline: Vec<Param>) -> KernelResult {
        self.headline = headline;
        self
    }
}

/// A headline parameter: a figure a user would quote and compare across machines,
/// with its 95 % confidence interval from the run's own data.
///
/// Naming: `name` is the fit's parameter name where the figure comes from a fit
/// (a key of [`FitResult::params`], unit in the name: `t_startup_ns`,
/// `s_half_flop`), otherwise the point field's name (`one_way_ns`,
/// `mailbox_over_baseline`). `of` is the qualifier when a kernel reports the same
/// name several times: the sync method (`spin-hint`), the memory level (`L1`),
/// the distance class's display name, a message size (`8 B`). A reader finds a
/// parameter by `(kernel, transport, name, of)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Param {
    /// The parameter, unit in the name as everywhere (`t_startup_ns`,
    /// `n_half_bytes`, `s_half_flop`, `one_way_ns`).
    pub name: String,
    /// What it is a parameter of, when the kernel reports it several times: a
    /// sync method (`spin-hint`), a memory level (`L1`), a distance class, a
    /// message size (`8 B`). Absent when the kernel and transport say it all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// The estimate.
    pub value: f64,
    /// The 95 % confidence interval, low and high; absent when the data give none
    /// (a single trial, a failed fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<[f64; 2]>,
    /// How the interval was computed (`bootstrap over rounds`, `fit standard
    /// error`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
}

impl Param {
    /// A parameter with no interval yet.
    pub fn new(name: &str, of: Option<&str>, value: f64) -> Param {
        Param {
            name: name.into(),
            of: of.map(Into::into),
            value,
            ci95: None,
            interval: None,
        }
    }

    /// Sets the 95 % interval and how it was computed; `None` leaves it absent.
    pub fn with_ci(mut self, ci95: Option<[f64; 2]>, how: &str) -> Param {
        self.interval = ci95.map(|_| how.into());
        self.ci95 = ci95;
        self
    }
}

/// One point of a sweep: its swept variables and measured quantities by name, units
/// in the names (`size_bytes`, `one_way_ns`, ...).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Point(pub BTreeMap<String, PointValue>);

impl Point {
    /// An empty point.
    pub fn new() -> Point {
        Point::default()
    }

    /// Adds a number.
    pub fn with(mut self, name: &str, value: f64) -> Point {
        self.0.insert(name.into(), PointValue::Number(value));
        self
    }

    /// Adds a measured distribution.
    pub fn with_stats(mut self, name: &str, stats: Summary) -> Point {
        self.0.insert(name.into(), PointValue::Stats(stats));
        self
    }

    /// A number by name.
    pub fn number(&self, name: &str) -> Option<f64> {
        match self.0.get(name)? {
            PointValue::Number(v) => Some(*v),
            PointValue::Stats(_) => None,
        }
    }

    /// Whether a plain number of this name is a measured quantity (a time, a rate, a
    /// ratio: its unit says so) or a figure derived from measured ones (a model's
    /// error, an equation's result, a test statistic), rather than a swept variable
    /// or a count. Such a number never names a point: two runs that measured the
    /// same point must match in `compare` whatever they measured.
    pub fn is_measured(name: &str) -> bool {
        // `_bits`: a property of the build or CPU (simd_width_bits) that differs
        // between machines and must not name a point either.
        const UNITS: [&str; 8] = [
            "_ns", "_us", "_ms", "_s", "_per_s", "_percent", "_pct", "_bits",
        ];
        // Results of a paper's numbered equation (`optimal_processors_eq15`).
        let equation = name
            .rsplit_once("_eq")
            .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        // A statistical test's figures (`t`, `p_value`, `critical_t`,
        // `reject_equal_means`) and a model's crossover (`crossover_average_nodes`).
        let test = name == "t"
            || ["p_value", "critical_", "reject_", "crossover_"]
                .iter()
                .any(|w| name.starts_with(w));
        // Events the run counted per unit of work (`blocks_per_segment`: the
        // hand-overs that slept).
        let tally = name.starts_with("blocks_");
        equation
            || test
            || tally
            || UNITS.iter().any(|u| name.ends_with(u))
            || [
                "_over_",
                "ratio",
                "speedup",
                "slowdown",
                "efficiency",
                "gain",
            ]
            .iter()
            .any(|w| name.contains(w))
    }

    /// Whether a plain number of this name is a count, chosen by the calibration
    /// (`reps`, `reps_sync`; a contending load's message size, `load_size_bytes`,
    /// from the load fraction asked for) or by the kernel from a swept variable
    /// (`slots_per_lane`, from the message size; `rounds`, `batches_per_round`) or tallied by the run (the
    /// repetitions that gave a value, the messages that passed, the echoes left
    /// out), neither swept nor measured.
    pub fn is_count(name: &str) -> bool {
        matches!(
            name,
            "reps"
                | "count"
                | "trials"
                | "batch"
                | "repetitions"
                | "messages"
                | "late_echoes"
                | "slots_per_lane"
                | "rounds"
                | "batches_per_round"
                | "load_size_bytes"
        ) || name.ends_with("_reps")
            || name.starts_with("reps_")
    }

    /// The swept variables (plain numbers that are neither measured nor counts), by
    /// name.
    pub fn swept(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().filter_map(|(n, v)| match v {
            PointValue::Number(x) if !Point::is_measured(n) && !Point::is_count(n) => {
                Some((n.as_str(), *x))
            }
            _ => None,
        })
    }

    /// A distribution by name.
    pub fn stats(&self, name: &str) -> Option<&Summary> {
        match self.0.get(name)? {
            PointValue::Stats(s) => Some(s),
            PointValue::Number(_) => None,
        }
    }
}

impl PointValue {
    /// Whether every number in it is finite: JSON has no NaN or infinity, so a
    /// non-finite value would be written as `null` and the file would not read back.
    pub fn is_finite(&self) -> bool {
        match self {
            PointValue::Number(v) => v.is_finite(),
            PointValue::Stats(s) => [s.min, s.median, s.mean, s.max, s.std_dev, s.p90, s.p99]
                .iter()
                .all(|v| v.is_finite()),
        }
    }
}

impl KernelResult {
    /// Removes every non-finite point value and fit parameter (see
    /// [`PointValue::is_finite`]) and names each in a warning, so that a kernel's
    /// 0 / 0 never costs the whole result file its readability.
    pub fn drop_non_finite(&mut self) {
        let mut dropped = Vec::new();
        for (i, p) in self.points.iter_mut().enumerate() {
            p.0.retain(|name, v| {
                let keep = v.is_finite();
                if !keep {
                    dropped.push(format!("point {i} {name}"));
                }
                keep
            });
        }
        for f in &mut self.fits {
            let bad: Vec<String> = (f.params.iter().chain(&f.std_errors))
                .filter(|(_, v)| !v.is_finite())
                .map(|(k, _)| k.clone())
                .collect();
            for k in bad {
                f.params.remove(&k);
                f.std_errors.remove(&k);
                f.flagged = true;
                dropped.push(format!("fit {} parameter {k}", f.y));
            }
            if !f.r2.is_finite() {
                f.r2 = 0.0;
                f.flagged = true;
                dropped.push(format!("fit {} R^2", f.y));
            }
        }
        if !dropped.is_empty() {
            dropped.dedup();
            self.warnings.push(format!(
                "not finite, left out of the file: {}",
                dropped.join(", ")
            ));
        }
    }
}

/// A point's value: a plain number (a swept variable, a count) or the distribution
/// of a measured quantity over trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PointValue {
    /// A number.
    Number(f64),
    /// min / median / max / mean / std_dev / p90 / p99 over trials.
    Stats(Summary),
}

/// A fitted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FitResult {
    /// The model, as a formula (`t_startup + N t_per_byte`).
    pub model: String,
    /// The swept variable and the fitted quantity (`size_bytes`, `one_way_ns.min`).
    pub x: String,
    /// The fitted quantity.
    pub y: String,
    /// Parameters by name with units.
    pub params: BTreeMap<String, f64>,
    /// Standard errors of the parameters, same names.
    pub std_errors: BTreeMap<String, f64>,
    /// Coefficient of determination (the weighted one where the fit weighs its
    /// points, as `pingpong`'s and `oneway`'s do by `1 / t²`).
    pub r2: f64,
    /// Points fitted.
    pub n_points: usize,
    /// True when R^2 is below the threshold the kernel trusts.
    pub flagged: bool,
}
