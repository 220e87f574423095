//! Units read from parameter names, and numbers in engineering units.

/// The unit of a parameter, read from its name.
pub fn unit_of(name: &str) -> &'static str {
    const SUFFIXES: [(&str, &str); 21] = [
        ("_flop_per_s", "flop/s"),
        ("_mb_per_s", "MB/s"),
        ("_gb_per_s", "GB/s"),
        ("_ns_per_byte", "ns/B"),
        // `t_per_byte_ns`: nanoseconds per byte, named before the convention.
        ("_per_byte_ns", "ns/B"),
        ("_ms_per_byte", "ms/B"),
        ("_ms_per_node", "ms/node"),
        ("_ns_per_doubling", "ns/doubling"),
        ("_ns_per_order", "ns/order"),
        ("_per_s", "/s"),
        ("_ns", "ns"),
        ("_us", "us"),
        ("_ms", "ms"),
        ("_s", "s"),
        ("_flop", "flop"),
        ("_bytes", "B"),
        ("_pct", "%"),
        ("_percent", "%"),
        ("_bits", "bit"),
        ("_nodes", "nodes"),
        ("_processors", "processors"),
    ];
    if name.contains("_over_") || name.contains("ratio") {
        return "x";
    }
    SUFFIXES
        .iter()
        .find(|(s, _)| name.ends_with(s))
        .map_or("", |(_, u)| u)
}

/// A value scaled to an engineering unit (`1.23 us`, `26.2 Gflop/s`, `4.1 KiB`),
/// three significant digits, no `-0`.
pub fn quantity(value: f64, unit: &str) -> String {
    let (v, u) = scaled(value, unit, value);
    if u.is_empty() {
        sig(v)
    } else {
        format!("{} {u}", sig(v))
    }
}

/// `value` in the engineering unit that `reference` (usually the value itself)
/// reads best in, and that unit.
pub fn scaled(value: f64, unit: &str, reference: f64) -> (f64, String) {
    let a = reference.abs();
    let pick = |steps: &[(f64, &str)]| -> (f64, String) {
        let (f, u) = steps
            .iter()
            .rev()
            .find(|(f, _)| a >= *f)
            .unwrap_or(&steps[0]);
        (value / f, u.to_string())
    };
    match unit {
        "ns" => pick(&[(1.0, "ns"), (1e3, "us"), (1e6, "ms"), (1e9, "s")]),
        "ms" => pick(&[(1e-6, "ns"), (1e-3, "us"), (1.0, "ms"), (1e3, "s")]),
        "flop/s" => pick(&[
            (1.0, "flop/s"),
            (1e3, "kflop/s"),
            (1e6, "Mflop/s"),
            (1e9, "Gflop/s"),
        ]),
        "flop" => pick(&[
            (1.0, "flop"),
            (1e3, "kflop"),
            (1e6, "Mflop"),
            (1e9, "Gflop"),
        ]),
        "B" => pick(&[(1.0, "B"), (1024.0, "KiB"), (1024.0 * 1024.0, "MiB")]),
        "ms/B" => pick(&[(1e-6, "ns/B"), (1e-3, "us/B"), (1.0, "ms/B")]),
        u => (value, u.to_string()),
    }
}

/// Three significant digits, without an exponent between 1e-3 and 1e6, and never
/// `-0`.
pub fn sig(v: f64) -> String {
    if !v.is_finite() {
        return if v > 0.0 {
            "inf".into()
        } else {
            format!("{v}")
        };
    }
    let a = v.abs();
    if a < 1e-12 {
        return "0".into();
    }
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.2e}");
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        "0".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engineering_units_by_hand() {
        assert_eq!(quantity(1234.0, "ns"), "1.23 us");
        assert_eq!(quantity(139.4, "ns"), "139 ns");
        assert_eq!(quantity(2.62e10, "flop/s"), "26.2 Gflop/s");
        assert_eq!(quantity(1.32e-7, "ms/B"), "0.132 ns/B");
        assert_eq!(quantity(-0.768, "ms"), "-768 us");
        assert_eq!(quantity(2130.0, "B"), "2.08 KiB");
        assert_eq!(quantity(0.983, "x"), "0.983 x");
        assert_eq!(sig(-1e-15), "0");
        assert_eq!(sig(-0.0004), "-4.00e-4");
        assert_eq!(sig(1.8e7), "1.80e7");
        assert_eq!(unit_of("l1_r_inf_flop_per_s"), "flop/s");
        assert_eq!(unit_of("mailbox_over_baseline"), "x");
        assert_eq!(unit_of("int_a1_ns_per_byte"), "ns/B");
        assert_eq!(unit_of("t_per_byte_ns"), "ns/B");
    }
}
