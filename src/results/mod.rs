//! Result files: the versioned JSON schema, atomic writing and checked reading.
//! What is computed from them (the machine card, `compare`, the judging of the
//! machine's state) is in the analysis of results, above the kernels.
//!
//! One file per run. The skeleton (see `results/README.md` in the repository) is
//! stable for scripts: `schema_version`, `tool`, `machine`, `software`, `config`,
//! and `kernels`, each kernel with its swept `points`, its `fits` with goodness,
//! and its `warnings`. Units are in the field names.

#![forbid(unsafe_code)]

mod gz;
mod machine_card;
mod probes;
mod schema;
mod units;

pub use machine_card::{CardRow, Decision, Identity, MachineCard, Repetitions, Trust};
pub use probes::{
    BLOCKS_PARAM, COPY_PROBE_PARAM, PREEMPTED_PARAM, PROBE_PARAM, RATE_PROBE_PARAM, SLEEPS_PARAM,
    SYSCALL_PROBE_PARAM, is_probe, ratio_to_probe, recorded, recorded_copy_probe, recorded_probe,
    recorded_rate_probe,
};
pub use schema::{
    FitResult, KernelResult, MachineInfo, Param, Point, PointValue, ResultFile, SCHEMA_VERSION,
    SoftwareInfo, TOOL_NAME,
};
pub use units::{quantity, scaled, sig, unit_of};

use std::path::{Path, PathBuf};

/// Formats a number with about four significant digits, as tables and warnings
/// quote measured values.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{v:.3e}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// Why a result file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ResultFileError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a halfperf result.
    #[error("{path} is not a halfperf result file: {reason}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file was written by a newer halfperf.
    #[error(
        "{path} has schema version {found}, newer than this halfperf understands ({supported}); update halfperf"
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u64,
        /// The newest version this build reads.
        supported: u64,
    },
    /// Refusing to overwrite an earlier result.
    #[error("{path} already exists; choose another --out or pass --force to replace it")]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// Writing failed; nothing was left at the destination.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The JSON Schema (draft 2020-12) of a result file, generated from the types
/// above; `results/schema.json` in the repository is this, pretty-printed.
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(ResultFile)).expect("a schema is JSON")
}

/// Reads and checks a result file, plain JSON or gzip (`.json.gz`).
pub fn read(path: &Path) -> Result<ResultFile, ResultFileError> {
    let bytes = std::fs::read(path).map_err(|source| ResultFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = gz::text_of(bytes).map_err(|reason| ResultFileError::Malformed {
        path: path.to_path_buf(),
        reason,
    })?;
    parse(&text).map_err(|e| e.with_path(path))
}

/// Parses and checks a result document (the path in errors is empty).
pub fn parse(text: &str) -> Result<ResultFile, ResultFileError> {
    let malformed = |reason: String| ResultFileError::Malformed {
        path: PathBuf::new(),
        reason,
    };
    if text.trim().is_empty() {
        return Err(malformed("the file is empty".into()));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| malformed(format!("not JSON ({e})")))?;
    let obj = value
        .as_object()
        .ok_or_else(|| malformed("the document is not a JSON object".into()))?;
    match obj.get("tool").and_then(|t| t.as_str()) {
        Some(TOOL_NAME) => {}
        Some(other) => return Err(malformed(format!("it was written by {other:?}"))),
        None => return Err(malformed("it has no \"tool\": \"halfperf\" field".into())),
    }
    let version = obj
        .get("schema_version")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| malformed("it has no numeric schema_version".into()))?;
    if version > SCHEMA_VERSION {
        return Err(ResultFileError::NewerSchema {
            path: PathBuf::new(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    serde_json::from_value(value).map_err(|e| malformed(format!("{e}")))
}

impl ResultFileError {
    fn with_path(self, p: &Path) -> ResultFileError {
        match self {
            ResultFileError::Malformed { reason, .. } => ResultFileError::Malformed {
                path: p.to_path_buf(),
                reason,
            },
            ResultFileError::NewerSchema {
                found, supported, ..
            } => ResultFileError::NewerSchema {
                path: p.to_path_buf(),
                found,
                supported,
            },
            other => other,
        }
    }
}

/// Writes `file` to `path` atomically: a temporary file in the same directory,
/// flushed to disk, then renamed over the destination. A crash leaves either the
/// old file or the new one, never a partial one. Refuses to replace an existing
/// file unless `force`. A path ending in `.gz` is written gzip-compressed.
pub fn write_atomic(file: &ResultFile, path: &Path, force: bool) -> Result<(), ResultFileError> {
    let werr = |source: std::io::Error| ResultFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    if path.exists() && !force {
        return Err(ResultFileError::Exists {
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".halfperf-")
        .suffix(".json.tmp")
        .tempfile_in(dir)
        .map_err(werr)?;
    let mut json = serde_json::to_vec_pretty(file).map_err(|e| werr(e.into()))?;
    json.push(b'\n');
    if gz::wants_gzip(path) {
        json = gz::compress(&json).map_err(werr)?;
    }
    use std::io::Write;
    tmp.write_all(&json).map_err(werr)?;
    tmp.as_file().sync_all().map_err(werr)?;
    if force {
        tmp.persist(path).map_err(|e| werr(e.error))?;
    } else {
        // persist_noclobber: a file that appeared since the check is not replaced.
        tmp.persist_noclobber(path).map_err(|e| werr(e.error))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_finite_value_is_left_out_and_the_result_reads_back() {
        let stats = crate::model::stats::summarize(&[1.0, 2.0, 3.0]).expect("three samples");
        let nan_stats = crate::model::stats::Summary {
            median: f64::NAN,
            ..stats.clone()
        };
        let mut r = KernelResult::new("k", "m", crate::control::Placement::Pinned, vec![0, 1]);
        r.points.push(
            Point::new()
                .with("size_bytes", 8.0)
                .with("ratio", f64::NAN)
                .with_stats("t_ns", stats)
                .with_stats("u_ns", nan_stats),
        );
        r.fits.push(FitResult {
            model: "a + b x".into(),
            x: "x".into(),
            y: "t_ns.min".into(),
            params: [("a".to_string(), 2.0), ("b".to_string(), f64::INFINITY)].into(),
            std_errors: [("a".to_string(), 0.5), ("b".to_string(), 1.0)].into(),
            r2: f64::NAN,
            n_points: 3,
            flagged: false,
        });
        r.drop_non_finite();
        let text = serde_json::to_string(&r).expect("serialises");
        let back: KernelResult = serde_json::from_str(&text).expect("reads back");
        let p = &back.points[0];
        assert_eq!(p.number("size_bytes"), Some(8.0));
        assert_eq!(p.number("ratio"), None);
        assert_eq!(p.stats("t_ns").map(|s| s.median), Some(2.0));
        assert!(p.stats("u_ns").is_none());
        let f = &back.fits[0];
        assert_eq!(f.params.get("a"), Some(&2.0));
        assert!(!f.params.contains_key("b") && !f.std_errors.contains_key("b"));
        assert!(f.flagged && f.r2 == 0.0);
        let w = back.warnings.last().expect("a warning");
        assert!(
            w.contains("point 0 ratio") && w.contains("point 0 u_ns"),
            "{w}"
        );
        assert!(w.contains("parameter b") && w.contains("R^2"), "{w}");
    }

    #[test]
    fn bad_documents_are_refused_with_the_reason() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        assert!(err("").contains("empty"));
        assert!(err("{\"tool\":").contains("not JSON"));
        assert!(err("[1,2]").contains("not a JSON object"));
        assert!(err(r#"{"tool":"criterion","schema_version":1}"#).contains("\"criterion\""));
        assert!(err(r#"{"schema_version":1}"#).contains("no \"tool\""));
        assert!(err(r#"{"tool":"halfperf","schema_version":99}"#).contains("newer"));
        assert!(err(r#"{"tool":"halfperf","schema_version":1}"#).contains("missing field"));
    }

    /// A `hockney-sync` point is named by its grain and processors, never by
    /// the calibration's reps or by how often its hand-overs slept, so that
    /// two runs' points at one grain match.
    #[test]
    fn a_sync_point_is_named_by_its_grain_alone() {
        let p = Point::new()
            .with("grain_flop", 64.0)
            .with("processors", 2.0)
            .with("reps", 5000.0)
            .with("blocks_per_segment", 1.9);
        let named: Vec<&str> = p.swept().map(|(n, _)| n).collect();
        assert_eq!(named, ["grain_flop", "processors"]);
    }
}
