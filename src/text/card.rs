//! The machine card in the terminal, and numbers in engineering units.

use crate::results::{CardRow, MachineCard, Repetitions, Trust, num, scaled, sig};

pub use crate::results::quantity;
use std::fmt::Write;

/// The parameter's name without its unit (`t_startup_ns` -> `t_startup`).
pub fn short_name(name: &str) -> &str {
    const UNITS: [&str; 12] = [
        "_flop_per_s",
        "_mb_per_s",
        "_gb_per_s",
        "_ns_per_byte",
        "_ms_per_byte",
        "_ms_per_node",
        "_ns",
        "_ms",
        "_flop",
        "_bytes",
        "_pct",
        "_percent",
    ];
    UNITS
        .iter()
        .find_map(|u| name.strip_suffix(u))
        .unwrap_or(name)
}

/// A row's value, interval and mark, as a card prints it.
pub fn row_value(r: &CardRow) -> String {
    if r.trust == Trust::Unresolved {
        return r.interval.clone();
    }
    value_text(r.value, r.ci95, &r.unit, r.trust, r.repetitions.as_ref())
}

/// A value in its engineering unit with its interval, the spread over
/// repetitions, and the trust mark unless it is ok.
pub fn value_text(
    value: f64,
    ci95: Option<[f64; 2]>,
    unit: &str,
    trust: Trust,
    repetitions: Option<&Repetitions>,
) -> String {
    let (v, shown) = scaled(value, unit, value);
    let mut s = sig(v);
    if let Some([lo, hi]) = ci95 {
        let lo = scaled(lo, unit, value).0;
        let hi = scaled(hi, unit, value).0;
        let _ = write!(s, " [{}, {}]", sig(lo), sig(hi));
    }
    if !shown.is_empty() {
        let _ = write!(s, " {shown}");
    }
    if let Some(rep) = repetitions {
        let _ = write!(
            s,
            " ({} reps {} to {})",
            rep.count,
            sig(scaled(rep.min, unit, value).0),
            sig(scaled(rep.max, unit, value).0)
        );
    }
    if trust != Trust::Ok {
        let _ = write!(s, " ({})", trust.mark());
    }
    s
}

/// What a row is about: its kernel and what it is of.
pub fn subject(r: &CardRow) -> String {
    match &r.of {
        Some(of) => format!("{} {of}", r.kernel),
        None => r.kernel.clone(),
    }
}

/// The rows grouped into printed lines: consecutive rows of one method, line,
/// kernel and `of`.
pub fn lines(rows: &[CardRow]) -> Vec<&[CardRow]> {
    let same = |a: &CardRow, b: &CardRow| {
        a.method == b.method && a.line == b.line && a.kernel == b.kernel && a.of == b.of
    };
    rows.chunk_by(same).collect()
}

/// The card as text: identity, the rows by method, the decisions.
pub fn card(c: &MachineCard) -> String {
    let mut s = String::new();
    let id = &c.identity;
    let _ = writeln!(
        s,
        "machine card: {} on {}, {}",
        id.cpu_model, id.hostname, id.date
    );
    let _ = writeln!(s, "  {}; {}", id.cores, id.caches.join(", "));
    let _ = writeln!(
        s,
        "  vector code run: {}; the CPU offers: {}; compiled for: {}",
        isa_run_summary(&id.isa_run),
        list(&id.isa_offered),
        list(&id.isa_used),
    );
    let _ = writeln!(
        s,
        "  {} run, {} trials per point; halfperf {}; {} kernel results, {} with warnings{}",
        if id.quick { "quick" } else { "full" },
        id.trials.map_or("?".into(), |t| t.to_string()),
        id.halfperf,
        id.kernels,
        id.kernels_warned,
        if id.incomplete {
            "; INCOMPLETE (interrupted)"
        } else {
            ""
        }
    );
    s.push_str(&crate::platform::state_card_text(&id.state, &id.fragile));
    let _ = writeln!(
        s,
        "  values [95 % interval]; marks: noisy, flagged fit, virtual, busy; a value shown as not resolved says why"
    );
    let mut method = "";
    for line in lines(&c.rows) {
        let first = &line[0];
        if first.method != method {
            method = &first.method;
            let _ = writeln!(s, "{method}");
        }
        let values: Vec<String> = line
            .iter()
            .map(|r| format!("{} {}", short_name(&r.name), row_value(r)))
            .collect();
        let _ = writeln!(
            s,
            "  {:<30} {:<34} {}",
            first.line,
            subject(first),
            values.join("; ")
        );
    }
    if !c.decisions.is_empty() {
        let _ = writeln!(s, "decisions");
        for d in &c.decisions {
            let _ = writeln!(s, "  - {}", d.text);
        }
    }
    s
}

/// The vector kernels' instruction sets in a phrase: `avx512f (every
/// vector kernel, every level; scalar: scalar-f64 scalar-f32)` where they
/// agree, else each kernel's entry; `not recorded` without a vector kernel.
pub fn isa_run_summary(entries: &[String]) -> String {
    let split: Vec<(&str, &str)> = entries.iter().filter_map(|e| e.rsplit_once(": ")).collect();
    let vector: Vec<&(&str, &str)> = split.iter().filter(|(_, isa)| *isa != "scalar").collect();
    let scalar: Vec<&str> = split
        .iter()
        .filter(|(_, isa)| *isa == "scalar")
        .filter_map(|(what, _)| what.split(' ').next())
        .collect();
    let Some(first) = vector.first() else {
        return "not recorded".into();
    };
    let mut s = match vector.iter().all(|(_, isa)| *isa == first.1) {
        true => format!("{} (every vector kernel, every level", first.1),
        false => format!("({}", entries.join("; ")),
    };
    if !scalar.is_empty() && vector.iter().all(|(_, isa)| *isa == first.1) {
        let _ = write!(s, "; scalar code: {}", scalar.join(" "));
    }
    s.push(')');
    s
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none recorded".into()
    } else {
        items.join(" ")
    }
}

/// A ratio as `x1.23`, a difference as `+4.5 ns`.
pub fn change(ratio: Option<f64>, difference: Option<f64>, unit: &str) -> String {
    match (ratio, difference) {
        (Some(r), _) => format!("x{}", sig(r)),
        (None, Some(d)) => {
            let q = quantity(d, unit);
            if d > 0.0 { format!("+{q}") } else { q }
        }
        _ => "-".into(),
    }
}

/// A number as tables print it: integers without decimals.
pub fn cell(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        num(v)
    }
}
