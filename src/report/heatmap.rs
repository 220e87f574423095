//! The core-to-core heat map: a CPU-pair matrix (`cpu_a`, `cpu_b`) drawn as a
//! square of coloured cells, one map per distribution and file, the files' maps
//! of one quantity on one colour scale.
//!
//! The axes follow the machine's topology: where the result file records each
//! CPU's place (`machine.cpu_places`), the CPUs go in its topology order
//! (package, NUMA node, L3 domain, core type, core, SMT siblings side by side)
//! and bands above and left of the map name the packages, the L3 domains (an
//! EPYC's CCDs) and, on a hybrid machine, the core types; a thick line separates
//! packages and a thin one L3 domains, so the blocks of a two-socket or
//! many-CCD machine read at a glance. Files without places fall back to a
//! nearest-neighbour order from the pairs' distance classes, without bands.
//!
//! Up to [`LARGE`] CPUs each cell shows its value. Beyond, cells shrink to a
//! few pixels (the map of 128 CPUs stays about 1,000 pixels wide), values and
//! most axis labels go, and the distance-class summary (pairs, smallest, mean
//! and largest pair) is drawn beside the map, as it is written under every map.

use super::fits::axis_label;
use super::plot::text_style;
use super::{Entry, Figure, slug};
use crate::platform::CpuPlace;
use crate::results::{Point, PointValue};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::collections::{BTreeMap, BTreeSet};

/// Above this many CPUs a map drops its cells' values and draws the class
/// summary beside it.
pub(crate) const LARGE: usize = 64;

/// A run of consecutive CPUs on both axes that share a package (level 0), an L3
/// domain (level 1) or a core type (level 2).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Band {
    /// 0 package, 1 L3 domain, 2 core type.
    pub(crate) level: usize,
    /// What the band is (`package 1`, `L3 5`, `E cores`).
    pub(crate) label: String,
    /// Its first CPU's position on the axis.
    pub(crate) start: usize,
    /// How many CPUs it spans.
    pub(crate) len: usize,
}

/// The CPUs of a pair matrix in the file's topology order, their axis labels
/// (the CPU number, with `P` or `E` on a hybrid machine) and the bands of
/// packages, L3 domains (where a package has several) and core types. CPUs of
/// the matrix without a recorded place go last, in number order.
pub(crate) fn placed_order(
    pts: &[Point],
    places: &[CpuPlace],
) -> (Vec<i64>, Vec<String>, Vec<Band>) {
    let in_matrix: BTreeSet<i64> = pts
        .iter()
        .filter_map(|p| Some([p.number("cpu_a")? as i64, p.number("cpu_b")? as i64]))
        .flatten()
        .collect();
    let placed: Vec<&CpuPlace> = places
        .iter()
        .filter(|p| in_matrix.contains(&(p.cpu as i64)))
        .collect();
    let mut order: Vec<i64> = placed.iter().map(|p| p.cpu as i64).collect();
    let unplaced: Vec<i64> = in_matrix
        .iter()
        .copied()
        .filter(|c| !order.contains(c))
        .collect();
    order.extend(unplaced);
    let labels = order
        .iter()
        .map(|&c| {
            let t = placed
                .iter()
                .find(|p| p.cpu as i64 == c)
                .and_then(|p| p.core_type);
            t.map_or_else(|| c.to_string(), |t| format!("{c}{}", t.letter()))
        })
        .collect();
    let packages: BTreeSet<usize> = placed.iter().map(|p| p.package).collect();
    let domains: BTreeSet<usize> = placed.iter().filter_map(|p| p.l3_domain).collect();
    let mut bands = runs(&placed, 0, |p| Some(format!("package {}", p.package)));
    if domains.len() > packages.len() {
        bands.extend(runs(&placed, 1, |p| p.l3_domain.map(|d| format!("L3 {d}"))));
    }
    bands.extend(runs(&placed, 2, |p| {
        p.core_type.map(|t| format!("{} cores", t.letter()))
    }));
    (order, labels, bands)
}

/// The runs of equal `key` along `placed`, as bands of `level` (CPUs without
/// a key start no band).
fn runs(
    placed: &[&CpuPlace],
    level: usize,
    key: impl Fn(&CpuPlace) -> Option<String>,
) -> Vec<Band> {
    let mut out: Vec<Band> = Vec::new();
    for (i, p) in placed.iter().enumerate() {
        let Some(label) = key(p) else { continue };
        match out.last_mut() {
            Some(b) if b.label == label && b.start + b.len == i => b.len += 1,
            _ => out.push(Band {
                level,
                label,
                start: i,
                len: 1,
            }),
        }
    }
    out
}

/// The CPUs of a pair matrix in topology order: from the lowest, each next the
/// nearest (smallest distance class) to the one before, so that SMT siblings and
/// cores sharing a cache sit side by side.
fn topology_order(pts: &[Point]) -> Vec<i64> {
    let pair = |p: &Point| Some((p.number("cpu_a")? as i64, p.number("cpu_b")? as i64));
    let cpus: BTreeSet<i64> = pts
        .iter()
        .filter_map(pair)
        .flat_map(|(a, b)| [a, b])
        .collect();
    let class = |a: i64, b: i64| {
        pts.iter()
            .find(|p| pair(p).is_some_and(|(x, y)| (x, y) == (a, b) || (x, y) == (b, a)))
            .and_then(|p| p.number("distance_class_index"))
            .unwrap_or(f64::INFINITY)
    };
    let mut left: Vec<i64> = cpus.into_iter().collect();
    let mut order = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let next = match order.last() {
            None => 0,
            Some(&last) => (0..left.len())
                .min_by(|&i, &j| class(last, left[i]).total_cmp(&class(last, left[j])))
                .unwrap_or(0),
        };
        order.push(left.remove(next));
    }
    order
}

/// The measured quantities (distributions) of a pair matrix.
fn matrix_quantities(pts: &[Point]) -> BTreeSet<&str> {
    pts.iter()
        .flat_map(|p| p.0.iter())
        .filter(|(_, v)| matches!(v, PointValue::Stats(_)))
        .map(|(n, _)| n.as_str())
        .collect()
}

/// Per distance class, the smallest, mean and largest pair (each pair's minimum
/// over trials), in words.
fn class_summary(pts: &[Point], q: &str) -> Vec<String> {
    let mut by_class: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for p in pts {
        if let (Some(c), Some(s)) = (p.number("distance_class_index"), p.stats(q)) {
            by_class.entry(c as i64).or_default().push(s.min);
        }
    }
    by_class
        .into_iter()
        .filter_map(|(c, v)| {
            let name = crate::platform::DistanceClass::ALL.get(usize::try_from(c).ok()?)?;
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                    (l.min(*x), h.max(*x))
                });
            Some(format!(
                "{name}, {} pair(s): min {}, mean {}, max {}",
                v.len(),
                crate::results::quantity(lo, "ns"),
                crate::results::quantity(mean, "ns"),
                crate::results::quantity(hi, "ns")
            ))
        })
        .collect()
}

/// One heat map per distribution of a CPU-pair matrix and file, the files' maps of
/// one quantity on one colour scale, the CPUs in topology order.
pub(super) fn heat_maps(section_id: &str, entries: &[Entry<'_>]) -> Vec<Figure> {
    let quantities: BTreeSet<&str> = entries
        .iter()
        .flat_map(|e| matrix_quantities(&e.result.points))
        .collect();
    let mut out = Vec::new();
    for q in quantities {
        let all: Vec<f64> = entries
            .iter()
            .flat_map(|e| &e.result.points)
            .filter(|p| p.number("cpu_a") != p.number("cpu_b"))
            .filter_map(|p| p.stats(q).map(|s| s.min))
            .filter(|v| v.is_finite())
            .collect();
        let scale = (entries.len() > 1 && !all.is_empty()).then(|| {
            all.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                    (l.min(*x), h.max(*x))
                })
        });
        for (nth, e) in entries.iter().enumerate() {
            out.push(heat_map(section_id, nth, e, q, scale));
        }
    }
    out
}

fn heat_map(
    section_id: &str,
    nth: usize,
    e: &Entry<'_>,
    q: &str,
    scale: Option<(f64, f64)>,
) -> Figure {
    let pts = &e.result.points;
    let (cpus, labels, bands) = match e.places {
        Some(places) => placed_order(pts, places),
        None => {
            let cpus = topology_order(pts);
            let labels = cpus.iter().map(|c| c.to_string()).collect();
            (cpus, labels, Vec::new())
        }
    };
    let value = |a: i64, b: i64| {
        pts.iter().find_map(|p| {
            let (x, y) = (p.number("cpu_a")? as i64, p.number("cpu_b")? as i64);
            ((x, y) == (a, b) || (x, y) == (b, a)).then(|| p.stats(q).map(|s| s.min))?
        })
    };
    let cells = cpus
        .iter()
        .map(|&a| {
            cpus.iter()
                .map(|&b| (a != b).then(|| value(a, b)).flatten())
                .collect()
        })
        .collect();
    let summary = class_summary(pts, q);
    let h = HeatMap {
        labels,
        cells,
        axis: "CPU".into(),
        value_label: format!("{}, min over trials", axis_label(q)),
        scale,
        summary: if cpus.len() > LARGE {
            summary.clone()
        } else {
            Vec::new()
        },
        bands,
    };
    let (svg, mut caption) = match heatmap_svg(&h) {
        Ok(svg) => (svg, vec![]),
        Err(err) => (String::new(), vec![format!("could not draw: {err}")]),
    };
    let order = if e.places.is_some() {
        "CPUs in topology order (package, NUMA node, L3 domain, core type, core; SMT siblings side by side), the bands above and left naming packages, L3 domains (an EPYC's CCDs) and core types (P, E)"
    } else {
        "CPUs in topology order (nearest neighbours side by side)"
    };
    let shared = if scale.is_some() {
        " The colour scale is shared by every file's map."
    } else {
        ""
    };
    caption.insert(
        0,
        format!(
            "{}: {} between each pair of CPUs, minimum over trials; symmetric pairs share a value; {order}.{shared}",
            e.label,
            axis_label(q)
        ),
    );
    caption.extend(summary);
    Figure {
        id: format!("fig-{section_id}-{}-{}", slug(q), nth + 1),
        title: format!("{} matrix, {}", axis_label(q), e.label),
        svg,
        caption,
    }
}

/// A square matrix of values by row and column label (`None`: not measured).
#[derive(Debug, Clone)]
pub(crate) struct HeatMap {
    /// Row and column labels (the CPUs).
    pub(crate) labels: Vec<String>,
    /// `cells[row][column]`.
    pub(crate) cells: Vec<Vec<Option<f64>>>,
    /// The axes' names (`CPU`).
    pub(crate) axis: String,
    /// The colour scale's label with unit.
    pub(crate) value_label: String,
    /// The colour scale's ends, shared by the maps of several files; `None`: this
    /// map's own smallest and largest value.
    pub(crate) scale: Option<(f64, f64)>,
    /// Packages, L3 domains and core types along the axes.
    pub(crate) bands: Vec<Band>,
    /// Lines drawn beside the map (the class summary of a large map).
    pub(crate) summary: Vec<String>,
}

/// Viridis at a few stops, interpolated: dark blue (low) to yellow (high).
fn viridis(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 5] = [
        (68, 1, 84),
        (59, 82, 139),
        (33, 145, 140),
        (94, 201, 98),
        (253, 231, 37),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let f = t * (STOPS.len() - 1) as f64;
    let i = (f.floor() as usize).min(STOPS.len() - 2);
    let w = f - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * w).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A cell's value: whole units from 10 up, one decimal below.
fn cell_text(v: f64) -> String {
    if v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Pixels of one band row (above) or column (left) of the map.
const BAND_PX: i32 = 18;

/// Where things go: the grid's corner, a cell's side, the band levels shown.
#[derive(Clone, Copy)]
struct Frame {
    left: i32,
    top: i32,
    cell: i32,
    n: i32,
    large: bool,
}

impl Frame {
    fn of(h: &HeatMap) -> Frame {
        let n = h.labels.len().max(1) as i32;
        let large = h.labels.len() > LARGE;
        let cell = if large {
            (1024 / n).max(3)
        } else {
            (560 / n).clamp(24, 72)
        };
        let levels = h.bands.iter().map(|b| b.level + 1).max().unwrap_or(0) as i32;
        Frame {
            left: 70 + levels * BAND_PX,
            top: 20 + levels * BAND_PX,
            cell,
            n,
            large,
        }
    }

    /// The offset of axis position `i` from the grid's edge.
    fn at(&self, i: usize) -> i32 {
        i as i32 * self.cell
    }
}

/// Draws a heat map: a colour scale, the value in every cell up to [`LARGE`]
/// CPUs, the bands and group lines, and beside a large map its summary.
pub(crate) fn heatmap_svg(h: &HeatMap) -> Result<String, String> {
    let f = Frame::of(h);
    let grid = f.cell * f.n;
    let beside = if h.summary.is_empty() { 0 } else { 470 };
    let width = (f.left + grid + 130 + beside) as u32;
    let lines = 20 * (h.summary.len() as i32 + 1);
    let height = (f.top + grid.max(lines) + 60) as u32;
    let values: Vec<f64> = h.cells.iter().flatten().flatten().copied().collect();
    let (lo, hi) = h.scale.unwrap_or_else(|| {
        (
            values.iter().copied().fold(f64::INFINITY, f64::min),
            values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    });
    let norm = |v: f64| if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw_cells(&root, h, f, norm).map_err(|e| e.to_string())?;
        draw_bands(&root, h, f).map_err(|e| e.to_string())?;
        draw_axes(&root, h, f).map_err(|e| e.to_string())?;
        draw_scale(&root, h, f, (lo, hi)).map_err(|e| e.to_string())?;
        let (x, y) = (f.left + grid + 140, f.top);
        for (i, line) in h.summary.iter().enumerate() {
            let style = text_style(12, HPos::Left, VPos::Top, FontTransform::None);
            root.draw(&Text::new(line.clone(), (x, y + 20 * i as i32), style))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

fn draw_cells(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    h: &HeatMap,
    f: Frame,
    norm: impl Fn(f64) -> f64,
) -> Drawn {
    let font_px = (f.cell / 4).clamp(9, 14);
    let centred = text_style(font_px, HPos::Center, VPos::Center, FontTransform::None);
    for (r, row) in h.cells.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let (x0, y0) = (f.left + f.at(c), f.top + f.at(r));
            let fillc = match v {
                Some(v) => viridis(norm(*v)),
                None => RGBColor(240, 240, 240),
            };
            let corners = [(x0, y0), (x0 + f.cell, y0 + f.cell)];
            root.draw(&Rectangle::new(corners, fillc.filled()))?;
            if f.large {
                continue;
            }
            root.draw(&Rectangle::new(corners, WHITE.stroke_width(1)))?;
            let text = match v {
                Some(v) => cell_text(*v),
                None if r == c => "·".into(),
                None => "?".into(),
            };
            let dark = v.is_some_and(|v| norm(v) < 0.6);
            let style = centred.color(if dark { &WHITE } else { &BLACK });
            root.draw(&Text::new(text, (x0 + f.cell / 2, y0 + f.cell / 2), style))?;
        }
    }
    Ok(())
}

/// The bands above and left of the grid, and the lines between packages (thick)
/// and L3 domains (thin) across it.
fn draw_bands(root: &DrawingArea<SVGBackend<'_>, Shift>, h: &HeatMap, f: Frame) -> Drawn {
    let grid = f.cell * f.n;
    let fills = [RGBColor(225, 225, 235), RGBColor(200, 205, 220)];
    let mut nth = [0usize; 3];
    for b in &h.bands {
        let (s, e) = (f.at(b.start), f.at(b.start + b.len));
        let k = &mut nth[b.level.min(2)];
        let fill = fills[*k % 2];
        *k += 1;
        let row = 20 + b.level as i32 * BAND_PX;
        let col = 40 + b.level as i32 * BAND_PX;
        root.draw(&Rectangle::new(
            [(f.left + s, row), (f.left + e, row + BAND_PX - 2)],
            fill.filled(),
        ))?;
        root.draw(&Rectangle::new(
            [(col, f.top + s), (col + BAND_PX - 2, f.top + e)],
            fill.filled(),
        ))?;
        // The label where it fits (about 7 pixels a character), else its number.
        let short = b.label.rsplit(' ').next().unwrap_or("").to_string();
        let text = [b.label.clone(), short]
            .into_iter()
            .find(|t| t.chars().count() as i32 * 7 <= e - s);
        if let Some(t) = text {
            let mid = (s + e) / 2;
            let across = text_style(12, HPos::Center, VPos::Center, FontTransform::None);
            let down = text_style(12, HPos::Center, VPos::Center, FontTransform::Rotate270);
            root.draw(&Text::new(
                t.clone(),
                (f.left + mid, row + BAND_PX / 2 - 1),
                across,
            ))?;
            root.draw(&Text::new(t, (col + BAND_PX / 2 - 1, f.top + mid), down))?;
        }
        if b.start > 0 && b.level < 2 {
            let style = if b.level == 0 {
                BLACK.stroke_width(2)
            } else {
                RGBColor(90, 90, 90).stroke_width(1)
            };
            let (x, y) = (f.left + s, f.top + s);
            root.draw(&PathElement::new(
                vec![(x, f.top), (x, f.top + grid)],
                style,
            ))?;
            root.draw(&PathElement::new(
                vec![(f.left, y), (f.left + grid, y)],
                style,
            ))?;
        }
    }
    Ok(())
}

/// The CPU labels (every one up to [`LARGE`], else every k-th about 28 pixels
/// apart) and the axis names.
fn draw_axes(root: &DrawingArea<SVGBackend<'_>, Shift>, h: &HeatMap, f: Frame) -> Drawn {
    let grid = f.cell * f.n;
    let (px, every) = if f.large {
        (11, (28 + f.cell - 1) / f.cell)
    } else {
        (13, 1)
    };
    let centred = |size: i32| text_style(size, HPos::Center, VPos::Center, FontTransform::None);
    for (i, l) in h.labels.iter().enumerate().step_by(every as usize) {
        let mid = f.at(i) + f.cell / 2;
        root.draw(&Text::new(
            l.clone(),
            (f.left + mid, f.top + grid + 12),
            centred(px),
        ))?;
        let right = text_style(px, HPos::Right, VPos::Center, FontTransform::None);
        root.draw(&Text::new(l.clone(), (f.left - 3, f.top + mid), right))?;
    }
    root.draw(&Text::new(
        format!("{} (column)", h.axis),
        (f.left + grid / 2, f.top + grid + 36),
        centred(14),
    ))?;
    root.draw(&Text::new(
        format!("{} (row)", h.axis),
        (12, f.top + grid / 2),
        text_style(14, HPos::Center, VPos::Center, FontTransform::Rotate270),
    ))?;
    Ok(())
}

/// The colour scale, 40 steps, high at the top, and its label.
fn draw_scale(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    h: &HeatMap,
    f: Frame,
    (lo, hi): (f64, f64),
) -> Drawn {
    let (sx, sh) = (f.left + f.cell * f.n + 24, (f.cell * f.n).max(120));
    let top = f.top;
    let steps = 40;
    for s in 0..steps {
        let t = 1.0 - s as f64 / (steps - 1) as f64;
        let y0 = top + s * sh / steps;
        let y1 = top + (s + 1) * sh / steps;
        root.draw(&Rectangle::new(
            [(sx, y0), (sx + 18, y1)],
            viridis(t).filled(),
        ))?;
    }
    let label = |v: f64| {
        if v.is_finite() {
            cell_text(v)
        } else {
            "-".into()
        }
    };
    let left_text = text_style(12, HPos::Left, VPos::Center, FontTransform::None);
    if hi > lo {
        root.draw(&Text::new(label(hi), (sx + 24, top + 4), left_text.clone()))?;
        root.draw(&Text::new(
            label(lo),
            (sx + 24, top + sh - 4),
            left_text.clone(),
        ))?;
    }
    root.draw(&Text::new(
        label((lo + hi) / 2.0),
        (sx + 24, top + sh / 2),
        left_text,
    ))?;
    root.draw(&Text::new(
        h.value_label.clone(),
        (sx + 80, top + sh / 2),
        text_style(13, HPos::Center, VPos::Center, FontTransform::Rotate90),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::MachineRoot;
    use std::path::Path;

    fn matrix(cpus: &[usize]) -> Vec<Point> {
        let mut v = Vec::new();
        for (i, &a) in cpus.iter().enumerate() {
            for &b in &cpus[i + 1..] {
                v.push(Point::new().with("cpu_a", a as f64).with("cpu_b", b as f64));
            }
        }
        v
    }

    fn fixture(name: &str) -> crate::platform::Topology {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        MachineRoot::under(&dir).topology().unwrap()
    }

    #[test]
    fn a_two_socket_xeon_is_ordered_by_package_with_siblings_side_by_side() {
        let t = fixture("sys-xeon-2s-112");
        let cpus: Vec<usize> = (0..112).collect();
        let (order, labels, bands) = placed_order(&matrix(&cpus), &t.places(&cpus));
        let want: Vec<i64> = t.topo_order(&cpus).into_iter().map(|c| c as i64).collect();
        assert_eq!(order, want);
        // CPU n and n + 56 are siblings (the fixture's numbering).
        assert_eq!(&order[..4], &[0, 56, 1, 57]);
        assert_eq!(labels[1], "56");
        let packages: Vec<(&str, usize, usize)> = bands
            .iter()
            .map(|b| (b.label.as_str(), b.start, b.len))
            .collect();
        assert_eq!(packages, [("package 0", 0, 56), ("package 1", 56, 56)]);
    }

    #[test]
    fn an_epyc_has_a_band_per_ccd_and_a_hybrid_per_core_type() {
        let t = fixture("sys-epyc-7763-128");
        let cpus: Vec<usize> = (0..128).collect();
        let (_, _, bands) = placed_order(&matrix(&cpus), &t.places(&cpus));
        let ccds: Vec<(usize, usize)> = bands
            .iter()
            .filter(|b| b.level == 1)
            .map(|b| (b.start, b.len))
            .collect();
        assert_eq!(ccds, (0..8).map(|d| (16 * d, 16)).collect::<Vec<_>>());
        let t = fixture("sys-alderlake-hybrid-24");
        let cpus: Vec<usize> = (0..24).collect();
        let (_, labels, bands) = placed_order(&matrix(&cpus), &t.places(&cpus));
        let types: Vec<(&str, usize, usize)> = bands
            .iter()
            .filter(|b| b.level == 2)
            .map(|b| (b.label.as_str(), b.start, b.len))
            .collect();
        assert_eq!(types, [("P cores", 0, 16), ("E cores", 16, 8)]);
        assert_eq!((labels[0].as_str(), labels[23].as_str()), ("0P", "23E"));
    }

    #[test]
    fn a_cpu_without_a_place_goes_last_and_starts_no_band() {
        let t = fixture("sys-alderlake-hybrid-24");
        let places = t.places(&[0, 1, 2]);
        let (order, labels, bands) = placed_order(&matrix(&[0, 1, 2, 40]), &places);
        assert_eq!(order.last(), Some(&40));
        assert_eq!(labels.last().map(String::as_str), Some("40"));
        assert!(bands.iter().all(|b| b.start + b.len <= 3));
    }
}
