//! The generic figures of a report section: each measured quantity against the
//! swept variable, one series per value of a second swept variable, with the
//! fits overlaid, and CPU-pair heat maps.

use super::fits::{
    add_breakpoints, axis_label, evaluate_fit, fit_quantity, fit_range, fit_subset, fit_x_at,
};
use super::series::{group_text, names};
use super::{Entry, Figure, plot, slug};
use crate::analysis::reports_mean;
use crate::results::{Point, PointValue, num};
use std::collections::BTreeSet;

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

/// The x variable: the first of [`X_PREFERENCE`] that varies over the points, then
/// any other swept variable that varies.
pub(super) fn choose_x(points: &[&Point]) -> Option<String> {
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

/// What one figure draws: the quantity `q` against `x`, each entry's points
/// split into series by `group`, from `files` entries.
#[derive(Clone, Copy)]
struct Axes<'s> {
    x: &'s str,
    group: Option<&'s str>,
    q: &'s str,
    files: usize,
}

/// A figure in the making: the plot and the notes under it.
struct Draft {
    plot: plot::XyPlot,
    caption: Vec<String>,
}

impl Draft {
    /// Adds a note once.
    fn note(&mut self, n: String) {
        if !self.caption.contains(&n) {
            self.caption.push(n);
        }
    }
}

/// One entry's points that carry the quantity, split into series (one per value
/// of the grouping variable), and the fits that name no series.
struct EntrySeries<'p> {
    with_q: Vec<&'p Point>,
    groups: Vec<(Option<f64>, Vec<&'p Point>)>,
    group_texts: Vec<String>,
    single_fits: Vec<usize>,
}

/// One series as drawn: its group value and text, its points, colour and x range.
struct Drawn<'a, 'p> {
    gv: Option<f64>,
    gtext: Option<String>,
    points: &'a [&'p Point],
    colour: usize,
    x_range: (f64, f64),
}

/// The measured quantities of the entries: distributions first, then plain
/// measured numbers, each in order of first appearance.
fn measured_quantities(entries: &[Entry<'_>]) -> (Vec<String>, Vec<String>) {
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
    (stats_q, number_q)
}

/// The measured quantities of the entries against `x`, one figure per quantity;
/// `group` splits each entry's points into series; `suffix` makes the ids unique
/// when the same quantity is drawn against several axes.
pub(super) fn xy_figures(
    section_id: &str,
    x: &str,
    group: Option<&str>,
    suffix: &str,
    entries: &[Entry<'_>],
) -> Vec<Figure> {
    let (stats_q, number_q) = measured_quantities(entries);
    let mut out = Vec::new();
    for q in stats_q.iter().chain(&number_q) {
        let axes = Axes {
            x,
            group,
            q,
            files: entries.len(),
        };
        let id = format!("fig-{section_id}-{}{suffix}", slug(q));
        out.extend(quantity_figure(id, axes, entries, stats_q.contains(q)));
    }
    out
}

/// The figure of one quantity, or `None` where no entry has a point to draw.
fn quantity_figure(
    id: String,
    a: Axes<'_>,
    entries: &[Entry<'_>],
    is_stats: bool,
) -> Option<Figure> {
    // A time against message size is read on log axes, however few decades it
    // spans, so that every transport's latency figure has the same shape.
    let latency = a.x == "size_bytes" && a.q.ends_with("_ns");
    let mut d = Draft {
        plot: plot::XyPlot {
            x_label: axis_label(a.x),
            y_label: axis_label(a.q),
            force_log_x: latency,
            force_log_y: latency,
            ..Default::default()
        },
        caption: Vec::new(),
    };
    let mut drawn = 0;
    let (mut by_min, mut by_mean) = (false, false);
    for e in entries {
        let spread = if reports_mean(&e.result.method) {
            by_mean = true;
            plot::Spread::MeanSd
        } else {
            by_min = true;
            plot::Spread::MinMedianMax
        };
        drawn += draw_entry(&mut d, a, e, is_stats, spread);
        bandwidth_markers(&mut d, a, e);
    }
    if drawn == 0 {
        return None;
    }
    let mut caption = d.caption;
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
    let (svg, err) = match plot::xy_svg(&d.plot) {
        Ok(svg) => (svg, None),
        Err(e) => (String::new(), Some(format!("could not draw: {e}"))),
    };
    caption.extend(err);
    Some(Figure {
        id,
        title: format!("{} against {}", axis_label(a.q), axis_label(a.x)),
        svg,
        caption,
    })
}

/// An entry's points carrying the quantity, in series by the grouping variable.
fn entry_series<'p>(a: Axes<'_>, e: &Entry<'p>) -> EntrySeries<'p> {
    let with_q: Vec<&'p Point> = e
        .result
        .points
        .iter()
        .filter(|p| p.number(a.x).is_some() && p.0.contains_key(a.q))
        .collect();
    let mut groups: Vec<(Option<f64>, Vec<&'p Point>)> = Vec::new();
    for p in &with_q {
        let g = a.group.and_then(|g| p.number(g));
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
        .filter_map(|(v, _)| Some(group_text(a.group?, (*v)?)))
        .collect();
    let single_fits: Vec<usize> = e
        .result
        .fits
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            fit_quantity(f) == a.q
                && !f.x.contains(", ")
                && !group_texts.iter().any(|t| names(&f.model, t))
                && evaluate_fit(f, None).is_ok()
        })
        .map(|(i, _)| i)
        .collect();
    EntrySeries {
        with_q,
        groups,
        group_texts,
        single_fits,
    }
}

/// The measured points of a series: `(x, line, band)` as `spread` draws them.
fn series_points(points: &[&Point], a: Axes<'_>, spread: plot::Spread) -> Vec<plot::Measured> {
    let mut pts: Vec<plot::Measured> = points
        .iter()
        .filter_map(|p| {
            let xv = p.number(a.x)?;
            match (p.0.get(a.q)?, spread) {
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
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// Draws an entry's series and their fits; returns how many points it drew.
fn draw_entry(
    d: &mut Draft,
    a: Axes<'_>,
    e: &Entry<'_>,
    is_stats: bool,
    spread: plot::Spread,
) -> usize {
    let s = entry_series(a, e);
    let mut ungrouped_drawn: BTreeSet<usize> = BTreeSet::new();
    let mut drawn = 0;
    for (gi, (gv, pts_g)) in s.groups.iter().enumerate() {
        let pts = series_points(pts_g, a, spread);
        if pts.is_empty() {
            continue;
        }
        drawn += pts.len();
        // Several files: one hue per file, its series in shades of it.
        let colour = if a.files > 1 {
            plot::shade(e.colour, gi)
        } else {
            gi
        };
        let gtext = a.group.zip(*gv).map(|(g, v)| group_text(g, v));
        let mut label = match (&gtext, a.files) {
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
        let x_range = (pts[0].0, pts[pts.len() - 1].0);
        d.plot.series.push(plot::Series {
            spread,
            label,
            colour,
            points: pts,
        });
        let series = Drawn {
            gv: *gv,
            gtext,
            points: pts_g,
            colour,
            x_range,
        };
        draw_fits(d, a, e, &s, &series, &mut ungrouped_drawn);
    }
    drawn
}

/// Draws the fits of the quantity over a series: a fit of one series on that
/// series, a fit of them all once (`ungrouped_drawn` remembers which).
fn draw_fits(
    d: &mut Draft,
    a: Axes<'_>,
    e: &Entry<'_>,
    s: &EntrySeries<'_>,
    series: &Drawn<'_, '_>,
    ungrouped_drawn: &mut BTreeSet<usize>,
) {
    let n_groups = s.groups.len();
    for (fi, f) in e.result.fits.iter().enumerate() {
        if fit_quantity(f) != a.q {
            continue;
        }
        let fit_x = f.x.split(", ").next().unwrap_or(&f.x);
        let two_vars = f.x.contains(", ");
        let grouped = s.group_texts.iter().any(|t| names(&f.model, t));
        let mine = series.gtext.as_ref().is_some_and(|t| names(&f.model, t));
        let (on, range_pts): (bool, &[&Point]) = if two_vars || grouped {
            (two_vars || mine, series.points)
        } else {
            (ungrouped_drawn.insert(fi), &s.with_q)
        };
        if !on {
            continue;
        }
        let range_pts = &fit_subset(f, range_pts);
        // Several fits of one series (levels, variants): a colour each.
        let colour = if two_vars || grouped {
            series.colour
        } else if s.single_fits.len() > 1 {
            let k = s.single_fits.iter().position(|&i| i == fi).unwrap_or(0);
            if a.files > 1 {
                plot::shade(e.colour, n_groups + k)
            } else {
                n_groups + k
            }
        } else {
            e.colour
        };
        let model = match evaluate_fit(f, a.group.zip(series.gv)) {
            Ok(m) => m,
            // A summary of segments drawn on their own: breakpoints only.
            Err(_) if f.params.contains_key("breakpoints") => {
                add_breakpoints(&mut d.plot, f, fit_x == a.x, colour);
                continue;
            }
            Err(why) => {
                if n_groups == 1 || !d.caption.contains(&format!("{}: {why}", e.label)) {
                    d.caption.push(format!("{}: {why}", e.label));
                }
                continue;
            }
        };
        let curve: Vec<(f64, f64)> = if fit_x == a.x {
            let all: Vec<f64> = range_pts.iter().filter_map(|p| p.number(a.x)).collect();
            let (xlo, xhi) = series.x_range;
            let (lo, hi) = fit_range(f, range_pts, a.x).unwrap_or((
                all.iter().copied().fold(xlo, f64::min),
                all.iter().copied().fold(xhi, f64::max),
            ));
            sample(lo, hi).map(|x| (x, (model.f)(x))).collect()
        } else {
            // Against another variable the points carry: through them.
            let mut c: Vec<(f64, f64)> = range_pts
                .iter()
                .filter_map(|p| Some((p.number(a.x)?, (model.f)(fit_x_at(p, fit_x)?))))
                .collect();
            c.sort_by(|a, b| a.0.total_cmp(&b.0));
            c.dedup_by(|a, b| a.0 == b.0);
            if c.is_empty() {
                d.note(format!(
                    "{}: fit {} is against {}, which the points do not carry; not drawn",
                    e.label, f.model, f.x
                ));
                continue;
            }
            c
        };
        if let Some(n) = model.note {
            d.note(n);
        }
        if curve.len() < 2 {
            continue;
        }
        d.plot.curves.push(plot::Curve {
            flagged: f.flagged,
            label: if a.files > 1 {
                format!("{} fit: {}", e.label, f.model)
            } else {
                format!("fit: {}", f.model)
            },
            colour,
            points: curve,
        });
        if f.flagged {
            d.caption.push(format!(
                "{}: the fit {} is flagged (R² {:.3}); its line is drawn but not to be trusted.",
                e.label, f.model, f.r2
            ));
        }
        if f.y.contains(".median") {
            d.note(format!("{} is fitted to the medians.", f.model));
        }
        add_breakpoints(&mut d.plot, f, fit_x == a.x, colour);
    }
}

/// Half-peak and 90 % sizes of a latency line, on its bandwidth plot.
fn bandwidth_markers(d: &mut Draft, a: Axes<'_>, e: &Entry<'_>) {
    if !(a.q.contains("bandwidth") && a.x == "size_bytes") {
        return;
    }
    for f in &e.result.fits {
        if let Some(&nh) = f.params.get("n_half_bytes")
            && nh.is_finite()
            && nh > 0.0
            && !d.plot.markers.iter().any(|m| m.x == nh)
        {
            d.plot.markers.push(plot::Marker {
                x: nh,
                label: format!("50%: {} B", num(nh)),
                colour: e.colour,
            });
            d.plot.markers.push(plot::Marker {
                x: 9.0 * nh,
                label: format!("90%: {} B", num(9.0 * nh)),
                colour: e.colour,
            });
            d.caption.push(format!(
                "{}: 50% and 90% of the asymptotic bandwidth are reached at n_1/2 = {} B and 9 n_1/2 = {} B (from the fit {}).",
                e.label,
                num(nh),
                num(9.0 * nh),
                f.model
            ));
        }
    }
}

/// 96 x values from `lo` to `hi`, geometric when both are positive.
pub(super) fn sample(lo: f64, hi: f64) -> impl Iterator<Item = f64> {
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
