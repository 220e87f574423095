//! Side-by-side comparison of result files: one row per parameter, one column per
//! file, with the ratio of each column to the first.

use super::ResultFile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One compared quantity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRow {
    /// `kernel/transport` (or `kernel`).
    pub kernel: String,
    /// The parameter (`t_startup_ns`) or point quantity
    /// (`one_way_ns.min @ size_bytes=8`).
    pub quantity: String,
    /// The value in each file, `None` where the file lacks it.
    pub values: Vec<Option<f64>>,
    /// Each value divided by the first file's value.
    pub ratios: Vec<Option<f64>>,
}

/// A comparison of several files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// A label per file (host and start time).
    pub columns: Vec<String>,
    /// The rows, grouped by kernel.
    pub rows: Vec<ComparisonRow>,
}

fn kernel_key(k: &super::KernelResult) -> String {
    match &k.transport {
        Some(t) => format!("{}/{}", k.kernel, t),
        None => k.kernel.clone(),
    }
}

/// The quantities of one file by (kernel key, quantity name).
fn quantities(file: &ResultFile) -> BTreeMap<(String, String), f64> {
    let mut out = BTreeMap::new();
    for k in &file.kernels {
        let key = kernel_key(k);
        for fit in &k.fits {
            for (name, v) in &fit.params {
                out.insert((key.clone(), name.clone()), *v);
            }
            out.insert((key.clone(), format!("r2 ({})", fit.model)), fit.r2);
        }
        for p in &k.points {
            // A point is named by its swept variables: not by repetition counts,
            // rates or percentages, which are measured and differ between runs.
            let measured =
                |n: &str| n.starts_with("reps") || n.ends_with("_per_s") || n.ends_with("_percent");
            let at: Vec<String> =
                p.0.keys()
                    .filter(|n| !measured(n))
                    .filter_map(|n| p.number(n).map(|v| format!("{n}={v}")))
                    .collect();
            for (name, _) in p.0.iter() {
                if let Some(s) = p.stats(name) {
                    out.insert(
                        (key.clone(), format!("{name}.min @ {}", at.join(","))),
                        s.min,
                    );
                }
            }
        }
    }
    out
}

/// Compares files: every quantity that any file has, in the files' order.
pub fn compare(files: &[ResultFile]) -> Comparison {
    let per_file: Vec<_> = files.iter().map(quantities).collect();
    let mut keys: Vec<(String, String)> = per_file.iter().flat_map(|q| q.keys().cloned()).collect();
    keys.sort();
    keys.dedup();
    let rows = keys
        .into_iter()
        .map(|key| {
            let values: Vec<Option<f64>> = per_file.iter().map(|q| q.get(&key).copied()).collect();
            let base = values[0];
            let ratios = values
                .iter()
                .map(|v| match (base, v) {
                    (Some(b), Some(v)) if b != 0.0 => Some(v / b),
                    _ => None,
                })
                .collect();
            ComparisonRow {
                kernel: key.0,
                quantity: key.1,
                values,
                ratios,
            }
        })
        .collect();
    Comparison {
        columns: files
            .iter()
            .map(|f| format!("{} {}", f.machine.hostname, f.started_utc))
            .collect(),
        rows,
    }
}
