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
//! `papers`): s_1/2 per synchronisation method, the SCI decomposition, validation
//! and projections, the speedup against N, Krumme & Greenfield's F S R A U E
//! stacked per message size; a figure whose fields a file lacks is
//! left out with a note.

#![forbid(unsafe_code)]

mod axes;
mod figures;
mod fits;
pub mod gallery;
mod heatmap;
mod html;
mod markdown;
mod papers;
mod plot;
mod series;

use crate::analysis::kernel_key;
use crate::results::{KernelResult, MachineCard, Point, PointValue, ResultFile, num};
use figures::{choose_x, xy_figures};
use heatmap::heat_maps;
use series::group_var;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use figures::X_PREFERENCE;
pub use fits::axis_label;
pub use html::to_html;
pub use markdown::to_markdown;
pub use papers::PRESENTED;
pub use series::GROUP_PREFERENCE;

/// A whole report.
#[derive(Debug, Clone)]
pub struct Report {
    /// One entry per input file.
    pub sources: Vec<Source>,
    /// Each file's machine card (its stored summary, or computed).
    pub cards: Vec<MachineCard>,
    /// One row per kernel result: its points' spread, placement and load.
    pub trust: Vec<TrustRow>,
    /// One section per kernel (and transport, and distance class).
    pub sections: Vec<Section>,
    /// The gallery's index: one row a file ([`gallery`]).
    pub index: Table,
}

impl Report {
    /// The sections' methods, each once, in the order of their first section:
    /// the contents' headings.
    pub fn methods(&self) -> Vec<&str> {
        let mut methods: Vec<&str> = Vec::new();
        for sec in &self.sections {
            if !methods.contains(&sec.method.as_str()) {
                methods.push(&sec.method);
            }
        }
        methods
    }
}

/// An input file, described.
#[derive(Debug, Clone)]
pub struct Source {
    /// Host and start time: the legend of its series.
    pub label: String,
    /// `name: value` lines about the machine and the build.
    pub facts: Vec<(String, String)>,
}

/// One kernel result in the trust grid.
#[derive(Debug, Clone)]
pub struct TrustRow {
    /// The section it links to.
    pub section: String,
    /// File label and kernel.
    pub label: String,
    /// Per point: its swept variables in words and the relative spread (max - min)
    /// / min of its first measured distribution, `None` without one.
    pub cells: Vec<(String, Option<f64>)>,
    /// Whether the ranks were virtual, hosted or oversubscribed.
    pub unusual_placement: bool,
    /// Whether other processes used CPUs during the kernel.
    pub busy: bool,
    /// How many warnings it has.
    pub warnings: usize,
}

/// One kernel's figures and tables across the files.
#[derive(Debug, Clone)]
pub struct Section {
    /// HTML id (`pingpong-mailbox`).
    pub id: String,
    /// The method (paper) it belongs to, for the grouped contents.
    pub method: String,
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
    /// Where the file's CPUs sit (the heat map's order and bands), if recorded.
    places: Option<&'a [crate::platform::CpuPlace]>,
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
            let key = section_key(r);
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
                places: file.machine.cpu_places.as_deref(),
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
            places: e.places,
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
                method: "hockney".into(),
                title: "hockney-sync, every synchronisation method (hockney)".into(),
                figures: papers::hockney_sync_summary(&sync),
                notes: vec![],
                tables: vec![],
            },
        );
    }
    let trust = files
        .iter()
        .zip(&sources)
        .flat_map(|(f, src)| f.kernels.iter().map(move |k| trust_row(k, &src.label)))
        .collect();
    let named: Vec<(String, &ResultFile)> =
        sources.iter().map(|s| s.label.clone()).zip(files).collect();
    Report {
        index: gallery::index_table(&named),
        sources,
        cards: files.iter().map(crate::analysis::card_of).collect(),
        trust,
        sections,
    }
}

/// The section a kernel result belongs to: `kernel/transport (distance class)`;
/// its HTML id is the key's [`slug`].
fn section_key(r: &KernelResult) -> String {
    let mut key = kernel_key(r);
    if let Some(c) = r.distance_class {
        key.push_str(&format!(" ({c})"));
    }
    key
}

fn trust_row(k: &KernelResult, file: &str) -> TrustRow {
    let cells = k
        .points
        .iter()
        .map(|p| {
            let at: Vec<String> = p.swept().map(|(n, v)| format!("{n}={v}")).collect();
            let spread = p.0.values().find_map(|v| match v {
                PointValue::Stats(s) => Some(s.relative_spread()),
                PointValue::Number(_) => None,
            });
            (at.join(", "), spread)
        })
        .collect();
    TrustRow {
        section: slug(&section_key(k)),
        label: format!("{} {file}", kernel_key(k)),
        cells,
        unusual_placement: k.placement != crate::control::Placement::Pinned,
        busy: k.load.as_ref().is_some_and(|l| l.busy),
        warnings: k.warnings.len(),
    }
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
        figures.extend(heat_maps(&id, entries));
    } else if let Some(special) = papers::figures(&id, entries) {
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
        method: first.method.clone(),
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
