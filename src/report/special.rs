//! Figures in the shape of a paper's, for the kernels whose points mix several
//! sweeps or whose fits need their own formula: Hockney's s_1/2 per synchronisation
//! method, the SCI decomposition, validation and projection (Gonzalez 2000, Figs.
//! 12-14), Lamanna's speedup and (in `krumme_greenfield`) Krumme & Greenfield's
//! F S R A U E. Each reads fields by name and leaves out, with a
//! note, what a result file does not carry.

use super::figures::{plain, sample};
use super::fits::evaluate_fit;
use super::{Entry, Figure, axis_label, plot, slug};
use crate::kernels::decomposition::DECOMPOSITION as KG_DECOMPOSITION;
use crate::kernels::scibench::{DECOMPOSITION, PROJECTION, SCI_TOPOLOGY, VALIDATION};
use crate::kernels::speedup;
use crate::results::{FitResult, Point, num};

/// A figure from an x-y plot (or the reason it could not be drawn).
pub(super) fn xy(id: String, title: String, p: &plot::XyPlot, caption: Vec<String>) -> Figure {
    drawn(id, title, plot::xy_svg(p), caption)
}

/// A figure from a bar chart (or the reason it could not be drawn).
pub(super) fn bars(id: String, title: String, p: &plot::BarChart, caption: Vec<String>) -> Figure {
    drawn(id, title, plot::bar_svg(p), caption)
}

/// A figure from a drawing, or with the reason it failed in its caption.
fn drawn<E: std::fmt::Display>(
    id: String,
    title: String,
    svg: Result<String, E>,
    mut caption: Vec<String>,
) -> Figure {
    let svg = svg.unwrap_or_else(|e| {
        caption.push(format!("could not draw: {e}"));
        String::new()
    });
    Figure {
        id,
        title,
        svg,
        caption,
    }
}

/// A figure that cannot be drawn from these files, with the reason.
fn missing(id: String, title: String, why: String) -> Figure {
    Figure {
        id,
        title,
        svg: String::new(),
        caption: vec![format!("not drawn: {why}")],
    }
}

/// The kernels whose report sections have figures of their own.
pub const PRESENTED: &[&str] = &[
    SCI_TOPOLOGY,
    DECOMPOSITION,
    VALIDATION,
    PROJECTION,
    speedup::NAME,
    KG_DECOMPOSITION,
];

/// The figures of a section whose kernel has its own, replacing the generic ones;
/// `None` for the others.
pub(super) fn figures(id: &str, entries: &[Entry<'_>]) -> Option<Vec<Figure>> {
    match entries.first()?.result.kernel.as_str() {
        SCI_TOPOLOGY => Some(sci_topology(id, entries)),
        DECOMPOSITION => Some(sci_decomposition(id, entries)),
        VALIDATION => Some(sci_validation(id, entries)),
        PROJECTION => Some(sci_projection(id, entries)),
        speedup::NAME => Some(speedup(id, entries)),
        KG_DECOMPOSITION => Some(super::krumme_greenfield::figures(id, entries)),
        _ => None,
    }
}

/// `(x, y)` of the points that have both, sorted by x, as measured points.
fn measured(points: &[&Point], x: &str, y: &str) -> Vec<plot::Measured> {
    let mut v: Vec<plot::Measured> = points
        .iter()
        .filter_map(|p| {
            let xv = p.number(x)?;
            match p.stats(y) {
                Some(s) => Some((xv, s.min, Some((s.median, s.max)))),
                None => Some((xv, p.number(y)?, None)),
            }
        })
        .filter(|m| m.0.is_finite() && m.1.is_finite())
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The series label of an entry: `what`, prefixed by the file when several.
fn label(entries: &[Entry<'_>], e: &Entry<'_>, what: &str) -> String {
    if entries.len() > 1 {
        format!("{}: {what}", e.label)
    } else {
        what.to_string()
    }
}

// ---------------------------------------------------------------- Hockney sync

/// s_1/2 of a sync fit with its standard error, from t0 and r_inf
/// (`s_1/2 = t0 r_inf`; relative errors added in quadrature, their covariance
/// ignored).
fn s_half(f: &FitResult) -> Option<(f64, Option<f64>)> {
    let s = *f.params.get("s_half_flop")?;
    let rel = |k: &str| {
        let v = f.params.get(k)?;
        let se = f.std_errors.get(k)?;
        (*v != 0.0).then(|| se / v)
    };
    let se = match (rel("t0_ns"), rel("r_inf_flop_per_s")) {
        (Some(a), Some(b)) => Some(s.abs() * (a * a + b * b).sqrt()),
        _ => None,
    };
    Some((s, se))
}

/// The summary of every `hockney-sync` result: s_1/2 per method as bars with their
/// standard errors, and time against grain with every method's line in one plot.
pub(super) fn hockney_sync_summary(entries: &[Entry<'_>]) -> Vec<Figure> {
    let id = "hockney-sync-methods";
    let mut methods: Vec<String> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for e in entries {
        let m = e.result.transport.clone().unwrap_or_default();
        if !methods.contains(&m) {
            methods.push(m);
        }
        let f = file_of(&e.label);
        if !files.contains(&f) {
            files.push(f);
        }
    }
    let mut caption = vec![
        "Bars: s_1/2 = t0 r_inf of the fit t = t0 + s/r_inf (eq. 10b), the grain at which half of r_inf is reached; whiskers: ± one standard error from the fit's errors of t0 and r_inf. Log scale.".to_string(),
    ];
    let mut chart = plot::BarChart {
        categories: methods.clone(),
        x_label: "synchronisation method".into(),
        y_label: "s_1/2 (flop)".into(),
        log_y: true,
        ..Default::default()
    };
    for (fi, file) in files.iter().enumerate() {
        let mut values = vec![None; methods.len()];
        let mut errors = vec![None; methods.len()];
        for e in entries.iter().filter(|e| &file_of(&e.label) == file) {
            let m = e.result.transport.clone().unwrap_or_default();
            let Some(mi) = methods.iter().position(|x| *x == m) else {
                continue;
            };
            match e.result.fits.iter().find_map(s_half) {
                Some((s, se)) if s > 0.0 => {
                    values[mi] = Some(s);
                    errors[mi] = se.map(|se| ((s - se).max(s / 100.0), s + se));
                }
                _ => caption.push(format!("{}: no s_1/2 fitted for {m}", e.label)),
            }
        }
        chart.series.push(plot::BarSeries {
            label: file.clone(),
            colour: fi,
            values,
            errors,
        });
    }
    if let [only] = &files[..] {
        caption.push(format!("Measured on {only}."));
    }
    let mut figs = vec![bars(
        format!("fig-{id}-s-half"),
        "s_1/2 per synchronisation method".into(),
        &chart,
        caption,
    )];
    // Time against grain, every method with its line.
    let mut p = plot::XyPlot {
        x_label: axis_label("grain_flop"),
        y_label: axis_label("time_ns"),
        ..Default::default()
    };
    let mut caption = vec![
        "Line and dots: minimum over trials per method; dashed, same colour: the method's fit t = t0 + s/r_inf.".to_string(),
    ];
    for (i, e) in entries.iter().enumerate() {
        let m = e.result.transport.clone().unwrap_or_default();
        let pts: Vec<&Point> = e.result.points.iter().collect();
        let mut series = measured(&pts, "grain_flop", "time_ns");
        // Whiskers and bands of eight methods would hide each other.
        for s in &mut series {
            s.2 = None;
        }
        if series.is_empty() {
            continue;
        }
        let (lo, hi) = (series[0].0, series[series.len() - 1].0);
        p.series.push(plot::Series {
            spread: plot::Spread::MinMedianMax,
            label: if files.len() > 1 {
                format!("{m} ({})", e.label)
            } else {
                m.clone()
            },
            colour: i,
            points: series,
        });
        for f in e.result.fits.iter().filter(|f| f.x == "grain_flop") {
            match evaluate_fit(f, None) {
                Ok(model) => p.curves.push(plot::Curve {
                    flagged: false,
                    label: String::new(),
                    colour: i,
                    points: sample(lo, hi).map(|x| (x, (model.f)(x))).collect(),
                }),
                Err(why) => caption.push(format!("{m}: {why}")),
            }
        }
    }
    if !p.series.is_empty() {
        figs.push(xy(
            format!("fig-{id}-time"),
            "time against grain, every method".into(),
            &p,
            caption,
        ));
    }
    figs
}

/// The file part of an entry label (`host time #2` → `host time`).
fn file_of(label: &str) -> String {
    match label.rsplit_once(" #") {
        Some((f, n)) if n.chars().all(|c| c.is_ascii_digit()) => f.to_string(),
        _ => label.to_string(),
    }
}

// ------------------------------------------------------------------------ SCI

/// A name for an emulated SCI experiment from its point's counts.
fn experiment_name(p: &Point) -> String {
    let n = |k: &str| p.number(k).unwrap_or(0.0);
    let dims = n("dims");
    let shape = if dims <= 1.0 {
        format!("ring of {}", n("nodes"))
    } else {
        format!("{}-D torus of {}", dims, n("nodes"))
    };
    let hops = n("hops");
    let switches = n("switches");
    let mut s = format!("{shape}, {hops} hop{}", if hops == 1.0 { "" } else { "s" });
    if switches > 0.0 {
        s.push_str(&format!(", {switches} switch"));
    }
    s
}

fn sci_topology(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut figs = Vec::new();
    let mut p = plot::XyPlot {
        x_label: axis_label("size_bytes"),
        y_label: "ping-pong time (ns)".into(),
        ..Default::default()
    };
    let mut ring = plot::XyPlot {
        x_label: "nodes in the ring".into(),
        y_label: "ping-pong time (ns)".into(),
        ..Default::default()
    };
    let mut colour = 0;
    for e in entries {
        let mut by_exp: Vec<(String, Vec<&Point>)> = Vec::new();
        for pt in &e.result.points {
            let name = experiment_name(pt);
            match by_exp.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.push(pt),
                None => by_exp.push((name, vec![pt])),
            }
        }
        for (name, pts) in &by_exp {
            let m = measured(pts, "size_bytes", "ping_pong_ns");
            if m.len() < 2 {
                continue;
            }
            p.series.push(plot::Series {
                spread: plot::Spread::MinMedianMax,
                label: label(entries, e, name),
                colour,
                points: m,
            });
            colour += 1;
        }
        // The ring sweep: 64-byte messages on rings of every size.
        let rings: Vec<&Point> = e
            .result
            .points
            .iter()
            .filter(|p| p.number("dims") == Some(1.0) && p.number("size_bytes") == Some(64.0))
            .collect();
        let mut m = measured(&rings, "nodes", "ping_pong_ns");
        m.dedup_by(|a, b| a.0 == b.0 && a.1 >= b.1);
        if m.len() >= 2 {
            ring.series.push(plot::Series {
                spread: plot::Spread::MinMedianMax,
                label: label(entries, e, "ring, 64 B"),
                colour: e.colour,
                points: m,
            });
        }
    }
    let band =
        "Line: minimum over trials; band to the median, whiskers to the maximum.".to_string();
    if !p.series.is_empty() {
        figs.push(xy(
            format!("fig-{id}-ping_pong_ns"),
            "ping-pong time against message size, per emulated topology".into(),
            &p,
            vec![band.clone()],
        ));
    }
    if !ring.series.is_empty() {
        figs.push(xy(
            format!("fig-{id}-ring-nodes"),
            "ping-pong time of 64-byte messages against ring size".into(),
            &ring,
            vec![
                band,
                "Rings of 2, 4, 6 and 8 nodes are measured in both sweeps; the lower is drawn."
                    .into(),
            ],
        ));
    }
    figs
}

/// The four components of the SCI model, names in the result and in the figures.
const COMPONENTS: [(&str, &str); 4] = [
    ("overhead_o_ns", "overhead o"),
    ("switching_ls_ns", "switching l_s"),
    ("forwarding_lf_ns", "forwarding l_f"),
    ("propagation_lp_ns", "propagation l_p"),
];

/// Fig. 12: each component against message size, log scale, with Table 1's lines.
fn sci_decomposition(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut p = plot::XyPlot {
        x_label: axis_label("size_bytes"),
        y_label: "latency component (ns)".into(),
        ..Default::default()
    };
    let mut caption = vec![
        "Fig. 12's shape: each component solved per message size from the ring and torus experiments (dots); dashed: Table 1's estimates (o as a line from 64 bytes, l_s as its own line, l_f and l_p constant). Values at or below zero (noise larger than the component) cannot be shown on the log axis.".to_string(),
    ];
    for e in entries {
        let pts: Vec<&Point> = e.result.points.iter().collect();
        for (ci, (name, text)) in COMPONENTS.iter().enumerate() {
            let colour = e.colour * COMPONENTS.len() + ci;
            let m: Vec<plot::Measured> = measured(&pts, "size_bytes", name)
                .into_iter()
                .filter(|m| m.1 > 0.0)
                .collect();
            if m.is_empty() {
                caption.push(format!("{}: no {name} in the points", e.label));
                continue;
            }
            let (lo, hi) = (m[0].0, m[m.len() - 1].0);
            p.series.push(plot::Series {
                spread: plot::Spread::MinMedianMax,
                label: label(entries, e, text),
                colour,
                points: m,
            });
            // Table 1: o(m) = o + b (m - 64); l_s(m) = l_s0 + m b_s; l_f, l_p constant.
            let t1 = e
                .result
                .fits
                .iter()
                .find(|f| f.model.starts_with("Table 1"));
            let line: Option<Vec<(f64, f64)>> = match *name {
                "overhead_o_ns" => t1.and_then(|f| {
                    let o = *f.params.get("overhead_o_ns")?;
                    let b = *f.params.get("overhead_per_byte_ns")?;
                    Some(
                        sample(lo.max(64.0), hi.max(64.0))
                            .map(|x| (x, o + b * (x - 64.0)))
                            .collect(),
                    )
                }),
                "switching_ls_ns" => e
                    .result
                    .fits
                    .iter()
                    .find(|f| f.y == "switching_ls_ns")
                    .and_then(|f| evaluate_fit(f, None).ok())
                    .map(|m| sample(lo, hi).map(|x| (x, (m.f)(x))).collect()),
                _ => t1
                    .and_then(|f| f.params.get(*name))
                    .map(|&v| vec![(lo, v), (hi, v)]),
            };
            if let Some(line) = line {
                p.curves.push(plot::Curve {
                    flagged: false,
                    label: String::new(),
                    colour,
                    points: line,
                });
            }
        }
    }
    vec![xy(
        format!("fig-{id}-components"),
        "latency components against message size (Fig. 12)".into(),
        &p,
        caption,
    )]
}

/// Model components of a validation point, as stored by the kernel.
const MODEL_PARTS: [(&str, &str); 4] = [
    ("model_overhead_ns", "overhead 2 o"),
    ("model_switching_ns", "switching"),
    ("model_forwarding_ns", "forwarding"),
    ("model_propagation_ns", "propagation"),
];

/// Fig. 13 (model against measurement, by message size and by ring size) and the
/// model's split of each experiment's ping-pong into its components.
fn sci_validation(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut figs = Vec::new();
    let sweeps = [
        (
            0.0,
            "size_bytes",
            "a",
            "model and measurement against message size, 6-node ring (Fig. 13a)",
        ),
        (
            1.0,
            "nodes",
            "b",
            "model and measurement against ring size, 64-byte messages (Fig. 13b)",
        ),
    ];
    for (sweep, x, tag, title) in sweeps {
        let mut p = plot::XyPlot {
            x_label: if x == "nodes" {
                "nodes in the ring".into()
            } else {
                axis_label(x)
            },
            y_label: "ping-pong time (ns)".into(),
            ..Default::default()
        };
        for e in entries {
            let pts: Vec<&Point> = e
                .result
                .points
                .iter()
                .filter(|p| p.number("sweep") == Some(sweep))
                .collect();
            for (k, (q, text)) in [
                ("measured_ping_pong_ns", "measured (min)"),
                ("model_ping_pong_ns", "model, eqs. 21-25"),
            ]
            .iter()
            .enumerate()
            {
                let m = measured(&pts, x, q);
                if !m.is_empty() {
                    p.series.push(plot::Series {
                        spread: plot::Spread::MinMedianMax,
                        label: label(entries, e, text),
                        colour: 2 * e.colour + k,
                        points: m,
                    });
                }
            }
        }
        let fid = format!("fig-{id}-fig13{tag}");
        if p.series.is_empty() {
            figs.push(missing(
                fid,
                title.into(),
                format!(
                    "no points of sweep {sweep} with measured_ping_pong_ns and model_ping_pong_ns"
                ),
            ));
        } else {
            figs.push(xy(
                fid,
                title.into(),
                &p,
                vec!["The model is evaluated with this machine's Table 1 estimates (sci-decomposition).".into()],
            ));
        }
    }
    // The split per experiment: stacked model components, the measurement a diamond.
    for e in entries {
        let pts: Vec<&Point> = e.result.points.iter().collect();
        let nth = if entries.len() > 1 {
            format!("-{}", e.colour + 1)
        } else {
            String::new()
        };
        let fid = format!("fig-{id}-split{nth}");
        let title = format!(
            "ping-pong split into model components per experiment{}",
            if entries.len() > 1 {
                format!(", {}", e.label)
            } else {
                String::new()
            }
        );
        if !pts.iter().any(|p| p.number(MODEL_PARTS[0].0).is_some()) {
            figs.push(missing(
                fid,
                title,
                "the points carry no model components (model_overhead_ns ...); results written before they were added".into(),
            ));
            continue;
        }
        let categories: Vec<String> = pts
            .iter()
            .map(|p| {
                let n = |k: &str| p.number(k).unwrap_or(0.0);
                if p.number("sweep") == Some(1.0) {
                    format!("{} nodes", n("nodes"))
                } else {
                    format!("{} B", n("size_bytes"))
                }
            })
            .collect();
        let chart = plot::BarChart {
            categories,
            x_label: "experiment: message size on the 6-node ring, then ring size at 64 B".into(),
            y_label: "ping-pong time (ns)".into(),
            stacked: true,
            series: MODEL_PARTS
                .iter()
                .enumerate()
                .map(|(i, (k, text))| plot::BarSeries {
                    label: (*text).into(),
                    colour: i,
                    values: pts.iter().map(|p| p.number(k)).collect(),
                    errors: vec![],
                })
                .collect(),
            marks: Some((
                "measured (min)".into(),
                pts.iter()
                    .map(|p| p.number("measured_ping_pong_ns"))
                    .collect(),
            )),
            ..Default::default()
        };
        figs.push(bars(
            fid,
            title,
            &chart,
            vec!["Bars: the model's ping-pong, count x component for each of o (sender and receiver, both directions), l_s, l_f and l_p; diamond: the measured minimum. Sizes below 64 bytes cost a whole 64-byte packet in the model.".into()],
        ));
    }
    figs
}

/// The names of the four projection inputs (codes of the `inputs` field).
const INPUTS: [&str; 4] = [
    "this machine",
    "this machine, l_s halved",
    "paper Table 1",
    "paper Table 1, l_s halved",
];

/// Fig. 14: projected latency against total nodes, one line per dimension count,
/// the crossovers marked; per set of inputs and application.
fn sci_projection(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut figs = Vec::new();
    for e in entries {
        let nth = if entries.len() > 1 {
            format!("-{}", e.colour + 1)
        } else {
            String::new()
        };
        let pts = &e.result.points;
        let codes: Vec<f64> = {
            let mut c: Vec<f64> = pts.iter().filter_map(|p| p.number("inputs")).collect();
            c.sort_by(f64::total_cmp);
            c.dedup();
            c
        };
        let has_curves = pts.iter().any(|p| p.number("nodes").is_some());
        if !has_curves {
            figs.push(missing(
                format!("fig-{id}-curves{nth}"),
                "projected latency against nodes (Fig. 14)".into(),
                "the result carries only the crossovers, not the curves (nodes, dims, average_latency_ns); results written before they were added".into(),
            ));
            continue;
        }
        for &code in &codes {
            let name = INPUTS.get(code as usize).copied().unwrap_or("inputs");
            for (q, xq, app, tag) in [
                (
                    "average_latency_ns",
                    "crossover_average_nodes",
                    "average latency",
                    "a",
                ),
                (
                    "multi_unicast_ns",
                    "crossover_multi_unicast_nodes",
                    "one-to-all multi-unicast",
                    "b",
                ),
            ] {
                let mut p = plot::XyPlot {
                    x_label: "total nodes".into(),
                    y_label: format!("{app} (ns)"),
                    force_log_x: true,
                    force_log_y: true,
                    ..Default::default()
                };
                let mut dims: Vec<f64> = pts
                    .iter()
                    .filter(|p| p.number("inputs") == Some(code) && p.number(q).is_some())
                    .filter_map(|p| p.number("dims"))
                    .collect();
                dims.sort_by(f64::total_cmp);
                dims.dedup();
                for &d in &dims {
                    let curve: Vec<&Point> = pts
                        .iter()
                        .filter(|p| p.number("inputs") == Some(code) && p.number("dims") == Some(d))
                        .collect();
                    let mut m = measured(&curve, "nodes", q);
                    for v in &mut m {
                        v.2 = None;
                    }
                    p.series.push(plot::Series {
                        spread: plot::Spread::MinMedianMax,
                        label: format!("{d}-D torus"),
                        colour: d as usize - 1,
                        points: m,
                    });
                }
                let mut caption = vec![format!(
                    "Model with {name}'s components; higher-dimensional tori extrapolated to any node count (real nodes per dimension). Markers: the crossovers, beyond which the next dimension count is faster."
                )];
                for c in pts.iter().filter(|p| p.number("inputs") == Some(code)) {
                    let (Some(a), Some(b)) = (c.number("from_dims"), c.number("to_dims")) else {
                        continue;
                    };
                    match c.number(xq) {
                        Some(n) => p.markers.push(plot::Marker {
                            x: n,
                            label: format!("{a}D→{b}D: {}", plain(n.round())),
                            colour: b as usize - 1,
                        }),
                        None => {
                            caption.push(format!("{a}-D to {b}-D: no crossover within the range"))
                        }
                    }
                }
                if p.series.is_empty() {
                    continue;
                }
                figs.push(xy(
                    format!("fig-{id}-fig14{tag}-{}{nth}", slug(name)),
                    format!("{app} against total nodes, {name} (Fig. 14{tag})"),
                    &p,
                    caption,
                ));
            }
        }
    }
    figs
}

// -------------------------------------------------------------------- speedup

/// Speedup against N per load: benchmark, simulation and the eq. 13 model.
fn speedup(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut loads: Vec<f64> = entries
        .iter()
        .flat_map(|e| &e.result.points)
        .filter(|p| p.number("speedup").is_some())
        .filter_map(|p| p.number("load_recomputations"))
        .collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let mut figs = Vec::new();
    for &load in &loads {
        let mut p = plot::XyPlot {
            x_label: "processors N".into(),
            y_label: "speedup U / T".into(),
            ..Default::default()
        };
        let mut caption = vec![
            "Benchmark: U / T with U the mean N = 1 time; simulation: the simulated N = 1 time over the simulated time at N; dashed: eq. 13's fit T = a + b U/N + c N as U / T; dotted grey: ideal S = N.".to_string(),
        ];
        let mut n_max: f64 = 1.0;
        for e in entries {
            let pts: Vec<&Point> = e
                .result
                .points
                .iter()
                .filter(|p| {
                    p.number("load_recomputations") == Some(load) && p.number("speedup").is_some()
                })
                .collect();
            if pts.is_empty() {
                continue;
            }
            let bench = measured(&pts, "processors", "speedup");
            n_max = bench.iter().map(|m| m.0).fold(n_max, f64::max);
            let u = pts.iter().find_map(|p| p.number("uniprocessor_ms"));
            p.series.push(plot::Series {
                spread: plot::Spread::MinMedianMax,
                label: label(entries, e, "benchmark"),
                colour: 3 * e.colour,
                points: bench,
            });
            // Simulation: its own N = 1 time as U.
            let sim1 = pts
                .iter()
                .find(|p| p.number("processors") == Some(1.0))
                .and_then(|p| p.number("simulated_ms"));
            let sim: Vec<plot::Measured> = match sim1 {
                Some(s1) => {
                    let mut v: Vec<plot::Measured> = pts
                        .iter()
                        .filter_map(|p| {
                            let t = p.number("simulated_ms")?;
                            (t > 0.0).then_some((p.number("processors")?, s1 / t, None))
                        })
                        .collect();
                    v.sort_by(|a, b| a.0.total_cmp(&b.0));
                    v
                }
                None => vec![],
            };
            if sim.is_empty() {
                caption.push(format!("{}: no simulated times", e.label));
            } else {
                p.series.push(plot::Series {
                    spread: plot::Spread::MinMedianMax,
                    label: label(entries, e, "simulation"),
                    colour: 3 * e.colour + 1,
                    points: sim,
                });
            }
            // eq. 13 (the fit with b free first).
            let eq13 = e.result.fits.iter().find(|f| f.model.starts_with("eq. 13"));
            match (eq13, u) {
                (Some(f), Some(u)) => {
                    let g = |k: &str| f.params.get(k).copied();
                    if let (Some(a), Some(b), Some(c)) = (g("a_ms"), g("b"), g("c_ms_per_node")) {
                        let curve: Vec<(f64, f64)> = (0..=60)
                            .map(|i| 1.0 + (n_max - 1.0) * i as f64 / 60.0)
                            .map(|n| (n, u / (a + b * u / n + c * n)))
                            .filter(|(_, s)| s.is_finite() && *s > 0.0)
                            .collect();
                        p.curves.push(plot::Curve {
                            flagged: f.flagged,
                            label: label(entries, e, &format!("fit: {}", f.model)),
                            colour: 3 * e.colour + 2,
                            points: curve,
                        });
                        if f.flagged {
                            caption.push(format!(
                                "{}: the fit {} is flagged (R² {:.3}); its line is not to be trusted.",
                                e.label, f.model, f.r2
                            ));
                        }
                    }
                }
                _ => caption.push(format!("{}: no eq. 13 fit to draw", e.label)),
            }
            if let Some(n) = e
                .result
                .points
                .iter()
                .find(|p| {
                    p.number("load_recomputations") == Some(load)
                        && p.number("optimal_processors_eq15").is_some()
                })
                .and_then(|p| p.number("optimal_processors_eq15"))
                && n >= 1.0
                && n <= n_max
            {
                p.markers.push(plot::Marker {
                    x: n,
                    label: format!("eq. 15 N_opt = {}", num(n)),
                    colour: 3 * e.colour + 2,
                });
            }
        }
        if p.series.is_empty() {
            continue;
        }
        p.curves.push(plot::Curve {
            flagged: false,
            label: String::new(),
            colour: 7,
            points: vec![(1.0, 1.0), (n_max, n_max)],
        });
        figs.push(xy(
            format!("fig-{id}-speedup-load-{}", plain(load)),
            format!(
                "speedup against N, load {} (the product recomputed {} times)",
                plain(load),
                plain(load)
            ),
            &p,
            caption,
        ));
    }
    if figs.is_empty() {
        figs.push(missing(
            format!("fig-{id}-speedup"),
            "speedup against N".into(),
            "no points with speedup, processors and load_recomputations".into(),
        ));
    }
    figs.push(message_latency(id, entries));
    figs
}

/// `T_ML` against size, one series per chain length `H`, with eqs. 7-9's fitted
/// `t_l + L H t_c + (H - 1) t_i` for each.
fn message_latency(id: &str, entries: &[Entry<'_>]) -> Figure {
    let mut p = plot::XyPlot {
        x_label: "message length L (bytes)".into(),
        y_label: "one-way time T_ML (ms)".into(),
        ..Default::default()
    };
    let mut caption = vec![
        "One-way time over a chain of H links with H - 1 store-and-forward ranks (points, per H); dashed: the fit T_ML = t_l + L H t_c + (H - 1) t_i.".to_string(),
    ];
    for e in entries {
        let pts: Vec<&Point> = e
            .result
            .points
            .iter()
            .filter(|p| p.number("hops").is_some() && p.number("one_way_ms").is_some())
            .collect();
        let mut hops: Vec<f64> = pts.iter().filter_map(|p| p.number("hops")).collect();
        hops.sort_by(f64::total_cmp);
        hops.dedup();
        let fit = e
            .result
            .fits
            .iter()
            .find(|f| f.model.starts_with("eqs. 7-9"));
        for (k, &h) in hops.iter().enumerate() {
            let of_h: Vec<&Point> = pts
                .iter()
                .copied()
                .filter(|p| p.number("hops") == Some(h))
                .collect();
            let series = measured(&of_h, "size_bytes", "one_way_ms");
            let colour = 3 * e.colour + k;
            if let Some(f) = fit {
                let g = |k: &str| f.params.get(k).copied().unwrap_or(f64::NAN);
                let (tl, tc, ti) = (g("tl_ms"), g("tc_ms_per_byte"), g("ti_ms"));
                let x_max = series.iter().map(|m| m.0).fold(0.0, f64::max);
                let x_min = series.iter().map(|m| m.0).fold(x_max, f64::min).max(1.0);
                // Sampled geometrically: the size axis may be logarithmic.
                p.curves.push(plot::Curve {
                    flagged: false,
                    label: String::new(),
                    colour,
                    points: (0..=40)
                        .map(|i| x_min * (x_max / x_min).powf(f64::from(i) / 40.0))
                        .map(|l| (l, tl + l * h * tc + (h - 1.0) * ti))
                        .collect(),
                });
            }
            p.series.push(plot::Series {
                spread: plot::Spread::MinMedianMax,
                label: label(entries, e, &format!("H = {}", plain(h))),
                colour,
                points: series,
            });
        }
        match fit {
            Some(f) => caption.push(format!(
                "{}: t_l = {} ms, t_c = {} ms/byte, t_i = {} ms (R² {:.3}{})",
                e.label,
                num(f.params.get("tl_ms").copied().unwrap_or(f64::NAN)),
                num(f.params.get("tc_ms_per_byte").copied().unwrap_or(f64::NAN)),
                num(f.params.get("ti_ms").copied().unwrap_or(f64::NAN)),
                f.r2,
                if f.flagged { ", flagged" } else { "" }
            )),
            None => caption.push(format!("{}: no T_ML fit", e.label)),
        }
    }
    let fig_id = format!("fig-{id}-message-latency");
    let title = "message latency T_ML against length, per chain length H (eqs. 7-9)".to_string();
    if p.series.is_empty() {
        return missing(
            fig_id,
            title,
            "no points with hops, size_bytes and one_way_ms".into(),
        );
    }
    xy(fig_id, title, &p, caption)
}
