//! Figures in the shape of a paper's, for the kernels whose points mix several
//! sweeps or whose fits need their own formula, one file per paper: Hockney's
//! s_1/2 per synchronisation method (`hockney`), Gonzalez's SCI decomposition,
//! validation and projection (Gonzalez 2000, Figs. 12-14: `sci`), Lamanna's
//! speedup and message latency (`lamanna`) and Krumme & Greenfield's F S R A U E
//! (`krumme_greenfield`). Each reads fields by name and leaves out, with a note,
//! what a result file does not carry; this file holds what they share: the
//! dispatch by kernel, the drawing of a figure or the reason it failed, and the
//! measured series of a sweep.

mod hockney;
mod krumme_greenfield;
mod lamanna;
mod sci;

use super::{Entry, Figure, plot};
use crate::kernels::decomposition::DECOMPOSITION as KG_DECOMPOSITION;
use crate::kernels::scibench::{DECOMPOSITION, PROJECTION, SCI_TOPOLOGY, VALIDATION};
use crate::kernels::speedup;
use crate::results::Point;

pub(super) use hockney::hockney_sync_summary;

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
        SCI_TOPOLOGY => Some(sci::topology(id, entries)),
        DECOMPOSITION => Some(sci::decomposition(id, entries)),
        VALIDATION => Some(sci::validation(id, entries)),
        PROJECTION => Some(sci::projection(id, entries)),
        speedup::NAME => Some(lamanna::speedup(id, entries)),
        KG_DECOMPOSITION => Some(krumme_greenfield::figures(id, entries)),
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
