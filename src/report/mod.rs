//! Reports for people: `index.html` (one self-contained page, inline SVG, no
//! script, no network) and `report.md` with the same figures as SVG files beside
//! it, built from result files alone.
//!
//! The report knows the result schema, not the kernels: for every kernel result it
//! plots each measured quantity against the point's swept variable (minimum over
//! trials, a band to the median, whiskers to the maximum; for Krumme & Greenfield's
//! kernels, whose tables quote means, the mean and a band of one standard
//! deviation either side), overlays the fitted
//! models it can evaluate, marks the 50 % and 90 % sizes on bandwidth plots, draws a
//! CPU-pair matrix (`cpu_a`, `cpu_b`) as a heat map, and always lists the points,
//! fits, placement and warnings. Several files overlay the same plot, one series
//! per machine and date. Points that sweep a second variable (processors, message
//! size, load, integer or floating-point `Q`) are split into one series per value,
//! each with the fit its model
//! names (`at P = 4`); a sweep over processors and size or order is drawn both
//! ways. A few kernels have figures in their paper's shape instead (see
//! `special`): s_1/2 per synchronisation method, the SCI decomposition, validation
//! and projections, the speedup against N; a figure whose fields a file lacks is
//! left out with a note.

#![forbid(unsafe_code)]

mod html;
mod markdown;
mod plot;
mod special;

use crate::results::num;
use crate::results::{
    FitResult, KernelResult, Point, PointValue, ResultFile, kernel_key, reports_mean,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use html::to_html;
pub use markdown::to_markdown;
pub use special::PRESENTED;

/// Swept variables tried as the x axis, in order; the first that varies wins.
pub const X_PREFERENCE: [&str; 12] = [
    "size_bytes",
    "n_elements",
    "n",
    "grain_flop",
    "processors",
    "matrix_order",
    "hops",
    "nodes",
    "nodes_per_dimension",
    "dimensions",
    "ranks",
    "n_per_processor",
];

/// A whole report.
#[derive(Debug, Clone)]
pub struct Report {
    /// One entry per input file.
    pub sources: Vec<Source>,
    /// One section per kernel (and transport, and distance class).
    pub sections: Vec<Section>,
}

/// An input file, described.
#[derive(Debug, Clone)]
pub struct Source {
    /// Host and start time: the legend of its series.
    pub label: String,
    /// `name: value` lines about the machine and the build.
    pub facts: Vec<(String, String)>,
}

/// One kernel's figures and tables across the files.
#[derive(Debug, Clone)]
pub struct Section {
    /// HTML id (`pingpong-mailbox`).
    pub id: String,
    /// Heading.
    pub title: String,
    /// The figures.
    pub figures: Vec<Figure>,
    /// Per result: placement, CPUs, warnings.
    pub notes: Vec<Note>,
    /// Fits and points.
    pub tables: Vec<Table>,
}

/// One figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// HTML id and SVG file stem (`fig-pingpong-mailbox-one_way_ns`).
    pub id: String,
    /// Title shown above the figure.
    pub title: String,
    /// The SVG document.
    pub svg: String,
    /// Lines shown under it (what is drawn, fits not drawn and why).
    pub caption: Vec<String>,
}

/// The labels of one kernel result shown next to its figures.
#[derive(Debug, Clone)]
pub struct Note {
    /// Which file and result.
    pub label: String,
    /// `placement pinned, CPUs [0, 1], 2 ranks, shared L3`.
    pub placement: String,
    /// Whether the placement is other than pinned.
    pub unusual_placement: bool,
    /// The result's warnings.
    pub warnings: Vec<String>,
}

/// A table.
#[derive(Debug, Clone)]
pub struct Table {
    /// What it shows.
    pub caption: String,
    /// Column names.
    pub header: Vec<String>,
    /// Cells.
    pub rows: Vec<Vec<String>>,
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportWriteError {
    /// The directory or a file in it could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A readable axis label from a field name, unit from its suffix:
/// `one_way_ns` → "one-way latency (ns)", `size_bytes` → "message size (bytes)".
pub fn axis_label(name: &str) -> String {
    const UNITS: [(&str, &str); 14] = [
        ("_mb_per_s", "MB/s"),
        ("_gb_per_s", "GB/s"),
        ("_flop_per_s", "flop/s"),
        ("_bytes_per_s", "bytes/s"),
        ("_per_s", "1/s"),
        ("_ns", "ns"),
        ("_us", "µs"),
        ("_ms", "ms"),
        ("_s", "s"),
        ("_bytes", "bytes"),
        ("_flop", "flop"),
        ("_elements", "elements"),
        ("_percent", "%"),
        ("_hops", "hops"),
    ];
    const WORDS: [(&str, &str); 12] = [
        ("one_way", "one-way latency"),
        ("single_round_trip", "single round-trip time"),
        ("round_trip", "round-trip time"),
        ("size", "message size"),
        ("bandwidth", "bandwidth"),
        ("n", "vector length n"),
        ("grain", "grain"),
        ("time", "time"),
        ("processors", "processors P"),
        ("matrix_order", "matrix order"),
        ("nodes", "nodes"),
        ("hops", "hops"),
    ];
    // A ratio has no unit, whatever its name ends with (`slowdown_r_plus_s`).
    let ratio = ["slowdown", "ratio", "speedup", "efficiency", "_over_"]
        .iter()
        .any(|w| name.contains(w));
    let (stem, unit) = UNITS
        .iter()
        .filter(|_| !ratio)
        .find(|(s, _)| name.ends_with(s) && name.len() > s.len())
        .map_or((name, None), |(s, u)| {
            (&name[..name.len() - s.len()], Some(*u))
        });
    let words = WORDS
        .iter()
        .find(|(w, _)| *w == stem)
        .map_or_else(|| stem.replace('_', " "), |(_, t)| t.to_string());
    match unit {
        Some(u) => format!("{words} ({u})"),
        None => words,
    }
}

/// A fitted model as a function of the fit's own x, and a caveat to print under
/// the figure when it is drawn with one.
pub(crate) struct Model<'a> {
    /// y from x, in the plotted quantity's unit.
    pub(crate) f: Box<dyn Fn(f64) -> f64 + 'a>,
    /// What the reader should know about the line.
    pub(crate) note: Option<String>,
}

/// The factor from seconds to the unit of a time quantity's name, if it is one.
fn time_scale(quantity: &str) -> Option<f64> {
    [("_ns", 1e9), ("_us", 1e6), ("_ms", 1e3), ("_s", 1.0)]
        .iter()
        .find(|(u, _)| quantity.ends_with(u))
        .map(|(_, f)| *f)
}

/// The divisor of a fitted quantity written `time_ns.min / 2` (the fit is of the
/// quantity over 2), else 1.
fn y_divisor(y: &str) -> f64 {
    y.split_once(" / ")
        .and_then(|(_, d)| d.trim().parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(1.0)
}

/// A model curve evaluated from a fit, or why it cannot be drawn. `group` is the
/// second swept variable and its value, for a fit over two (`size_bytes, hops`).
pub(crate) fn evaluate_fit<'a>(
    fit: &'a FitResult,
    group: Option<(&str, f64)>,
) -> Result<Model<'a>, String> {
    let p = |k: &str| fit.params.get(k).copied();
    let ends = |suffix: &str| {
        fit.params
            .iter()
            .find(|(k, _)| k.ends_with(suffix))
            .map(|(_, v)| *v)
    };
    let div = y_divisor(&fit.y);
    let ok = |f: Box<dyn Fn(f64) -> f64 + 'a>| Model { f, note: None };
    // A fit over two variables: the second's term added per group.
    let extra = match fit.x.split_once(", ") {
        None => 0.0,
        Some((_, second)) => match (group, p("h_ns")) {
            (Some((g, v)), Some(h)) if g == second => (v - 1.0) * h,
            _ => {
                return Err(format!(
                    "fit {} not drawn: it is over ({}) and the plot has no {} series",
                    fit.model,
                    fit.x,
                    fit.x.split_once(", ").map_or("", |x| x.1)
                ));
            }
        },
    };
    // scibench / CoMet latency line: t = t_startup + N t_per_byte.
    if let (Some(t0), Some(tb)) = (p("t_startup_ns"), p("t_per_byte_ns")) {
        return Ok(ok(Box::new(move |x| t0 + tb * x + extra)));
    }
    // A generic line: intercept* and slope* parameters.
    let find = |prefix: &str| {
        fit.params
            .iter()
            .find(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| *v)
    };
    if let (Some(a), Some(b)) = (find("intercept"), find("slope")) {
        return Ok(ok(Box::new(move |x| a + b * x)));
    }
    // Hockney: t = t0 + x / r_inf (= (x + x_1/2) / r_inf), parameters possibly
    // prefixed by a memory level (`l2_r_inf_flop_per_s`), the fitted time possibly
    // divided by the vector instructions per element (`time_ns.min / 2`).
    if let Some(r) = ends("r_inf_flop_per_s") {
        let Some(scale) = time_scale(fit_quantity(fit)) else {
            return Err(format!(
                "fit {} not drawn: the unit of {} is not a time",
                fit.model, fit.y
            ));
        };
        if r > 0.0 {
            let t0 = ends("t0_ns").map(|t| t * scale / 1e9).or_else(|| {
                ends("n_half_flop")
                    .or_else(|| ends("s_half_flop"))
                    .map(|h| h / r * scale)
            });
            return Ok(match t0 {
                Some(t0) => ok(Box::new(move |x| div * (t0 + x / r * scale))),
                None => Model {
                    f: Box::new(move |x| div * x / r * scale),
                    note: Some(format!(
                        "{}: r_inf only (no positive start-up), drawn through the origin",
                        fit.model
                    )),
                },
            });
        }
    }
    // A line of two parameters: an intercept in a time unit and a slope `_per_`.
    if fit.params.len() == 2 {
        let slope = fit.params.iter().find(|(k, _)| k.contains("_per_"));
        let icept = fit.params.iter().find(|(k, _)| {
            !k.contains("_per_") && ["_ns", "_us", "_ms"].iter().any(|u| k.contains(u))
        });
        if let (Some((_, &b)), Some((_, &a))) = (slope, icept) {
            return Ok(ok(Box::new(move |x| a + b * x)));
        }
    }
    Err(format!(
        "fit {} not drawn: the report does not know how to evaluate its parameters ({})",
        fit.model,
        fit.params.keys().cloned().collect::<Vec<_>>().join(", ")
    ))
}

/// The fitted quantity's name without the statistic (`one_way_ns.min` → `one_way_ns`,
/// `time_ns.min / 2` → `time_ns`, `time_ms (every run)` → `time_ms`).
fn fit_quantity(fit: &FitResult) -> &str {
    fit.y.split(['.', ' ']).next().unwrap_or(&fit.y)
}

/// The x range a fit covers where it says so: a memory level's points (`l2_`
/// parameters), or `x_min_*` / `x_max_*`.
fn fit_range(fit: &FitResult, points: &[&Point], x: &str) -> Option<(f64, f64)> {
    let lo = fit.params.iter().find(|(k, _)| k.starts_with("x_min"));
    let hi = fit.params.iter().find(|(k, _)| k.starts_with("x_max"));
    if let (Some((_, &lo)), Some((_, &hi))) = (lo, hi) {
        return Some((lo, hi));
    }
    // A range in the model's name: `16-2000 B`, `(n <= 400)`.
    let words: Vec<&str> = fit
        .model
        .split([' ', '(', ')', ',', ';'])
        .filter(|w| !w.is_empty())
        .collect();
    for w in words.windows(3) {
        if let Some((a, b)) = w[0].split_once('-')
            && matches!(w[1], "B" | "bytes")
            && let (Ok(a), Ok(b)) = (a.parse::<f64>(), b.parse::<f64>())
        {
            return Some((a, b));
        }
        if w[1] == "<="
            && let Ok(b) = w[2].parse::<f64>()
        {
            let lo = points
                .iter()
                .filter_map(|p| p.number(x))
                .fold(f64::INFINITY, f64::min);
            return lo.is_finite().then_some((lo, b));
        }
    }
    let level = fit.params.keys().find_map(|k| {
        let rest = k.strip_prefix('l')?;
        let (digits, _) = rest.split_once('_')?;
        digits.parse::<f64>().ok()
    })?;
    let xs: Vec<f64> = points
        .iter()
        .filter(|p| p.number("level") == Some(level))
        .filter_map(|p| p.number(x))
        .collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo <= hi).then_some((lo, hi))
}

/// A fit's x variable at a point: a number the point carries, or the block size
/// `B = 8 (ld + 2)^2` of the matrix kernels from their local order.
fn fit_x_at(p: &Point, fit_x: &str) -> Option<f64> {
    p.number(fit_x).or_else(|| {
        (fit_x == "block_bytes")
            .then(|| p.number("local_order"))
            .flatten()
            .map(|ld| 8.0 * (ld + 2.0) * (ld + 2.0))
    })
}

/// Lower-case ASCII letters, digits and `_`, every other run of characters one `-`.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// One result in a section: which file, which result.
struct Entry<'a> {
    label: String,
    colour: usize,
    result: &'a KernelResult,
}

/// The x variable: the first of [`X_PREFERENCE`] that varies over the points, then
/// any other swept variable that varies.
fn choose_x(points: &[&Point]) -> Option<String> {
    let varies = |name: &str| {
        let vals: BTreeSet<u64> = points
            .iter()
            .filter_map(|p| p.number(name))
            .map(f64::to_bits)
            .collect();
        vals.len() > 1
    };
    X_PREFERENCE
        .iter()
        .find(|n| varies(n))
        .map(|n| n.to_string())
        .or_else(|| {
            let names: BTreeSet<&str> =
                points.iter().flat_map(|p| p.swept().map(|s| s.0)).collect();
            names
                .into_iter()
                .find(|n| !matches!(*n, "cpu_a" | "cpu_b") && varies(n))
                .map(str::to_string)
        })
}

/// Builds the report of `files`.
pub fn build(files: &[ResultFile]) -> Report {
    let sources: Vec<Source> = files.iter().map(source).collect();
    // Sections in order of first appearance.
    let mut order: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, Vec<Entry<'_>>> = BTreeMap::new();
    for (fi, file) in files.iter().enumerate() {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for r in &file.kernels {
            let mut key = kernel_key(r);
            if let Some(c) = r.distance_class {
                key.push_str(&format!(" ({c})"));
            }
            let nth = seen.entry(key.clone()).or_insert(0);
            *nth += 1;
            let mut label = sources[fi].label.clone();
            if *nth > 1 {
                label.push_str(&format!(" #{nth}"));
            }
            if !groups.contains_key(&key) {
                order.push(key.clone());
            }
            let g = groups.entry(key).or_default();
            let colour = g.len();
            g.push(Entry {
                label,
                colour,
                result: r,
            });
        }
    }
    let mut sections: Vec<Section> = order.iter().map(|key| section(key, &groups[key])).collect();
    // Every synchronisation method together, before the first method's section.
    let sync: Vec<Entry<'_>> = order
        .iter()
        .flat_map(|k| &groups[k])
        .filter(|e| e.result.kernel == crate::kernels::hockney::sync::NAME)
        .enumerate()
        .map(|(i, e)| Entry {
            label: e.label.clone(),
            colour: i,
            result: e.result,
        })
        .collect();
    if let Some(at) = sections
        .iter()
        .position(|s| s.title.starts_with("hockney-sync "))
    {
        sections.insert(
            at,
            Section {
                id: "hockney-sync-methods".into(),
                title: "hockney-sync, every synchronisation method (hockney)".into(),
                figures: special::hockney_sync_summary(&sync),
                notes: vec![],
                tables: vec![],
            },
        );
    }
    Report { sources, sections }
}

fn source(f: &ResultFile) -> Source {
    let m = &f.machine;
    let s = &f.software;
    let mut facts = vec![
        ("started".into(), f.started_utc.clone()),
        (
            "CPU".into(),
            m.cpu_model.clone().unwrap_or_else(|| "unknown".into()),
        ),
        (
            "CPUs".into(),
            format!(
                "{} logical, {} cores, {} package(s), {} NUMA node(s), SMT {}; allowed {:?}",
                m.logical_cpus,
                m.physical_cores,
                m.packages,
                m.numa_nodes,
                if m.smt { "on" } else { "off" },
                m.allowed_cpus
            ),
        ),
        ("OS".into(), m.os.clone()),
        (
            "clock".into(),
            format!(
                "{}, read overhead {} ns, resolution {} ns",
                m.clock.source,
                num(m.clock.read_overhead_ns),
                num(m.clock.resolution_ns)
            ),
        ),
        (
            "halfperf".into(),
            format!("{} ({}), {}", s.halfperf_version, s.git_commit, s.rustc),
        ),
    ];
    if f.incomplete {
        facts.push((
            "incomplete".into(),
            "the run was interrupted; only finished kernels are here".into(),
        ));
    }
    Source {
        label: format!("{} {}", m.hostname, f.started_utc),
        facts,
    }
}

fn section(key: &str, entries: &[Entry<'_>]) -> Section {
    let id = slug(key);
    let first = entries[0].result;
    let mut figures = Vec::new();
    let all_points: Vec<&Point> = entries.iter().flat_map(|e| &e.result.points).collect();
    let is_matrix = all_points
        .iter()
        .any(|p| p.number("cpu_a").is_some() && p.number("cpu_b").is_some());
    if is_matrix {
        for (i, e) in entries.iter().enumerate() {
            figures.extend(heat_maps(&id, i, e));
        }
    } else if let Some(special) = special::figures(&id, entries) {
        figures.extend(special);
    } else if let Some(x) = choose_x(&all_points) {
        let group = group_var(&all_points, &x);
        figures.extend(xy_figures(&id, &x, group.as_deref(), "", entries));
        // A sweep over processors and message size or matrix order: both ways.
        if let Some(g) = &group
            && matches!(
                (x.as_str(), g.as_str()),
                ("size_bytes" | "matrix_order", "processors")
                    | ("processors", "size_bytes" | "matrix_order")
            )
        {
            figures.extend(xy_figures(
                &id,
                g,
                Some(&x),
                &format!("-vs-{}", slug(g)),
                entries,
            ));
        }
    }
    let notes = entries
        .iter()
        .map(|e| {
            let r = e.result;
            let class = r
                .distance_class
                .map(|c| format!(", {c}"))
                .unwrap_or_default();
            Note {
                label: e.label.clone(),
                placement: format!(
                    "placement {}, CPUs {:?}, {} rank{}{class}",
                    r.placement,
                    r.cpus,
                    r.ranks,
                    if r.ranks == 1 { "" } else { "s" }
                ),
                unusual_placement: r.placement != crate::control::Placement::Pinned,
                warnings: r.warnings.clone(),
            }
        })
        .collect();
    let mut tables = Vec::new();
    let fits: Vec<Vec<String>> = entries
        .iter()
        .flat_map(|e| {
            e.result.fits.iter().map(|f| {
                let params: Vec<String> = f
                    .params
                    .iter()
                    .map(|(k, v)| match f.std_errors.get(k) {
                        Some(se) => format!("{k} = {} ± {}", num(*v), num(*se)),
                        None => format!("{k} = {}", num(*v)),
                    })
                    .collect();
                vec![
                    e.label.clone(),
                    f.model.clone(),
                    format!("{} vs {}", f.y, f.x),
                    params.join("; "),
                    format!("{:.4}", f.r2),
                    f.n_points.to_string(),
                    if f.flagged { "FLAGGED" } else { "" }.into(),
                ]
            })
        })
        .collect();
    if !fits.is_empty() {
        tables.push(Table {
            caption: "Fits (a flagged fit's parameters are not to be quoted)".into(),
            header: [
                "file",
                "model",
                "fitted",
                "parameters ± standard error",
                "R²",
                "points",
                "",
            ]
            .map(String::from)
            .to_vec(),
            rows: fits,
        });
    }
    for e in entries {
        tables.push(points_table(e));
    }
    let transport = first
        .transport
        .as_deref()
        .map(|t| format!(" over {t}"))
        .unwrap_or_default();
    let class = first
        .distance_class
        .map(|c| format!(", {c}"))
        .unwrap_or_default();
    Section {
        id,
        title: format!("{}{transport} ({}{class})", first.kernel, first.method),
        figures,
        notes,
        tables,
    }
}

/// The points of one result: a column per number, four per distribution.
fn points_table(e: &Entry<'_>) -> Table {
    let mut numbers: Vec<String> = Vec::new();
    let mut stats: Vec<String> = Vec::new();
    for p in &e.result.points {
        for (name, v) in &p.0 {
            let list = match v {
                PointValue::Number(_) => &mut numbers,
                PointValue::Stats(_) => &mut stats,
            };
            if !list.contains(name) {
                list.push(name.clone());
            }
        }
    }
    let mut header = numbers.clone();
    for s in &stats {
        header.extend([
            format!("{s} min"),
            format!("{s} median"),
            format!("{s} max"),
            format!("{s} p99"),
        ]);
    }
    let rows = e
        .result
        .points
        .iter()
        .map(|p| {
            let mut cells: Vec<String> = numbers
                .iter()
                .map(|n| p.number(n).map_or("-".into(), num))
                .collect();
            for s in &stats {
                match p.stats(s) {
                    Some(x) => cells.extend([num(x.min), num(x.median), num(x.max), num(x.p99)]),
                    None => cells.extend(std::iter::repeat_n("-".to_string(), 4)),
                }
            }
            cells
        })
        .collect();
    Table {
        caption: format!(
            "Points of {} ({} point{})",
            e.label,
            e.result.points.len(),
            if e.result.points.len() == 1 { "" } else { "s" }
        ),
        header,
        rows,
    }
}

/// One heat map per distribution of a CPU-pair matrix.
fn heat_maps(section_id: &str, nth: usize, e: &Entry<'_>) -> Vec<Figure> {
    let pts = &e.result.points;
    let cpus: BTreeSet<i64> = pts
        .iter()
        .flat_map(|p| [p.number("cpu_a"), p.number("cpu_b")])
        .flatten()
        .map(|v| v as i64)
        .collect();
    let cpus: Vec<i64> = cpus.into_iter().collect();
    let quantities: BTreeSet<&str> = pts
        .iter()
        .flat_map(|p| p.0.iter())
        .filter(|(_, v)| matches!(v, PointValue::Stats(_)))
        .map(|(n, _)| n.as_str())
        .collect();
    quantities
        .into_iter()
        .map(|q| {
            let value = |a: i64, b: i64| {
                pts.iter().find_map(|p| {
                    let (x, y) = (p.number("cpu_a")? as i64, p.number("cpu_b")? as i64);
                    ((x, y) == (a, b) || (x, y) == (b, a)).then(|| p.stats(q).map(|s| s.min))?
                })
            };
            let cells = cpus
                .iter()
                .map(|&a| cpus.iter().map(|&b| (a != b).then(|| value(a, b)).flatten()).collect())
                .collect();
            let h = plot::HeatMap {
                labels: cpus.iter().map(|c| c.to_string()).collect(),
                cells,
                axis: "CPU".into(),
                value_label: format!("{}, min over trials", axis_label(q)),
            };
            let (svg, caption) = match plot::heatmap_svg(&h) {
                Ok(svg) => (svg, vec![]),
                Err(err) => (String::new(), vec![format!("could not draw: {err}")]),
            };
            let mut caption = caption;
            caption.insert(
                0,
                format!(
                    "{}: {} between each pair of CPUs, minimum over trials; symmetric pairs share a value.",
                    e.label,
                    axis_label(q)
                ),
            );
            Figure {
                id: format!("fig-{section_id}-{}-{}", slug(q), nth + 1),
                title: format!("{} matrix, {}", axis_label(q), e.label),
                svg,
                caption,
            }
        })
        .collect()
}

/// Variables tried, in order, to split a plot's points into series: the first
/// (other than x) that takes several values at one x.
pub const GROUP_PREFERENCE: [&str; 9] = [
    "processors",
    "size_bytes",
    "hops",
    "load_fraction",
    "matrix_order",
    "load_recomputations",
    "nodes",
    "dims",
    "q_float",
];

/// The variable that splits the points into series on an `x` axis, if any.
fn group_var(points: &[&Point], x: &str) -> Option<String> {
    GROUP_PREFERENCE
        .iter()
        .filter(|g| **g != x)
        .find(|g| {
            let mut seen: BTreeMap<u64, u64> = BTreeMap::new();
            points.iter().any(|p| match (p.number(x), p.number(g)) {
                (Some(xv), Some(gv)) => {
                    *seen.entry(xv.to_bits()).or_insert(gv.to_bits()) != gv.to_bits()
                }
                _ => false,
            })
        })
        .map(|g| g.to_string())
}

/// A number as written in a model's name: whole numbers without decimals.
fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        num(v)
    }
}

/// A series' name for a value of the grouping variable, as the kernels write it in
/// their fits' models (`P = 4`, `N = 64 bytes`, `50% load`).
pub(crate) fn group_text(g: &str, v: f64) -> String {
    match g {
        "processors" => format!("P = {}", plain(v)),
        "size_bytes" => format!("N = {} bytes", plain(v)),
        "load_fraction" => format!("{}% load", plain((v * 100.0).round())),
        "hops" => format!("{} hop{}", plain(v), if v == 1.0 { "" } else { "s" }),
        "matrix_order" => format!("order {}", plain(v)),
        "load_recomputations" => format!("load {}", plain(v)),
        // Krumme & Greenfield's two versions of the background computation.
        "q_float" if v == 0.0 => "integer Q".into(),
        "q_float" => "floating-point Q".into(),
        _ => format!("{} = {}", g.replace('_', " "), plain(v)),
    }
}

/// Whether `model` names `text` (not as the start of a longer number).
fn names(model: &str, text: &str) -> bool {
    model.match_indices(text).any(|(i, _)| {
        !model[i + text.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
    })
}

/// The points a fit is of: those with the value its model names (`at P = 4`) of
/// any grouping variable, else all.
fn fit_subset<'p>(fit: &FitResult, points: &[&'p Point]) -> Vec<&'p Point> {
    for g in GROUP_PREFERENCE {
        let values: BTreeSet<u64> = points
            .iter()
            .filter_map(|p| p.number(g))
            .map(f64::to_bits)
            .collect();
        if values.len() < 2 {
            continue;
        }
        if let Some(v) = values
            .iter()
            .map(|b| f64::from_bits(*b))
            .find(|v| names(&fit.model, &group_text(g, *v)))
        {
            return points
                .iter()
                .copied()
                .filter(|p| p.number(g) == Some(v))
                .collect();
        }
    }
    points.to_vec()
}

/// Marks a fit's breakpoints (`breakpoint_1_bytes`, ...) when it is against the
/// plot's x.
fn add_breakpoints(plot: &mut plot::XyPlot, f: &FitResult, same_x: bool, colour: usize) {
    if !same_x {
        return;
    }
    for (k, v) in &f.params {
        if k.starts_with("breakpoint_") && !plot.markers.iter().any(|m| m.x == *v) {
            plot.markers.push(plot::Marker {
                x: *v,
                label: format!("break {}", num(*v)),
                colour,
            });
        }
    }
}

/// The measured quantities of the entries against `x`, one figure per quantity;
/// `group` splits each entry's points into series; `suffix` makes the ids unique
/// when the same quantity is drawn against several axes.
fn xy_figures(
    section_id: &str,
    x: &str,
    group: Option<&str>,
    suffix: &str,
    entries: &[Entry<'_>],
) -> Vec<Figure> {
    let mut stats_q: Vec<String> = Vec::new();
    let mut number_q: Vec<String> = Vec::new();
    for e in entries {
        for p in &e.result.points {
            for (n, v) in &p.0 {
                let list = match v {
                    PointValue::Stats(_) => &mut stats_q,
                    // A property of the build or CPU (simd_width_bits) is no plot.
                    PointValue::Number(_) if n.ends_with("_bits") => continue,
                    PointValue::Number(_) if Point::is_measured(n) => &mut number_q,
                    PointValue::Number(_) => continue,
                };
                if !list.contains(n) {
                    list.push(n.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    for q in stats_q.iter().chain(&number_q) {
        let mut plot = plot::XyPlot {
            x_label: axis_label(x),
            y_label: axis_label(q),
            ..Default::default()
        };
        let mut caption = Vec::new();
        let is_stats = stats_q.contains(q);
        let mut drawn = 0;
        let (mut by_min, mut by_mean) = (false, false);
        for e in entries {
            let with_q: Vec<&Point> = e
                .result
                .points
                .iter()
                .filter(|p| p.number(x).is_some() && p.0.contains_key(q))
                .collect();
            // The series: one per value of the grouping variable.
            let mut groups: Vec<(Option<f64>, Vec<&Point>)> = Vec::new();
            for p in &with_q {
                let g = group.and_then(|g| p.number(g));
                match groups
                    .iter_mut()
                    .find(|(v, _)| v.map(f64::to_bits) == g.map(f64::to_bits))
                {
                    Some((_, list)) => list.push(p),
                    None => groups.push((g, vec![p])),
                }
            }
            groups.sort_by(|a, b| a.0.unwrap_or(0.0).total_cmp(&b.0.unwrap_or(0.0)));
            let group_texts: Vec<String> = groups
                .iter()
                .filter_map(|(v, _)| Some(group_text(group?, (*v)?)))
                .collect();
            let n_groups = groups.len();
            let single_fits: Vec<usize> = e
                .result
                .fits
                .iter()
                .enumerate()
                .filter(|(_, f)| {
                    fit_quantity(f) == q
                        && !f.x.contains(", ")
                        && !group_texts.iter().any(|t| names(&f.model, t))
                        && evaluate_fit(f, None).is_ok()
                })
                .map(|(i, _)| i)
                .collect();
            let mut ungrouped_drawn: BTreeSet<usize> = BTreeSet::new();
            let spread = if reports_mean(&e.result.method) {
                by_mean = true;
                plot::Spread::MeanSd
            } else {
                by_min = true;
                plot::Spread::MinMedianMax
            };
            for (gi, (gv, pts_g)) in groups.iter().enumerate() {
                let mut pts: Vec<plot::Measured> = pts_g
                    .iter()
                    .filter_map(|p| {
                        let xv = p.number(x)?;
                        match (p.0.get(q)?, spread) {
                            (PointValue::Stats(s), plot::Spread::MinMedianMax) => {
                                Some((xv, s.min, Some((s.median, s.max))))
                            }
                            (PointValue::Stats(s), plot::Spread::MeanSd) => {
                                Some((xv, s.mean, Some((s.mean - s.std_dev, s.mean + s.std_dev))))
                            }
                            (PointValue::Number(v), _) => Some((xv, *v, None)),
                        }
                    })
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                drawn += pts.len();
                let colour = e.colour + entries.len() * gi;
                let gtext = group.zip(*gv).map(|(g, v)| group_text(g, v));
                let mut label = match (&gtext, entries.len()) {
                    (Some(t), 1) => t.clone(),
                    (Some(t), _) => format!("{}, {t}", e.label),
                    (None, _) => e.label.clone(),
                };
                if is_stats {
                    label.push_str(match spread {
                        plot::Spread::MinMedianMax => " (min)",
                        plot::Spread::MeanSd => " (mean)",
                    });
                }
                let (xlo, xhi) = (pts[0].0, pts[pts.len() - 1].0);
                plot.series.push(plot::Series {
                    spread,
                    label,
                    colour,
                    points: pts,
                });
                for (fi, f) in e.result.fits.iter().enumerate() {
                    if fit_quantity(f) != q {
                        continue;
                    }
                    let fit_x = f.x.split(", ").next().unwrap_or(&f.x);
                    let two_vars = f.x.contains(", ");
                    let grouped = group_texts.iter().any(|t| names(&f.model, t));
                    let mine = gtext.as_ref().is_some_and(|t| names(&f.model, t));
                    // A fit of one series on that series; a fit of them all once.
                    let (on, range_pts): (bool, &[&Point]) = if two_vars || grouped {
                        (two_vars || mine, pts_g)
                    } else {
                        (ungrouped_drawn.insert(fi), &with_q)
                    };
                    if !on {
                        continue;
                    }
                    let range_pts = &fit_subset(f, range_pts);
                    // Several fits of one series (levels, variants): a colour each.
                    let colour = if two_vars || grouped {
                        colour
                    } else if single_fits.len() > 1 {
                        let k = single_fits.iter().position(|&i| i == fi).unwrap_or(0);
                        e.colour + entries.len() * (n_groups + k)
                    } else {
                        e.colour
                    };
                    let model = match evaluate_fit(f, group.zip(*gv)) {
                        Ok(m) => m,
                        // A summary of segments drawn on their own: breakpoints only.
                        Err(_) if f.params.contains_key("breakpoints") => {
                            add_breakpoints(&mut plot, f, fit_x == x, colour);
                            continue;
                        }
                        Err(why) => {
                            if n_groups == 1 || !caption.contains(&format!("{}: {why}", e.label)) {
                                caption.push(format!("{}: {why}", e.label));
                            }
                            continue;
                        }
                    };
                    let curve: Vec<(f64, f64)> = if fit_x == x {
                        let all: Vec<f64> = range_pts.iter().filter_map(|p| p.number(x)).collect();
                        let (lo, hi) = fit_range(f, range_pts, x).unwrap_or((
                            all.iter().copied().fold(xlo, f64::min),
                            all.iter().copied().fold(xhi, f64::max),
                        ));
                        sample(lo, hi).map(|x| (x, (model.f)(x))).collect()
                    } else {
                        // Against another variable the points carry: through them.
                        let mut c: Vec<(f64, f64)> = range_pts
                            .iter()
                            .filter_map(|p| Some((p.number(x)?, (model.f)(fit_x_at(p, fit_x)?))))
                            .collect();
                        c.sort_by(|a, b| a.0.total_cmp(&b.0));
                        c.dedup_by(|a, b| a.0 == b.0);
                        if c.is_empty() {
                            let why = format!(
                                "{}: fit {} is against {}, which the points do not carry; not drawn",
                                e.label, f.model, f.x
                            );
                            if !caption.contains(&why) {
                                caption.push(why);
                            }
                            continue;
                        }
                        c
                    };
                    if let Some(n) = model.note
                        && !caption.contains(&n)
                    {
                        caption.push(n);
                    }
                    if curve.len() < 2 {
                        continue;
                    }
                    plot.curves.push(plot::Curve {
                        label: if entries.len() > 1 {
                            format!("{} fit: {}", e.label, f.model)
                        } else {
                            format!("fit: {}", f.model)
                        },
                        colour,
                        points: curve,
                    });
                    if f.flagged {
                        caption.push(format!(
                            "{}: the fit {} is flagged (R² {:.3}); its line is drawn but not to be trusted.",
                            e.label, f.model, f.r2
                        ));
                    }
                    if f.y.contains(".median") {
                        let n = format!("{} is fitted to the medians.", f.model);
                        if !caption.contains(&n) {
                            caption.push(n);
                        }
                    }
                    add_breakpoints(&mut plot, f, fit_x == x, colour);
                }
            }
            // Half-peak and 90 % sizes of a latency line, on its bandwidth plot.
            if q.contains("bandwidth") && x == "size_bytes" {
                for f in &e.result.fits {
                    if let Some(&nh) = f.params.get("n_half_bytes")
                        && nh.is_finite()
                        && nh > 0.0
                        && !plot.markers.iter().any(|m| m.x == nh)
                    {
                        plot.markers.push(plot::Marker {
                            x: nh,
                            label: format!("50%: {} B", num(nh)),
                            colour: e.colour,
                        });
                        plot.markers.push(plot::Marker {
                            x: 9.0 * nh,
                            label: format!("90%: {} B", num(9.0 * nh)),
                            colour: e.colour,
                        });
                        caption.push(format!(
                            "{}: 50% and 90% of the asymptotic bandwidth are reached at n_1/2 = {} B and 9 n_1/2 = {} B (from the fit {}).",
                            e.label,
                            num(nh),
                            num(9.0 * nh),
                            f.model
                        ));
                    }
                }
            }
        }
        if drawn == 0 {
            continue;
        }
        if is_stats && by_mean {
            caption.insert(
                0,
                "Line: mean over the repetitions, as the paper's tables give it; shaded band: one standard deviation either side; dashed: fitted model."
                    .into(),
            );
        }
        if is_stats && by_min {
            caption.insert(
                0,
                "Line: minimum over trials; shaded band: minimum to median; whiskers: median to maximum (cut at twice the highest median); dashed: fitted model."
                    .into(),
            );
        }
        let (svg, err) = match plot::xy_svg(&plot) {
            Ok(svg) => (svg, None),
            Err(e) => (String::new(), Some(format!("could not draw: {e}"))),
        };
        caption.extend(err);
        out.push(Figure {
            id: format!("fig-{section_id}-{}{suffix}", slug(q)),
            title: format!("{} against {}", axis_label(q), axis_label(x)),
            svg,
            caption,
        });
    }
    out
}

/// 96 x values from `lo` to `hi`, geometric when both are positive.
fn sample(lo: f64, hi: f64) -> impl Iterator<Item = f64> {
    let geometric = lo > 0.0 && hi > lo;
    (0..96).map(move |i| {
        let t = i as f64 / 95.0;
        if geometric {
            lo * (hi / lo).powf(t)
        } else {
            lo + (hi - lo) * t
        }
    })
}

/// Writes `dir/index.html`, `dir/report.md` and one SVG per figure; returns the
/// files written.
pub fn write(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, ReportWriteError> {
    let werr = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReportWriteError::Write { path, source }
    };
    std::fs::create_dir_all(dir).map_err(werr(dir))?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> Result<(), ReportWriteError> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(werr(&p))?;
        written.push(p);
        Ok(())
    };
    put("index.html", &to_html(report))?;
    put("report.md", &to_markdown(report))?;
    for s in &report.sections {
        for f in &s.figures {
            if !f.svg.is_empty() {
                put(&format!("{}.svg", f.id), &f.svg)?;
            }
        }
    }
    Ok(written)
}
