//! The machine card as a result file stores it (its `summary`): identity,
//! headline rows with their trust marks, decisions. The analysis of results
//! computes it ([`crate::analysis::card`]); the types are the document's.

use serde::{Deserialize, Serialize};

/// A result file's summary: identity, headline parameters, decisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MachineCard {
    /// What was measured, with what, when.
    pub identity: Identity,
    /// The headline parameters, grouped by method in the suite's order.
    pub rows: Vec<CardRow>,
    /// Conclusions computed from the rows, each with its interval.
    pub decisions: Vec<Decision>,
}

/// The machine and the run, in the words a card prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Identity {
    /// CPU model name.
    pub cpu_model: String,
    /// Host name.
    pub hostname: String,
    /// Logical CPUs, physical cores, SMT, packages, NUMA nodes in one phrase.
    pub cores: String,
    /// The caches, one phrase per level (`L1d 48 KiB`).
    pub caches: Vec<String>,
    /// Vector features the build was compiled for (the baseline every
    /// kernel can fall back to, not what the vector kernels ran).
    pub isa_used: Vec<String>,
    /// What each vector kernel ran, per kernel and memory level, from the
    /// level its dispatch reported at run time (`simd_width_bits` in every
    /// point): `triad-f64 L1 L2 L3: avx512f` ([`isa_run`]).
    // The text is also the schema's description, which names `isa_run`, in
    // the analysis above the document, as it is.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub isa_run: Vec<String>,
    /// Vector features the CPU offers.
    pub isa_offered: Vec<String>,
    /// True for a `run --quick` (fewer trials, shorter batches).
    pub quick: bool,
    /// Trials per point, where the file says.
    pub trials: Option<u64>,
    /// When the run started (RFC 3339 UTC).
    pub date: String,
    /// halfperf's version and git commit.
    pub halfperf: String,
    /// Kernel results in the file.
    pub kernels: usize,
    /// Kernel results with at least one warning.
    pub kernels_warned: usize,
    /// True when the run was interrupted.
    pub incomplete: bool,
    /// The machine's settings as `name: value` lines (empty for files
    /// without them).
    #[serde(default)]
    pub state: Vec<String>,
    /// The settings that make a comparison with another run fragile.
    #[serde(default)]
    pub fragile: Vec<String>,
}

/// How far to trust a row.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// Nothing known against it.
    Ok,
    /// The interval is wider than a fifth of the value.
    Noisy,
    /// The fit it comes from is below the kernel's goodness threshold.
    FlaggedFit,
    /// Measured on virtual or hosted processors (ranks sharing a CPU).
    Virtual,
    /// Other processes used CPUs while the kernel ran.
    Busy,
    /// No trustworthy value: its fit is flagged, its interval spans zero (or,
    /// for a positive quantity, reaches it), or it has no interval. The row's
    /// `interval` says which ([`resolve`]); the card prints the reason, not
    /// the number.
    // The text is also the schema's description, which names `resolve`, in
    // the analysis above the document, as it is.
    #[allow(rustdoc::broken_intra_doc_links)]
    Unresolved,
}

impl Trust {
    /// The mark as printed.
    pub fn mark(self) -> &'static str {
        match self {
            Trust::Ok => "ok",
            Trust::Noisy => "noisy",
            Trust::FlaggedFit => "flagged fit",
            Trust::Virtual => "virtual",
            Trust::Busy => "busy",
            Trust::Unresolved => "not resolved",
        }
    }
}

/// One headline parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CardRow {
    /// The method (paper) it belongs to.
    pub method: String,
    /// What the row says, in words (`8 B one-way latency`); rows of one method with
    /// the same `line` and `of` print on one line.
    pub line: String,
    /// The kernel it comes from, `kernel/transport` as in `compare`.
    pub kernel: String,
    /// The parameter's name, unit in the name (`t_startup_ns`).
    pub name: String,
    /// What it is a parameter of when the kernel reports it several times (`L1`,
    /// `spin-hint`, `shared L3`, `8 B`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// The estimate (with repetitions: the median over them).
    pub value: f64,
    /// The unit (`ns`, `flop/s`, `B`, `x` for a ratio, empty for a pure number).
    pub unit: String,
    /// The 95 % interval, low and high.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<[f64; 2]>,
    /// How the interval was computed, or why there is none.
    pub interval: String,
    /// True when the quantity can be negative or zero (a difference, an intercept):
    /// `compare` gives a difference for it, never a ratio.
    pub signed: bool,
    /// The trust mark.
    pub trust: Trust,
    /// With `run --repeat K`: the number of repetitions and the smallest and largest
    /// value over them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<Repetitions>,
}

impl CardRow {
    /// The row's identity across files: kernel, name, and what it is of.
    pub fn key(&self) -> (String, String, String) {
        (
            self.kernel.clone(),
            self.name.clone(),
            self.of.clone().unwrap_or_default(),
        )
    }
}

/// A parameter's spread over the repetitions of a kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Repetitions {
    /// How many repetitions gave a value.
    pub count: u32,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
}

/// A conclusion drawn from the parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Decision {
    /// The conclusion in words, with its figure and interval.
    pub text: String,
    /// The figure the decision turns on, where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Its unit.
    pub unit: String,
    /// Its 95 % interval, from the intervals of the parameters it uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<[f64; 2]>,
    /// The kernels whose rows it uses (`kernel/transport`).
    pub kernels: Vec<String>,
}
