//! Side-by-side comparison of result files point by point (`compare --points`): one
//! row per fit parameter and measured quantity, one column per file, with the ratio
//! of each column to the first for a positive quantity, the difference for a signed
//! one, and a mark where a value differs from the first by more than the two
//! values' uncertainties together (their intervals do not overlap).
//!
//! A value's interval here is the value plus or minus its uncertainty. Where two
//! intervals do not overlap, the machine's state is looked at as in the card
//! comparison ([`super::state`]): when both files carry the kernel's probe, the
//! probes' intervals do not overlap, and the quantity is latency-like (a time in
//! ns, a half-performance length), the quantity over the probe's one-way time is
//! compared instead, and a ratio that held is marked `~` (the machine moved, and
//! the quantity with it), not `*`.

use super::is_signed;
use super::state::{Mode, Probed, Why, judge, moves_with_mode, moves_with_probe};
use crate::results::{Point, ResultFile, recorded_probe};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One compared quantity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRow {
    /// `kernel/transport` (or `kernel`).
    pub kernel: String,
    /// The parameter (`t_startup_ns`) or point quantity with the statistic quoted
    /// (`one_way_ns.min @ size_bytes=8`; `a_ns.mean @ q_float=0,size_bytes=16` for
    /// Krumme & Greenfield's kernels, see `reports_mean`).
    pub quantity: String,
    /// The value in each file, `None` where the file lacks it.
    pub values: Vec<Option<f64>>,
    /// Each value divided by the first file's value, for a positive quantity.
    pub ratios: Vec<Option<f64>>,
    /// Each value less the first file's value, for a signed quantity (one that can
    /// be negative or zero: an intercept, a difference of times).
    pub differences: Vec<Option<f64>>,
    /// Each value's uncertainty, in its unit: a fit parameter's standard error, a
    /// measured minimum's spread over trials (max − min), a measured mean's
    /// standard deviation; `None` where unknown.
    pub uncertainties: Vec<Option<f64>>,
    /// Per column: `Some(true)` when the value differs from the first column's by
    /// more than the sum of both uncertainties and the machine's probe does not
    /// explain it (`*`), `Some(false)` when it does not differ or moved with the
    /// probe (`~`), `None` when a value or an uncertainty is missing (always
    /// `None` for the first column).
    pub differs: Vec<Option<bool>>,
    /// Per column, why it is marked or not (`None` for the first column).
    pub why: Vec<Option<Why>>,
    /// Per column, the probes and ratios behind `why` where the probes were
    /// looked at.
    pub notes: Vec<Option<String>>,
}

/// A comparison of several files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// A label per file (host and start time).
    pub columns: Vec<String>,
    /// The rows, grouped by kernel.
    pub rows: Vec<ComparisonRow>,
    /// The run-to-run floor every interval was widened to, a fraction of the
    /// value ([`super::state::DEFAULT_FLOOR`] unless `compare --floor`).
    #[serde(default)]
    pub floor: f64,
}

/// `kernel/transport`, or `kernel` for kernels without a transport.
pub fn kernel_key(k: &crate::results::KernelResult) -> String {
    match &k.transport {
        Some(t) => format!("{}/{}", k.kernel, t),
        None => k.kernel.clone(),
    }
}

/// A value, its uncertainty, and whether the quantity is signed.
type Valued = (f64, Option<f64>, bool);

/// A file's quantities by (kernel key, quantity name), the keys in the order the
/// file has them, and each kernel's state: its probe (round trip and its
/// interval) and its hand-overs' sleeps ([`Mode`]).
type Quantities = (
    BTreeMap<(String, String), Valued>,
    Vec<(String, String)>,
    KernelStates,
);

/// Per kernel key, the probe and the method's [`Mode`].
#[derive(Default)]
struct KernelStates {
    probes: BTreeMap<String, (f64, [f64; 2])>,
    modes: BTreeMap<String, Mode>,
}

/// The quantities of one file.
fn quantities(file: &ResultFile) -> Quantities {
    let mut out = Recorder::default();
    let mut states = KernelStates::default();
    for k in &file.kernels {
        let key = kernel_key(k);
        // As the quantities, a repeated kernel's last repetition.
        if let Some((p, Some(ci))) = recorded_probe(k, None).map(|p| (p.value, p.ci95)) {
            states.probes.insert(key.clone(), (p, ci));
        }
        if let Some(m) = Mode::of(&k.fits) {
            states.modes.insert(key.clone(), m);
        }
        // A parameter that more than one of the kernel's fits has (`t_startup_ns`
        // at P = 2, 4 and 8) is named with its fit's model, so that none hides
        // another.
        let mut fits_with = BTreeMap::<&str, usize>::new();
        for name in k.fits.iter().flat_map(|f| f.params.keys()) {
            *fits_with.entry(name.as_str()).or_default() += 1;
        }
        for fit in &k.fits {
            for (name, v) in &fit.params {
                let se = fit.std_errors.get(name).copied().filter(|s| s.is_finite());
                let quantity = if fits_with[name.as_str()] > 1 {
                    format!("{name} ({})", fit.model)
                } else {
                    name.clone()
                };
                out.insert((key.clone(), quantity), (*v, se, is_signed(name)));
            }
            let r2 = (fit.r2, None, true);
            out.insert((key.clone(), format!("r2 ({})", fit.model)), r2);
        }
        let by_mean = reports_mean(&k.method);
        for p in &k.points {
            let at = point_label(p);
            for (name, _) in p.0.iter() {
                if let Some(s) = p.stats(name) {
                    let (stat, value, uncertainty) = if by_mean {
                        ("mean", s.mean, s.std_dev)
                    } else {
                        ("min", s.min, s.max - s.min)
                    };
                    // Krumme & Greenfield's times are differences of times.
                    let signed = by_mean || is_signed(name);
                    out.insert(
                        (key.clone(), format!("{name}.{stat} @ {at}")),
                        (value, Some(uncertainty), signed),
                    );
                } else if let Some(v) = p.number(name)
                    && Point::is_measured(name)
                {
                    let signed = is_signed(name);
                    out.insert((key.clone(), format!("{name} @ {at}")), (v, None, signed));
                }
            }
        }
    }
    (out.map, out.order, states)
}

/// A quantity's value, its interval (value ± uncertainty), and its kernel's
/// probe.
fn probed(key: &(String, String), v: Valued, states: &KernelStates) -> Probed {
    let (value, u, _) = v;
    let ci = u.map(|u| [value - u, value + u]);
    let name = key.1.split([' ', '.']).next().unwrap_or(&key.1);
    let probe = states.probes.get(&key.0).copied();
    Probed {
        value,
        ci95: ci,
        moves_with_probe: probe.is_some() && moves_with_probe(name),
        probe,
        probe_kind: super::ProbeKind::RoundTrip,
        mode: moves_with_mode(name)
            .then(|| states.modes.get(&key.0).copied())
            .flatten(),
        both_ways: super::moves_both_ways(name),
        also: None,
    }
}

/// Whether a method quotes a measured quantity as the mean of its repetitions, with
/// their standard deviation as its uncertainty: Krumme & Greenfield's six times and
/// slowdowns (Tables 1 and 2, section 5.2), whose repetitions are whole experiments
/// and whose times are differences that can fall on either side of the truth. The
/// other methods quote the minimum over trials (what their fits use), with the
/// spread `max − min`.
pub fn reports_mean(method: &str) -> bool {
    method == "krumme-greenfield"
}

/// A map that remembers the order of first insertion.
#[derive(Default)]
struct Recorder {
    map: BTreeMap<(String, String), Valued>,
    order: Vec<(String, String)>,
}

impl Recorder {
    fn insert(&mut self, k: (String, String), v: Valued) {
        if self.map.insert(k.clone(), v).is_none() {
            self.order.push(k);
        }
    }
}

/// The point's swept variables, `name=value` joined by commas: the same in every
/// file that measured the same point, whatever was measured there.
fn point_label(p: &Point) -> String {
    p.swept()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Compares files: every quantity that any file has, in the files' order, with
/// the default run-to-run floor.
pub fn compare(files: &[ResultFile]) -> Comparison {
    compare_with_floor(files, super::state::DEFAULT_FLOOR)
}

/// Compares files, every interval widened to at least `value (1 ± floor)`
/// ([`super::state::judge`]).
pub fn compare_with_floor(files: &[ResultFile], floor: f64) -> Comparison {
    let per_file: Vec<_> = files.iter().map(quantities).collect();
    // Rows in the order the files measured them (a sweep stays in sweep order, not
    // in string order), grouped by kernel and then by quantity.
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (_, order, _) in &per_file {
        for k in order {
            if seen.insert(k.clone()) {
                keys.push(k.clone());
            }
        }
    }
    let kernel_rank: BTreeMap<String, usize> = keys.iter().fold(BTreeMap::new(), |mut m, k| {
        let n = m.len();
        m.entry(k.0.clone()).or_insert(n);
        m
    });
    keys.sort_by_key(|(kernel, quantity)| {
        let name = quantity.split(" @ ").next().unwrap_or(quantity).to_string();
        (kernel_rank[kernel], name)
    });
    let rows = keys
        .into_iter()
        .map(|key| {
            let cells: Vec<Option<Valued>> = per_file
                .iter()
                .map(|(q, ..)| q.get(&key).copied())
                .collect();
            let base = cells.first().copied().flatten();
            let signed = cells.iter().flatten().any(|c| c.2 || c.0 <= 0.0);
            let ratios = cells
                .iter()
                .map(|c| match (base, c) {
                    (Some((b, ..)), Some((v, ..))) if !signed => Some(v / b),
                    _ => None,
                })
                .collect();
            let differences = cells
                .iter()
                .enumerate()
                .map(|(i, c)| match (base, c) {
                    (Some((b, ..)), Some((v, ..))) if signed && i > 0 => Some(v - b),
                    _ => None,
                })
                .collect();
            let judged: Vec<Option<(Why, Option<String>)>> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let (b, c) = base.zip(*c).filter(|_| i > 0)?;
                    let b = probed(&key, b, &per_file[0].2);
                    Some(judge(&b, &probed(&key, c, &per_file[i].2), floor))
                })
                .collect();
            let differs = judged
                .iter()
                .map(|j| match j {
                    Some((Why::NoInterval, _)) | None => None,
                    Some((w, _)) => Some(*w == Why::IntervalsDisjoint),
                })
                .collect();
            ComparisonRow {
                kernel: key.0,
                quantity: key.1,
                values: cells.iter().map(|c| c.map(|c| c.0)).collect(),
                ratios,
                differences,
                uncertainties: cells.iter().map(|c| c.and_then(|c| c.1)).collect(),
                differs,
                why: judged.iter().map(|j| j.as_ref().map(|j| j.0)).collect(),
                notes: judged.into_iter().map(|j| j.and_then(|j| j.1)).collect(),
            }
        })
        .collect();
    Comparison {
        columns: files
            .iter()
            .map(|f| format!("{} {}", f.machine.hostname, f.started_utc))
            .collect(),
        rows,
        floor,
    }
}

/// The comparison as CSV: `kernel,quantity`, then per file its value, ratio to the
/// first (positive quantities), difference from the first (signed ones),
/// uncertainty, difference mark (`*` where it differs, `~` where it moved with
/// the machine's probe, `=` where it does not differ), why in words, and the
/// probes behind it.
pub fn to_csv(c: &Comparison) -> String {
    let mut header = vec!["kernel".to_string(), "quantity".to_string()];
    for col in &c.columns {
        for what in [
            "value",
            "ratio",
            "difference",
            "uncertainty",
            "differs",
            "why",
            "note",
        ] {
            header.push(format!("{col} {what}"));
        }
    }
    let mut out = csv_line(&header);
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    for row in &c.rows {
        let mut cells = vec![row.kernel.clone(), row.quantity.clone()];
        for i in 0..c.columns.len() {
            cells.push(opt(row.values[i]));
            cells.push(opt(row.ratios[i]));
            cells.push(opt(row.differences[i]));
            cells.push(opt(row.uncertainties[i]));
            cells.push(row.why[i].map_or("", Why::csv_mark).into());
            cells.push(row.why[i].map_or("", Why::words).into());
            cells.push(row.notes[i].clone().unwrap_or_default());
        }
        out.push_str(&csv_line(&cells));
    }
    out
}

pub(super) fn csv_line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells
        .iter()
        .map(|c| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        })
        .collect();
    format!("{}\n", quoted.join(","))
}
