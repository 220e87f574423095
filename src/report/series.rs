//! How a figure's points split into series, and how a fit names the series
//! it belongs to: the grouping variables in the order they are tried, a
//! series' name as the kernels write it in their fits' models (`P = 4`,
//! `N = 64 bytes`, `50% load`), and the match of a model against it. The
//! generic figures and the fits drawn on them both read these.

use crate::results::{Point, num};
use std::collections::BTreeMap;

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
pub(super) fn group_var(points: &[&Point], x: &str) -> Option<String> {
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
pub(super) fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        num(v)
    }
}

/// A series' name for a value of the grouping variable, as the kernels write it in
/// their fits' models (`P = 4`, `N = 64 bytes`, `50% load`).
pub(super) fn group_text(g: &str, v: f64) -> String {
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
pub(super) fn names(model: &str, text: &str) -> bool {
    model.match_indices(text).any(|(i, _)| {
        !model[i + text.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
    })
}
