//! Gonzalez's SCI benchmarks (Gonzalez 2000): ping-pong per emulated ring or
//! torus, the model's components against size (Fig. 12, with Table 1's lines),
//! model against measurement by size and by ring size with each experiment's
//! split into its components (Fig. 13), and the projected latencies against
//! total nodes per dimension count with their crossovers (Fig. 14).

use super::{bars, label, measured, missing, xy};
use crate::report::figures::sample;
use crate::report::fits::evaluate_fit;
use crate::report::series::plain;
use crate::report::{Entry, Figure, axis_label, plot, slug};
use crate::results::Point;

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

pub(super) fn topology(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
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
pub(super) fn decomposition(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
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
pub(super) fn validation(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut figs = fig13(id, entries);
    figs.extend(entries.iter().map(|e| split(id, entries, e)));
    figs
}

/// Fig. 13a and 13b: the measured and the modelled ping-pong of every file
/// against message size, then against ring size.
fn fig13(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
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
    figs
}

/// One file's split per experiment: stacked model components, the
/// measurement a diamond.
fn split(id: &str, entries: &[Entry<'_>], e: &Entry<'_>) -> Figure {
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
        return missing(
            fid,
            title,
            "the points carry no model components (model_overhead_ns ...); results written before they were added".into(),
        );
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
    bars(
        fid,
        title,
        &chart,
        vec!["Bars: the model's ping-pong, count x component for each of o (sender and receiver, both directions), l_s, l_f and l_p; diamond: the measured minimum. Sizes below 64 bytes cost a whole 64-byte packet in the model.".into()],
    )
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
pub(super) fn projection(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
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
