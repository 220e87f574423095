//! The figures, drawn with plotters into SVG strings: measured quantities against a
//! swept variable (minimum with a band to the median and a whisker to the maximum,
//! or mean with a band of one standard deviation either side; fitted lines,
//! vertical markers) and bar charts; the heat map is in `heatmap`.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor;
use plotters::style::text_anchor::{HPos, VPos};

use super::axes::{axis_unit, clipped, tick};

/// Width and height of an x-y figure, pixels.
const XY_SIZE: (u32, u32) = (760, 440);

/// Tableau 10: distinct, readable on white, in a fixed order.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Where the colour indices of [`shade`] begin.
const SHADES: usize = 1 << 16;
/// Shades per hue.
const SHADES_PER_HUE: usize = 32;

/// The colour index of the `member`-th series of file `file`: the file's hue,
/// darker and lighter in turn for its further series, so that two machines read
/// as one colour each.
pub(crate) fn shade(file: usize, member: usize) -> usize {
    SHADES + (file % PALETTE.len()) * SHADES_PER_HUE + member % SHADES_PER_HUE
}

/// The colour of series `i` (an index of the palette, or of [`shade`]).
fn colour(i: usize) -> RGBColor {
    if i < SHADES {
        return PALETTE[i % PALETTE.len()];
    }
    let (hue, member) = ((i - SHADES) / SHADES_PER_HUE, (i - SHADES) % SHADES_PER_HUE);
    let RGBColor(r, g, b) = PALETTE[hue % PALETTE.len()];
    // 0, darker, lighter, darker still, lighter still, ...
    let step = member.div_ceil(2).min(3) as f64 * 0.22;
    let towards: f64 = if member % 2 == 1 { 0.0 } else { 255.0 };
    let mix = |c: u8| (c as f64 + (towards - c as f64) * step).round() as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

/// One x with the minimum over trials and, for a distribution, its median and
/// maximum.
pub(crate) type Measured = (f64, f64, Option<(f64, f64)>);

/// What a series' points carry besides the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spread {
    /// `(x, min, Some((median, max)))`: a band from the minimum to the median and a
    /// whisker to the maximum (the minimum is what the fits use).
    MinMedianMax,
    /// `(x, mean, Some((mean − sd, mean + sd)))`: a band of one standard deviation
    /// either side of the mean (Krumme & Greenfield's repetitions).
    MeanSd,
}

/// One measured series: per x, the line's value and optionally its spread.
#[derive(Debug, Clone)]
pub(crate) struct Series {
    /// Legend text.
    pub(crate) label: String,
    /// Colour index.
    pub(crate) colour: usize,
    /// What `points` carry.
    pub(crate) spread: Spread,
    /// `(x, line, spread)`, sorted by x.
    pub(crate) points: Vec<Measured>,
}

/// A model curve, drawn dashed.
#[derive(Debug, Clone)]
pub(crate) struct Curve {
    /// Legend text.
    pub(crate) label: String,
    /// Colour index.
    pub(crate) colour: usize,
    /// `(x, y)`, sorted by x.
    pub(crate) points: Vec<(f64, f64)>,
    /// The fit it draws is flagged (below its kernel's goodness threshold): drawn
    /// dotted and thin, and said so in the legend.
    pub(crate) flagged: bool,
}

/// A vertical line at `x` with a short label.
#[derive(Debug, Clone)]
pub(crate) struct Marker {
    /// Position on the x axis.
    pub(crate) x: f64,
    /// Label drawn beside the line's top.
    pub(crate) label: String,
    /// Colour index.
    pub(crate) colour: usize,
}

/// An x-y figure.
#[derive(Debug, Clone, Default)]
pub(crate) struct XyPlot {
    /// Axis label with unit.
    pub(crate) x_label: String,
    /// Axis label with unit.
    pub(crate) y_label: String,
    /// Measured series.
    pub(crate) series: Vec<Series>,
    /// Model curves.
    pub(crate) curves: Vec<Curve>,
    /// Vertical markers.
    pub(crate) markers: Vec<Marker>,
    /// A logarithmic x axis even over less than two decades.
    pub(crate) force_log_x: bool,
    /// A logarithmic y axis even over less than two decades.
    pub(crate) force_log_y: bool,
}

/// Whether a positive range spans more than two decades (a log axis then).
fn wants_log(lo: f64, hi: f64) -> bool {
    lo > 0.0 && hi / lo > 100.0
}

/// The axis range of `values`, padded; positive and padded by a factor when `log`.
fn range(values: &[f64], log: bool) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if log {
        return (lo / 1.5, hi * 1.5);
    }
    let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
    let lo = if lo >= 0.0 && lo - 0.05 * span < 0.0 {
        0.0
    } else {
        lo - 0.05 * span
    };
    (lo, hi + 0.08 * span)
}

/// Draws an x-y figure; the error is plotters' message.
pub(crate) fn xy_svg(p: &XyPlot) -> Result<String, String> {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for s in &p.series {
        for &(x, y, extra) in &s.points {
            xs.push(x);
            ys.push(y);
            match (s.spread, extra) {
                (Spread::MinMedianMax, Some((med, _))) => ys.push(med),
                (Spread::MeanSd, Some((lo, hi))) => ys.extend([lo, hi]),
                (_, None) => {}
            }
        }
    }
    // A whisker to a far maximum (one disturbed trial) must not squash the data:
    // the axis reaches at most twice the highest median, the whisker is cut there.
    let top = ys
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    for s in p.series.iter().filter(|s| s.spread == Spread::MinMedianMax) {
        for &(_, _, extra) in &s.points {
            if let Some((_, max)) = extra
                && max.is_finite()
            {
                ys.push(if top > 0.0 { max.min(2.0 * top) } else { max });
            }
        }
    }
    xs.extend(p.markers.iter().map(|m| m.x));
    let finite = |v: &mut Vec<f64>| v.retain(|x| x.is_finite());
    finite(&mut xs);
    finite(&mut ys);
    let (xlo, xhi) = range(&xs, false);
    let xlog = (p.force_log_x && xs.iter().all(|x| *x > 0.0))
        || wants_log(
            xs.iter().copied().fold(f64::INFINITY, f64::min),
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
    let ylog = (p.force_log_y && ys.iter().all(|y| *y > 0.0))
        || wants_log(
            ys.iter().copied().fold(f64::INFINITY, f64::min),
            ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
    let (xlo, xhi) = if xlog { range(&xs, true) } else { (xlo, xhi) };
    let (ylo, yhi) = range(&ys, ylog);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, XY_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut b = ChartBuilder::on(&root);
        b.margin(14).x_label_area_size(52).y_label_area_size(84);
        let r = match (xlog, ylog) {
            (false, false) => fill(b.build_cartesian_2d(xlo..xhi, ylo..yhi), p, (ylo, yhi)),
            (true, false) => fill(
                b.build_cartesian_2d((xlo..xhi).log_scale(), ylo..yhi),
                p,
                (ylo, yhi),
            ),
            (false, true) => fill(
                b.build_cartesian_2d(xlo..xhi, (ylo..yhi).log_scale()),
                p,
                (ylo, yhi),
            ),
            (true, true) => fill(
                b.build_cartesian_2d((xlo..xhi).log_scale(), (ylo..yhi).log_scale()),
                p,
                (ylo, yhi),
            ),
        };
        r?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

type Built<'a, 'b, X, Y> = Result<
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>,
    DrawingAreaErrorKind<std::io::Error>,
>;

/// An x-y chart being drawn.
type Chart<'a, X, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>;

/// An axis of the plots: `f64` values, with labels.
trait Axis: Ranged<ValueType = f64> + ValueFormatter<f64> {}

impl<T: Ranged<ValueType = f64> + ValueFormatter<f64>> Axis for T {}

/// plotters' error, as the figure's caption reports it.
fn err(e: DrawingAreaErrorKind<std::io::Error>) -> String {
    e.to_string()
}

/// Draws the plot on a built chart, stage by stage: the mesh, the measured
/// series, the fitted curves, the markers, the legend.
fn fill<'a, X: Axis, Y: Axis>(
    built: Built<'a, 'a, X, Y>,
    p: &XyPlot,
    (ylo, yhi): (f64, f64),
) -> Result<(), String> {
    let mut chart = built.map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .x_label_formatter(&|v| tick(*v, axis_unit(&p.x_label)))
        .y_label_formatter(&|v| tick(*v, axis_unit(&p.y_label)))
        // Fewer y labels: a log axis over two decades otherwise labels every
        // mantissa and the labels print over each other.
        .y_labels(7)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(205, 205, 205))
        .draw()
        .map_err(err)?;
    draw_series(&mut chart, p, yhi)?;
    draw_curves(&mut chart, p, (ylo, yhi))?;
    draw_markers(&mut chart, p, (ylo, yhi))?;
    if !p.series.is_empty() || !p.curves.is_empty() {
        draw_legend(&mut chart, p, (ylo, yhi))?;
    }
    Ok(())
}

/// The measured series: each a line through its points, with its band and
/// whiskers.
fn draw_series<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, X, Y>,
    p: &XyPlot,
    yhi: f64,
) -> Result<(), String> {
    for s in &p.series {
        let c = colour(s.colour);
        // The band from the minimum to the median, then whiskers to the maximum; or
        // the band of one standard deviation either side of the mean.
        let with_extra: Vec<_> = s
            .points
            .iter()
            .filter_map(|&(x, y, ex)| ex.map(|(m, mx)| (x, y, m, mx)))
            .collect();
        if with_extra.len() >= 2 {
            // (x, one edge, the other edge) of the band.
            let band: Vec<(f64, f64, f64)> = with_extra
                .iter()
                .map(|&(x, y, m, mx)| match s.spread {
                    Spread::MinMedianMax => (x, y, m),
                    Spread::MeanSd => (x, m, mx),
                })
                .collect();
            let mut poly: Vec<(f64, f64)> = band.iter().map(|&(x, lo, _)| (x, lo)).collect();
            poly.extend(band.iter().rev().map(|&(x, _, hi)| (x, hi)));
            chart
                .draw_series(std::iter::once(Polygon::new(poly, c.mix(0.18).filled())))
                .map_err(err)?;
        }
        if s.spread == Spread::MinMedianMax {
            chart
                .draw_series(
                    with_extra.iter().map(|p| {
                        PathElement::new(vec![(p.0, p.2), (p.0, p.3.min(yhi))], c.mix(0.6))
                    }),
                )
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|p| (p.0, p.1)),
                c.stroke_width(2),
            ))
            .map_err(err)?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1), 3, c.filled())),
            )
            .map_err(err)?;
    }
    Ok(())
}

/// The fitted curves, dashed (dotted and thin when flagged), cut at the frame.
fn draw_curves<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, X, Y>,
    p: &XyPlot,
    (ylo, yhi): (f64, f64),
) -> Result<(), String> {
    for curve in &p.curves {
        let c = colour(curve.colour);
        // A line that leaves the axes (below zero on a log axis, far beyond the
        // data) is cut where it crosses the frame, not dropped or drawn through it.
        let pieces = clipped(&curve.points, ylo, yhi);
        let (dash, gap, width) = if curve.flagged { (2, 5, 1) } else { (8, 5, 2) };
        for (i, piece) in pieces.into_iter().enumerate() {
            let drawn = chart
                .draw_series(DashedLineSeries::new(
                    piece,
                    dash,
                    gap,
                    c.stroke_width(width),
                ))
                .map_err(err)?;
            // A curve without a label (explained in the caption) has no legend entry.
            if i == 0 && !curve.label.is_empty() {
                let label = if curve.flagged {
                    format!("{} (flagged fit)", curve.label)
                } else {
                    curve.label.clone()
                };
                drawn.label(label).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 8, y)], c.stroke_width(width))
                });
            }
        }
    }
    Ok(())
}

/// The vertical markers with their labels.
fn draw_markers<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, X, Y>,
    p: &XyPlot,
    (ylo, yhi): (f64, f64),
) -> Result<(), String> {
    for (i, m) in p.markers.iter().enumerate() {
        let c = colour(m.colour);
        chart
            .draw_series(DashedLineSeries::new(
                [(m.x, ylo), (m.x, yhi)],
                3,
                3,
                c.stroke_width(1),
            ))
            .map_err(err)?;
        // Labels stack up from the bottom of the plot (where rising curves leave
        // room) so that neighbouring markers do not print over each other, and sit
        // left of their line in the right half of the plot.
        // Text on the plotting area is placed relative to its top-left corner.
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let abs = chart.backend_coord(&(m.x, ylo));
        let bottom = (abs.0 - xs.start, abs.1 - ys.start);
        let right_half = bottom.0 > (xs.end - xs.start) / 2;
        let y = bottom.1 - 6 - 16 * (i as i32 % 6);
        let (at, h) = if right_half {
            ((bottom.0 - 4, y), HPos::Right)
        } else {
            ((bottom.0 + 4, y), HPos::Left)
        };
        let style = ("sans-serif", 12)
            .into_font()
            .color(&c)
            .pos(text_anchor::Pos::new(h, VPos::Bottom));
        chart
            .plotting_area()
            .strip_coord_spec()
            .draw(&Text::new(m.label.clone(), at, style))
            .map_err(err)?;
    }
    Ok(())
}

/// The legend, in the corner where it hides the fewest drawn points.
fn draw_legend<X: Axis, Y: Axis>(
    chart: &mut Chart<'_, X, Y>,
    p: &XyPlot,
    (ylo, yhi): (f64, f64),
) -> Result<(), String> {
    // The legend goes to the corner where it hides the fewest drawn points.
    let labels: Vec<&str> = p
        .series
        .iter()
        .map(|s| s.label.as_str())
        .chain(p.curves.iter().map(|c| c.label.as_str()))
        .filter(|l| !l.is_empty())
        .collect();
    let box_w = 40 + 7 * labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as i32;
    let box_h = 12 + 19 * labels.len() as i32;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let drawn: Vec<(i32, i32)> = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| (q.0, q.1)))
        .chain(p.curves.iter().flat_map(|c| c.points.iter().copied()))
        .filter(|q| q.0.is_finite() && q.1.is_finite() && q.1 >= ylo && q.1 <= yhi)
        .map(|q| chart.backend_coord(&q))
        .collect();
    let corners = [
        (SeriesLabelPosition::UpperLeft, xr.start, yr.start),
        (SeriesLabelPosition::UpperRight, xr.end - box_w, yr.start),
        (
            SeriesLabelPosition::LowerRight,
            xr.end - box_w,
            yr.end - box_h,
        ),
        (SeriesLabelPosition::LowerLeft, xr.start, yr.end - box_h),
    ];
    let hidden = |x0: i32, y0: i32| {
        drawn
            .iter()
            .filter(|(x, y)| {
                (x0 - 8..=x0 + box_w + 8).contains(x) && (y0 - 8..=y0 + box_h + 8).contains(y)
            })
            .count()
    };
    let position = corners
        .into_iter()
        .min_by_key(|(_, x0, y0)| hidden(*x0, *y0))
        .map_or(SeriesLabelPosition::UpperLeft, |c| c.0);
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(160, 160, 160))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Black sans-serif text of `px` pixels, anchored at (`h`, `v`) and turned by `turn`.
pub(super) fn text_style(px: i32, h: HPos, v: VPos, turn: FontTransform) -> TextStyle<'static> {
    ("sans-serif", px)
        .into_font()
        .transform(turn)
        .color(&BLACK)
        .pos(text_anchor::Pos::new(h, v))
}

/// One series of bars: a value per category, optionally with an error interval.
#[derive(Debug, Clone)]
pub(crate) struct BarSeries {
    /// Legend text.
    pub(crate) label: String,
    /// Colour index.
    pub(crate) colour: usize,
    /// Per category: the bar's height, `None` where there is none.
    pub(crate) values: Vec<Option<f64>>,
    /// Per category: the error bar from low to high, where known.
    pub(crate) errors: Vec<Option<(f64, f64)>>,
}

/// A bar chart over named categories: series side by side, or stacked.
#[derive(Debug, Clone, Default)]
pub(crate) struct BarChart {
    /// The categories' names, left to right.
    pub(crate) categories: Vec<String>,
    /// Axis label of the categories.
    pub(crate) x_label: String,
    /// Axis label with unit.
    pub(crate) y_label: String,
    /// The bars.
    pub(crate) series: Vec<BarSeries>,
    /// Stack the series (a total split into parts) instead of placing them side by
    /// side.
    pub(crate) stacked: bool,
    /// A logarithmic value axis (side-by-side bars only).
    pub(crate) log_y: bool,
    /// A value per category drawn as a black diamond (a measured total), with its
    /// legend text.
    pub(crate) marks: Option<(String, Vec<Option<f64>>)>,
}

/// Draws a bar chart; the error is plotters' message.
pub(crate) fn bar_svg(p: &BarChart) -> Result<String, String> {
    let n = p.categories.len().max(1);
    let width = (180 + 96 * n as u32).clamp(480, 1100);
    let mut ys: Vec<f64> = Vec::new();
    if p.stacked {
        // Positive parts stack up from zero, negative ones down from it.
        for c in 0..n {
            let parts = || {
                p.series
                    .iter()
                    .filter_map(move |s| s.values.get(c).copied().flatten())
                    .filter(|v| v.is_finite())
            };
            ys.push(parts().filter(|v| *v > 0.0).sum());
            ys.push(parts().filter(|v| *v < 0.0).sum());
        }
    } else {
        for s in &p.series {
            ys.extend(s.values.iter().flatten());
            for (lo, hi) in s.errors.iter().flatten() {
                ys.extend([*lo, *hi]);
            }
        }
    }
    if let Some((_, m)) = &p.marks {
        ys.extend(m.iter().flatten());
    }
    ys.retain(|v| v.is_finite() && (!p.log_y || *v > 0.0));
    let log = p.log_y && !p.stacked && !ys.is_empty();
    let (ylo, yhi) = if log {
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // Whole decades, so that the bars start at a round number.
        (
            10f64.powf((lo / 1.5).log10().floor()),
            10f64.powf((hi * 1.5).log10().ceil()),
        )
    } else {
        let hi = ys.iter().copied().fold(0.0, f64::max);
        let lo = ys.iter().copied().fold(0.0, f64::min);
        (lo * 1.12, if hi > 0.0 { hi * 1.12 } else { 1.0 })
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut b = ChartBuilder::on(&root);
        b.margin(14).x_label_area_size(70).y_label_area_size(84);
        let x = 0f64..n as f64;
        let (centres, bottom) = if log {
            fill_bars(b.build_cartesian_2d(x, (ylo..yhi).log_scale()), p, ylo)?
        } else {
            fill_bars(b.build_cartesian_2d(x, ylo..yhi), p, ylo)?
        };
        category_labels(&root, p, &centres, bottom).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

fn fill_bars<'a, Y: Axis>(
    built: Built<'a, 'a, plotters::coord::types::RangedCoordf64, Y>,
    p: &BarChart,
    base: f64,
) -> Result<(Vec<i32>, i32), String> {
    let e = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
    let mut chart = built.map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(p.y_label.as_str())
        .y_label_formatter(&|v| tick(*v, axis_unit(&p.y_label)))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(205, 205, 205))
        .draw()
        .map_err(e)?;
    let k = p.series.len().max(1) as f64;
    let mut outlines = Vec::new();
    for (si, s) in p.series.iter().enumerate() {
        let c = colour(s.colour);
        let mut rects = Vec::new();
        let mut whiskers = Vec::new();
        for (ci, v) in s.values.iter().enumerate() {
            let Some(v) = v.filter(|v| v.is_finite()) else {
                continue;
            };
            let (x0, x1, y0, y1) = if p.stacked {
                // The parts of the same sign below this one.
                let below: f64 = p.series[..si]
                    .iter()
                    .filter_map(|o| o.values.get(ci).copied().flatten())
                    .filter(|o| o.is_finite() && (*o > 0.0) == (v > 0.0))
                    .sum();
                if v == 0.0 {
                    continue;
                }
                if v < 0.0 {
                    // A negative part hangs below zero, outlined so it reads as one.
                    let (x0, x1) = (ci as f64 + 0.2, ci as f64 + 0.8);
                    outlines.push(Rectangle::new(
                        [(x0, below + v), (x1, below)],
                        BLACK.stroke_width(2),
                    ));
                }
                (ci as f64 + 0.2, ci as f64 + 0.8, below, below + v)
            } else {
                let w = 0.8 / k;
                let x0 = ci as f64 + 0.1 + w * si as f64;
                (x0, x0 + w, base, v)
            };
            rects.push(Rectangle::new([(x0, y0), (x1, y1)], c.filled()));
            if let Some((lo, hi)) = s.errors.get(ci).copied().flatten() {
                let mid = (x0 + x1) / 2.0;
                let cap = (x1 - x0) / 4.0;
                let lo = lo.max(base);
                for seg in [
                    vec![(mid, lo), (mid, hi)],
                    vec![(mid - cap, lo), (mid + cap, lo)],
                    vec![(mid - cap, hi), (mid + cap, hi)],
                ] {
                    whiskers.push(PathElement::new(seg, BLACK.stroke_width(1)));
                }
            }
        }
        chart
            .draw_series(rects)
            .map_err(e)?
            .label(s.label.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
        chart.draw_series(whiskers).map_err(e)?;
    }
    chart.draw_series(outlines).map_err(e)?;
    // The zero line, where parts hang below it.
    let negative = p.stacked
        && p.series
            .iter()
            .flat_map(|s| s.values.iter().flatten())
            .any(|v| *v < 0.0);
    if negative {
        let width = p.categories.len() as f64;
        chart
            .draw_series(LineSeries::new([(0.0, 0.0), (width, 0.0)], BLACK))
            .map_err(e)?;
    }
    if let Some((label, marks)) = &p.marks {
        let pts: Vec<(f64, f64)> = marks
            .iter()
            .enumerate()
            .filter_map(|(ci, v)| v.filter(|v| v.is_finite()).map(|v| (ci as f64 + 0.5, v)))
            .collect();
        chart
            .draw_series(pts.iter().map(|&(x, y)| {
                EmptyElement::at((x, y))
                    + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], BLACK.filled())
            }))
            .map_err(e)?
            .label(label.as_str())
            .legend(|(x, y)| {
                EmptyElement::at((x + 7, y))
                    + Polygon::new(vec![(0, -5), (5, 0), (0, 5), (-5, 0)], BLACK.filled())
            });
    }
    let centres = (0..p.categories.len())
        .map(|ci| chart.backend_coord(&(ci as f64 + 0.5, base)).0)
        .collect();
    let bottom = chart.plotting_area().get_pixel_range().1.end;
    // One series needs no legend (the caption names it); marks always have one.
    if p.series.len() > 1 || p.marks.is_some() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(e)?;
    }
    Ok((centres, bottom))
}

/// Category names under their bars (`centres`, pixels), the axis name under them.
fn category_labels(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    p: &BarChart,
    centres: &[i32],
    bottom: i32,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let per = match centres {
        [a, b, ..] => b - a,
        _ => 200,
    };
    let size = if per < 80 { 11 } else { 12 };
    let style = text_style(size, HPos::Center, VPos::Top, FontTransform::None);
    for (name, &x) in p.categories.iter().zip(centres) {
        // Long names on two lines, split at a space or dash near the middle.
        let (a, b) = if name.len() * 7 > per as usize {
            split_label(name)
        } else {
            (name.clone(), String::new())
        };
        root.draw(&Text::new(a, (x, bottom + 8), style.clone()))?;
        if !b.is_empty() {
            root.draw(&Text::new(b, (x, bottom + 23), style.clone()))?;
        }
    }
    let mid = match (centres.first(), centres.last()) {
        (Some(a), Some(b)) => (a + b) / 2,
        _ => 300,
    };
    root.draw(&Text::new(
        p.x_label.clone(),
        (mid, bottom + 44),
        text_style(15, HPos::Center, VPos::Top, FontTransform::None),
    ))?;
    Ok(())
}

/// A label split in two near its middle, at a space or dash.
fn split_label(s: &str) -> (String, String) {
    let mid = s.len() / 2;
    let cut = s
        .char_indices()
        .filter(|(_, c)| *c == ' ' || *c == '-' || *c == ',')
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(mid));
    match cut {
        Some(i) => {
            let keep = if s.as_bytes()[i] == b'-' { i + 1 } else { i };
            (s[..keep].trim().to_string(), s[keep..].trim().to_string())
        }
        None => (s.to_string(), String::new()),
    }
}
