//! Hockney's tables for the terminal: Table I for `hockney-vector`, Table II for
//! `hockney-sync`, in the shape of the paper's.

use crate::kernels::hockney::{Method, Operation, sync, vector};
use crate::results::{FitResult, KernelResult, num};
use std::fmt::Write;

/// A parameter of a fit by the end of its name.
fn param(f: &FitResult, suffix: &str) -> Option<f64> {
    f.params
        .iter()
        .find(|(k, _)| k.ends_with(suffix))
        .map(|(_, v)| *v)
}

fn cell(v: Option<f64>) -> String {
    v.map_or("-".into(), num)
}

/// The paper-shaped table of a Hockney result (Table I for `hockney-vector`,
/// Table II for `hockney-sync`), or `None` for other kernels.
pub fn summary_table(r: &KernelResult) -> Option<String> {
    match r.kernel.as_str() {
        vector::NAME => Some(table_i(r)),
        sync::NAME => Some(table_ii(r)),
        _ => None,
    }
}

fn table_i(r: &KernelResult) -> String {
    let mut s = String::new();
    let label = r.transport.as_deref().unwrap_or("");
    let width = r
        .points
        .first()
        .and_then(|p| p.number("simd_width_bits"))
        .unwrap_or(0.0);
    if let Some(p) = label
        .starts_with("stream-triad")
        .then(|| r.points.first())
        .flatten()
    {
        let _ = writeln!(
            s,
            "   STREAM-style triad a = b + q*c over {} elements ({} MiB): {} GB/s (best of {}); top-level fit of scalar-triad-f64: {} GB/s (ratio {})",
            cell(p.number("n_elements")),
            cell(p.number("working_set_bytes").map(|b| b / 1048576.0)),
            cell(p.number("bandwidth_gb_per_s")),
            p.stats("time_ns").map_or(0, |t| t.count),
            cell(p.number("fit_bandwidth_gb_per_s")),
            cell(p.number("fit_to_stream_ratio")),
        );
        return s;
    }
    let op = Operation::ALL
        .into_iter()
        .find(|o| label.starts_with(&format!("{}-", o.name())))
        .map_or("", |o| o.statement());
    let _ = writeln!(
        s,
        "   Table I: {label}  {op}  ({width} bit)\n   {:<22} {:>13} {:>11} {:>10} {:>9} {:>7}",
        "level", "r_inf Gflop/s", "n_1/2 flop", "t_0 ns", "GB/s", "R^2"
    );
    for f in &r.fits {
        let level = f
            .model
            .split_once(" on ")
            .map_or(f.model.as_str(), |(_, l)| l);
        let level = level
            .strip_prefix("Fig. 1 lengths ")
            .map_or(level.to_string(), |rest| format!("Fig. 1 {rest}"));
        let _ = writeln!(
            s,
            "   {:<22} {:>13} {:>11} {:>10} {:>9} {:>7.4}{}",
            level,
            cell(param(f, "r_inf_flop_per_s").map(|v| v / 1e9)),
            cell(param(f, "n_half_flop")),
            cell(param(f, "t0_ns")),
            cell(param(f, "bandwidth_gb_per_s")),
            f.r2,
            if f.flagged { " !" } else { "" }
        );
    }
    s
}

fn table_ii(r: &KernelResult) -> String {
    let mut s = String::new();
    let label = r.transport.as_deref().unwrap_or("");
    let figure = Method::from_name(label).map_or("", |m| m.figure());
    let grains = |f: fn(f64, f64) -> f64| {
        r.points
            .iter()
            .filter_map(|p| p.number("grain_flop"))
            .reduce(f)
    };
    let _ = writeln!(
        s,
        "   Table II: {label} ({figure}), P = {}, grains {}..{} flop\n   {:>13} {:>11} {:>10} {:>11} {:>11} {:>11} {:>7}",
        r.ranks,
        cell(grains(f64::min)),
        cell(grains(f64::max)),
        "r_inf Gflop/s",
        "s_1/2 flop",
        "t_0 ns",
        "pi_0 /s",
        "s(50%)",
        "s(91%)",
        "R^2"
    );
    match r.fits.first() {
        Some(f) => {
            let _ = writeln!(
                s,
                "   {:>13} {:>11} {:>10} {:>11} {:>11} {:>11} {:>7.4}{}",
                cell(param(f, "r_inf_flop_per_s").map(|v| v / 1e9)),
                cell(param(f, "s_half_flop")),
                cell(param(f, "t0_ns")),
                cell(param(f, "pi0_per_s")),
                cell(param(f, "s_50pct_flop")),
                cell(param(f, "s_91pct_flop")),
                f.r2,
                if f.flagged { " !" } else { "" }
            );
        }
        None => s.push_str("   (no fit)\n"),
    }
    if let Some(rt) = r
        .fits
        .first()
        .and_then(|f| f.params.get("pp_round_trip_ns"))
    {
        let _ = writeln!(
            s,
            "   ping-pong round trip on the same CPUs (two atomic flags): {} ns",
            num(*rt)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::kernels::hockney::{Fitted, hockney_fit_result};
    use crate::model::hockney::fit_hockney;
    use crate::results::Point;

    fn result(kernel: &str, transport: &str, fits: Vec<FitResult>) -> KernelResult {
        KernelResult::new(kernel, "hockney", Placement::Pinned, vec![0, 1])
            .with_transport(Some(transport))
            .with_points(vec![
                Point::new().with("grain_flop", 2.0),
                Point::new().with("grain_flop", 400.0),
            ])
            .with_fits(fits)
    }

    /// Eq. (11), t = 45 + 3.2 s/400 µs (TASKS), through the kernel's own
    /// conversion: r_inf 125 Mflop/s, s_1/2 5625 flop, pi_0 22.2 k/s, 50% at
    /// s = 5625 and 91% at 5625 x 0.91/0.09 = 56875 flop.
    #[test]
    fn table_ii_row_from_the_papers_tasks_line() {
        let fit = fit_hockney(&[0.0, 400.0], &[45_000.0, 48_200.0]).unwrap();
        let mut w = Vec::new();
        let f = hockney_fit_result(
            &Fitted::Full(fit),
            "t = t0 + s/r_inf (eq. 10b)",
            "",
            "grain_flop",
            "time_ns.min",
            0.0,
            None,
            &mut w,
        );
        assert!((f.params["r_inf_flop_per_s"] - 125e6).abs() < 1e-3);
        assert!((f.params["s_half_flop"] - 5625.0).abs() < 1e-9);
        assert!((f.params["t0_ns"] - 45_000.0).abs() < 1e-9);
        assert!((f.params["pi0_per_s"] - 22_222.2).abs() < 0.1);
        assert!((f.params["s_50pct_flop"] - 5625.0).abs() < 1e-9);
        assert!((f.params["s_91pct_flop"] - 56_875.0).abs() < 1e-6);
        let table = table_ii(&result("hockney-sync", "tasks-spawn", vec![f]));
        assert!(
            table.contains("0.1250") && table.contains("5625.0"),
            "{table}"
        );
        assert!(
            table.contains("45000.0") && table.contains("56875.0"),
            "{table}"
        );
    }

    /// Table I's dyadic row: r_inf 70 Mflop/s, n_1/2 53 gives t_0 = 757 ns (the
    /// paper prints 0.75 µs), and the bandwidth at 24 bytes per flop 1.68 GB/s.
    #[test]
    fn table_i_row_from_the_papers_dyadic_numbers() {
        let t = |n: f64| (n + 53.0) / 0.07;
        let fit = fit_hockney(&[2.0, 400.0], &[t(2.0), t(400.0)]).unwrap();
        let mut w = Vec::new();
        let f = hockney_fit_result(
            &Fitted::Full(fit),
            "t = (n + n_half)/r_inf on Fig. 1 lengths (n <= 400)",
            "",
            "n_elements",
            "time_ns.min / 1",
            24.0,
            Some(20.0),
            &mut w,
        );
        assert!((f.params["t0_ns"] - 757.142857).abs() < 1e-3);
        assert!((f.params["n_half_flop"] - 53.0).abs() < 1e-9);
        assert!((f.params["bandwidth_gb_per_s"] - 1.68).abs() < 1e-9);
        assert_eq!(f.params["timer_t0_subtracted_ns"], 20.0);
        let table = table_i(&result("hockney-vector", "dyadic-f64", vec![f]));
        assert!(
            table.contains("A = B*C") && table.contains("757.1"),
            "{table}"
        );
        assert!(w.is_empty(), "{w:?}");
    }
}
