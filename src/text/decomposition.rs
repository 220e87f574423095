//! Krumme & Greenfield's tables for the terminal: Tables 1 to 3 for
//! `decomposition`, section 5.2 for `interference`.

use crate::kernels::decomposition::{BIGSIZE, DECOMPOSITION, INTERFERENCE, QKind};
use crate::results::{KernelResult, Point, num};
use std::fmt::Write;

/// The paper-shaped tables of a `decomposition` or `interference` result (Tables
/// 1 to 3; section 5.2), or `None` for other kernels.
pub fn paper_table(r: &KernelResult) -> Option<String> {
    match r.kernel.as_str() {
        DECOMPOSITION => Some(tables(r)),
        INTERFERENCE => Some(interference(r)),
        _ => None,
    }
}

/// Tables 1 to 3 of a `decomposition` result.
pub(crate) fn tables(r: &KernelResult) -> String {
    let mut s = String::new();
    for kind in QKind::ALL {
        let flag = f64::from(u8::from(kind == QKind::Float));
        let points: Vec<&Point> = r
            .points
            .iter()
            .filter(|p| p.number("q_float") == Some(flag))
            .collect();
        if points.is_empty() {
            continue;
        }
        let table = if kind == QKind::Integer { 1 } else { 2 };
        let _ = writeln!(
            s,
            "   Table {table} shape: {} Q, ns, mean ± standard deviation over repetitions",
            kind.name()
        );
        let _ = write!(s, "   {:<8}", "Size");
        for p in &points {
            let _ = write!(s, " {:>16}", p.number("size_bytes").map_or("?".into(), num));
        }
        s.push('\n');
        let rows = [
            ("E", "e_ns"),
            ("R", "r_ns"),
            ("S", "s_ns"),
            ("F", "f_ns"),
            ("U", "u_ns"),
            ("A", "a_ns"),
            ("A alone", "a_alone_ns"),
            ("RT line", "cpu_round_trip_ns"),
            ("RT 64K", "cpu_round_trip_64k_ns"),
            ("E busy", "e_busy_ns"),
            ("E d1-d2", "e_d1_d2_ns"),
            ("E d4-d5", "e_d4_d5_ns"),
        ];
        for (label, key) in rows {
            let _ = write!(s, "   {label:<8}");
            for p in &points {
                let cell = p.stats(key).map_or("-".into(), |x| {
                    format!("{} ± {}", num(x.mean), num(x.std_dev))
                });
                let _ = write!(s, " {cell:>16}");
            }
            s.push('\n');
        }
        let _ = writeln!(
            s,
            "   Table 3 shape: {} Q, lines X0 + X1 n (fitted to the medians)",
            kind.name()
        );
        for f in r.fits.iter().filter(|f| f.model.contains(kind.name())) {
            let get = |part: &str| {
                f.params
                    .iter()
                    .find(|(k, _)| k.contains(part))
                    .map_or(f64::NAN, |(_, v)| *v)
            };
            let name = &f.model[..1];
            let letter = name.to_lowercase();
            let over = if f.model.contains("all sizes") {
                "all sizes"
            } else {
                "16-2000 B"
            };
            let _ = writeln!(
                s,
                "   {name:<8} {:>10} + {:>8} n ns   R^2 = {:.3}  ({over}){}",
                num(get(&format!("_{letter}0_"))),
                num(get(&format!("_{letter}1_"))),
                f.r2,
                if f.flagged { "  FLAGGED" } else { "" }
            );
        }
    }
    s
}

/// Section 5.2's figures as a table.
fn interference(r: &KernelResult) -> String {
    let mut s = String::new();
    let first = r.points.first();
    let _ = writeln!(
        s,
        "   section 5.2 shape: {} B messages forwarded through rank 0; R + S = {} ns per message",
        BIGSIZE,
        first
            .and_then(|p| p.number("r_plus_s_ns"))
            .map_or("?".into(), num),
    );
    let _ = writeln!(
        s,
        "   {:>7} {:>8} {:>14} {:>18} {:>12}",
        "streams", "channels", "period ns/msg", "slowdown observed", "pred. (R+S)"
    );
    for p in &r.points {
        let cell = |name: &str| p.number(name).map_or("-".into(), num);
        let count = |name: &str| p.number(name).map_or("-".into(), |v| format!("{v:.0}"));
        let stat = |name: &str| {
            p.stats(name).map_or("-".into(), |x| {
                format!("{} ± {}", num(x.mean), num(x.std_dev))
            })
        };
        let _ = writeln!(
            s,
            "   {:>7} {:>8} {:>14} {:>18} {:>12}",
            count("streams"),
            count("channels_active"),
            p.stats("period_ns").map_or("-".into(), |x| num(x.mean)),
            stat("slowdown"),
            cell("predicted_slowdown_r_plus_s"),
        );
    }
    s
}
