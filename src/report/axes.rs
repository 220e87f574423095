//! The axes of the report's figures: tick labels in engineering units, and lines
//! cut where they leave the frame.

/// The parts of a line inside `lo <= y <= hi`, each cut where the line crosses
/// the bound (linear interpolation between neighbouring points).
pub(super) fn clipped(points: &[(f64, f64)], lo: f64, hi: f64) -> Vec<Vec<(f64, f64)>> {
    let inside = |y: f64| y.is_finite() && y >= lo && y <= hi;
    let cut =
        |a: (f64, f64), b: (f64, f64), y: f64| (a.0 + (b.0 - a.0) * (y - a.1) / (b.1 - a.1), y);
    // Where the segment a -> b crosses a bound, the crossing point.
    let crossing = |a: (f64, f64), b: (f64, f64)| -> Option<(f64, f64)> {
        if !(a.1.is_finite() && b.1.is_finite()) {
            return None;
        }
        [lo, hi]
            .into_iter()
            .find(|&y| (a.1 - y) * (b.1 - y) < 0.0)
            .map(|y| cut(a, b, y))
    };
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    for (i, &p) in points.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| points[j]);
        match (prev, inside(p.1)) {
            (Some(a), true) if !inside(a.1) => current.extend(crossing(a, p)),
            (Some(a), false) if inside(a.1) => {
                current.extend(crossing(a, p));
                pieces.push(std::mem::take(&mut current));
            }
            _ => {}
        }
        if inside(p.1) {
            current.push(p);
        }
    }
    pieces.push(current);
    pieces.retain(|piece| piece.len() >= 2);
    pieces
}

/// The unit an axis label ends with, in parentheses (`one-way latency (ns)`), in
/// the words `scaled` knows; empty for another or none.
pub(super) fn axis_unit(label: &str) -> &'static str {
    let unit = label
        .strip_suffix(')')
        .and_then(|l| l.rsplit_once('('))
        .map_or("", |(_, u)| u);
    match unit {
        "ns" => "ns",
        "µs" | "us" => "us",
        "ms" => "ms",
        "s" => "s",
        "flop" => "flop",
        "flop/s" => "flop/s",
        "bytes" | "B" => "bytes",
        "MB/s" => "MB/s",
        _ => "",
    }
}

/// Three significant digits without trailing zeros (`1.5`, `20`, `0`; never `-0`).
fn short(v: f64) -> String {
    let s = crate::results::sig(v);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A tick label in engineering units: a time as `500 ns`, `1.5 us`, `2 ms`, a size
/// in decimal multiples (`64 B`, `20 kB`, `1 MB`: the ticks fall on round decimal
/// numbers), a rate as `26 Gflop/s`; a number without a unit with `k`, `M`, `G`.
/// Never `1.8e7`, never `-0`.
pub(super) fn tick(v: f64, unit: &str) -> String {
    let steps: &[(f64, &str)] = match unit {
        "ns" => &[(1.0, "ns"), (1e3, "us"), (1e6, "ms"), (1e9, "s")],
        "us" => &[(1e-3, "ns"), (1.0, "us"), (1e3, "ms"), (1e6, "s")],
        "ms" => &[(1e-6, "ns"), (1e-3, "us"), (1.0, "ms"), (1e3, "s")],
        "s" => &[(1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s")],
        "flop" => &[
            (1.0, "flop"),
            (1e3, "kflop"),
            (1e6, "Mflop"),
            (1e9, "Gflop"),
        ],
        "flop/s" => &[
            (1.0, "flop/s"),
            (1e3, "kflop/s"),
            (1e6, "Mflop/s"),
            (1e9, "Gflop/s"),
        ],
        "bytes" => &[(1.0, "B"), (1e3, "kB"), (1e6, "MB"), (1e9, "GB")],
        "MB/s" => &[(1e-3, "kB/s"), (1.0, "MB/s"), (1e3, "GB/s")],
        _ => &[(1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T")],
    };
    let a = v.abs();
    if short(v) == "0" {
        return "0".into();
    }
    let (f, u) = steps
        .iter()
        .rev()
        .find(|(f, _)| a >= *f * (1.0 - 1e-9))
        .unwrap_or(&steps[0]);
    let joiner = if unit.is_empty() { "" } else { " " };
    format!("{}{joiner}{u}", short(v / f))
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_leaving_the_axes_is_cut_at_the_frame() {
        // The ideal speedup S = N from 1 to 8 on an axis up to 4: cut at (4, 4).
        assert_eq!(
            clipped(&[(1.0, 1.0), (8.0, 8.0)], 0.0, 4.0),
            vec![vec![(1.0, 1.0), (4.0, 4.0)]]
        );
        // Leaving and coming back: two pieces.
        let v = [(0.0, 1.0), (1.0, 3.0), (2.0, 1.0)];
        assert_eq!(
            clipped(&v, 0.0, 2.0),
            vec![vec![(0.0, 1.0), (0.5, 2.0)], vec![(1.5, 2.0), (2.0, 1.0)]]
        );
        // Entirely outside: nothing.
        assert!(clipped(&[(0.0, 5.0), (1.0, 6.0)], 0.0, 2.0).is_empty());
    }

    #[test]
    fn ticks_in_engineering_units() {
        assert_eq!(axis_unit("one-way latency (ns)"), "ns");
        assert_eq!(axis_unit("message size (bytes)"), "bytes");
        assert_eq!(axis_unit("processors P"), "");
        assert_eq!(tick(500.0, "ns"), "500 ns");
        assert_eq!(tick(1500.0, "ns"), "1.5 us");
        assert_eq!(tick(2e6, "ns"), "2 ms");
        assert_eq!(tick(0.5, "ms"), "500 us");
        assert_eq!(tick(1.8e7, "bytes"), "18 MB");
        assert_eq!(tick(20_000.0, "bytes"), "20 kB");
        assert_eq!(tick(2.62e10, "flop/s"), "26.2 Gflop/s");
        assert_eq!(tick(5382.0, "MB/s"), "5.38 GB/s");
        assert_eq!(tick(1.8e7, ""), "18M");
        assert_eq!(tick(8.0, ""), "8");
        assert_eq!(tick(-0.0, "ns"), "0");
        assert_eq!(tick(-2.7e-17, ""), "0");
        assert_eq!(tick(-200.0, "ns"), "-200 ns");
    }
}
