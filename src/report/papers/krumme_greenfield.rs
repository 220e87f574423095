//! Krumme & Greenfield's decomposition of a message's cost into F S R A U E, as
//! one stacked bar per message size (and per version of the background
//! computation `Q`), in the paper's capitals: the means of the repetitions, as
//! the paper's tables quote them. A is a difference of measured times and is
//! often negative: such a part hangs below zero, outlined. Beside it, the six
//! against message size with Table 3's lines `X = X0 + X1 n` (integer Q).

use super::{bars, xy};
use crate::report::figures::sample;
use crate::report::{Entry, Figure, plot};
use crate::results::Point;

/// The six parts, in the order a message meets them, with their point fields.
const PARTS: [(&str, &str); 6] = [
    ("F", "f_ns"),
    ("S", "s_ns"),
    ("R", "r_ns"),
    ("A", "a_ns"),
    ("U", "u_ns"),
    ("E", "e_ns"),
];

/// A category's name: the message size, and the version of Q where there are two.
fn category(p: &Point, two_q: bool) -> String {
    let size = p
        .number("size_bytes")
        .map_or("?".into(), |s| format!("{s} B"));
    match (two_q, p.number("q_float")) {
        (true, Some(q)) if q != 0.0 => format!("{size} float Q"),
        (true, _) => format!("{size} integer Q"),
        _ => size,
    }
}

/// One stacked F S R A U E figure per file, and one of the six lines.
pub(super) fn figures(id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    entries
        .iter()
        .enumerate()
        .flat_map(|(i, e)| [stacked(id, i, e), lines(id, i, e)])
        .collect()
}

/// The six means against message size for integer Q, each with Table 3's line.
fn lines(id: &str, i: usize, e: &Entry<'_>) -> Figure {
    let integer: Vec<&Point> = e
        .result
        .points
        .iter()
        .filter(|p| p.number("q_float").unwrap_or(0.0) == 0.0)
        .collect();
    let mut plot = plot::XyPlot {
        x_label: "message size n (bytes)".into(),
        y_label: "time per message (ns)".into(),
        ..Default::default()
    };
    let mut caption = vec![
        "Integer Q: each time's mean over the repetitions against message size; dashed, Table 3's line X = X0 + X1 n fitted over 16-2000 B.".to_string(),
    ];
    for (c, (letter, field)) in PARTS.iter().enumerate() {
        let mut pts: Vec<plot::Measured> = integer
            .iter()
            .filter_map(|p| Some((p.number("size_bytes")?, p.stats(field)?.mean, None)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        plot.series.push(plot::Series {
            label: (*letter).into(),
            colour: c,
            spread: plot::Spread::MeanSd,
            points: pts,
        });
        let l = letter.to_lowercase();
        let fit = e.result.fits.iter().find(|f| {
            f.model.starts_with(&format!(
                "{letter} = {letter}0 + {letter}1 n (integer Q, 16-2000 B"
            ))
        });
        let params = fit.and_then(|f| {
            let p = |n: String| f.params.get(&n).copied();
            Some((
                p(format!("int_{l}0_ns"))?,
                p(format!("int_{l}1_ns_per_byte"))?,
                f.flagged,
            ))
        });
        match params {
            Some((x0, x1, flagged)) => plot.curves.push(plot::Curve {
                label: format!("{letter} = {letter}0 + {letter}1 n"),
                colour: c,
                points: sample(16.0, 2000.0).map(|n| (n, x0 + x1 * n)).collect(),
                flagged,
            }),
            None => caption.push(format!("{letter}: no Table 3 line in this file")),
        }
    }
    xy(
        format!("fig-{id}-fsraue-lines-{i}"),
        format!("F S R A U E against message size, {}", e.label),
        &plot,
        caption,
    )
}

/// The six stacked per message size.
fn stacked(id: &str, i: usize, e: &Entry<'_>) -> Figure {
    let mut points: Vec<&Point> = e
        .result
        .points
        .iter()
        .filter(|p| p.number("size_bytes").is_some() && p.stats("f_ns").is_some())
        .collect();
    let q = |p: &Point| p.number("q_float").unwrap_or(0.0);
    let size = |p: &Point| p.number("size_bytes").unwrap_or(0.0);
    points.sort_by(|a, b| q(a).total_cmp(&q(b)).then(size(a).total_cmp(&size(b))));
    let two_q = points.iter().any(|p| q(p) != q(points[0]));
    let chart = plot::BarChart {
        categories: points.iter().map(|p| category(p, two_q)).collect(),
        x_label: "message size".into(),
        y_label: "time per message (ns)".into(),
        series: PARTS
            .iter()
            .enumerate()
            .map(|(c, (letter, field))| plot::BarSeries {
                label: (*letter).into(),
                colour: c,
                values: points
                    .iter()
                    .map(|p| p.stats(field).map(|s| s.mean))
                    .collect(),
                errors: vec![None; points.len()],
            })
            .collect(),
        stacked: true,
        ..Default::default()
    };
    let negative: Vec<&str> = PARTS
        .iter()
        .filter(|(_, f)| {
            points
                .iter()
                .any(|p| p.stats(f).is_some_and(|s| s.mean < 0.0))
        })
        .map(|(l, _)| *l)
        .collect();
    let mut caption = vec![
                "Each bar is one message's cost as Krumme & Greenfield split it: F (format, the write call), S (send: the sender's lost computation), R (receive: the receiver's), A (accept: the read call before arrival), U (unformat: the rest of the read call), E (elapsed, one hop); the means of the repetitions, stacked.".to_string(),
            ];
    if !negative.is_empty() {
        caption.push(format!(
                    "Negative here: {} (a difference of measured times, where the chain of solution accumulates errors), drawn below zero and outlined in black.",
                    negative.join(", ")
                ));
    }
    bars(
        format!("fig-{id}-fsraue-{i}"),
        format!("F S R A U E per message size, {}", e.label),
        &chart,
        caption,
    )
}
