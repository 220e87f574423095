//! Lamanna's speedup benchmark (AFIT thesis, 1988, chapter IV): speedup
//! against N per load for the benchmark and the simulation with eq. 13's
//! fitted line and eq. 15's optimal N, and the message latency `T_ML` against
//! size per chain length with eqs. 7-9's fitted line.

use super::{label, measured, missing, xy};
use crate::report::series::plain;
use crate::report::{Entry, Figure, plot};
use crate::results::{Point, num};

/// Speedup against N per load: benchmark, simulation and the eq. 13 model.
pub(super) fn speedup(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let mut loads: Vec<f64> = entries
        .iter()
        .flat_map(|e| &e.result.points)
        .filter(|p| p.number("speedup").is_some())
        .filter_map(|p| p.number("load_recomputations"))
        .collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let mut figs: Vec<Figure> = loads
        .iter()
        .filter_map(|&load| load_figure(id, entries, load))
        .collect();
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

/// One load's figure: per file the benchmark, the simulation, eq. 13's line
/// and eq. 15's N_opt, then the ideal S = N; `None` where no file has a
/// benchmark point of this load.
fn load_figure(id: &str, entries: &[Entry<'_>], load: f64) -> Option<Figure> {
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
        let sim = simulated_speedup(&pts);
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
        push_eq13(&mut p, &mut caption, entries, e, u, n_max);
        push_optimal(&mut p, e, load, n_max);
    }
    if p.series.is_empty() {
        return None;
    }
    p.curves.push(plot::Curve {
        flagged: false,
        label: String::new(),
        colour: 7,
        points: vec![(1.0, 1.0), (n_max, n_max)],
    });
    Some(xy(
        format!("fig-{id}-speedup-load-{}", plain(load)),
        format!(
            "speedup against N, load {} (the product recomputed {} times)",
            plain(load),
            plain(load)
        ),
        &p,
        caption,
    ))
}

/// The simulation's speedup by N: its own N = 1 time over its time at N
/// (none without a simulated N = 1 time).
fn simulated_speedup(pts: &[&Point]) -> Vec<plot::Measured> {
    let sim1 = pts
        .iter()
        .find(|p| p.number("processors") == Some(1.0))
        .and_then(|p| p.number("simulated_ms"));
    let Some(s1) = sim1 else {
        return vec![];
    };
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

/// Eq. 13's fitted line (the fit with b free first) as the speedup U / T
/// over N in [1, n_max], with a caption line where it is flagged or missing.
fn push_eq13(
    p: &mut plot::XyPlot,
    caption: &mut Vec<String>,
    entries: &[Entry<'_>],
    e: &Entry<'_>,
    u: Option<f64>,
    n_max: f64,
) {
    let eq13 = e.result.fits.iter().find(|f| f.model.starts_with("eq. 13"));
    let (Some(f), Some(u)) = (eq13, u) else {
        caption.push(format!("{}: no eq. 13 fit to draw", e.label));
        return;
    };
    let g = |k: &str| f.params.get(k).copied();
    let (Some(a), Some(b), Some(c)) = (g("a_ms"), g("b"), g("c_ms_per_node")) else {
        return;
    };
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

/// Eq. 15's optimal N for `load`, marked where it lies in [1, n_max].
fn push_optimal(p: &mut plot::XyPlot, e: &Entry<'_>, load: f64, n_max: f64) {
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
