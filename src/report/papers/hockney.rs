//! Hockney's synchronisation methods (section 3.2, Figs. 3-6): the summary of
//! every `hockney-sync` result, s_1/2 per method as bars with their standard
//! errors, and time against grain with every method's line in one plot.

use super::{bars, measured, xy};
use crate::report::figures::sample;
use crate::report::fits::evaluate_fit;
use crate::report::{Entry, Figure, axis_label, plot};
use crate::results::{FitResult, Point};

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
pub(in crate::report) fn hockney_sync_summary(entries: &[Entry<'_>]) -> Vec<Figure> {
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
