//! Plain-text tables for the terminal: topology, kernel list, kernel results,
//! comparisons. Data goes to JSON; these are for people.

#![forbid(unsafe_code)]

pub mod card;
pub mod decomposition;
pub mod hockney;
pub mod repeat;
pub mod sci;
pub mod simulator;

use crate::kernels::KernelSpec;
use crate::kernels::decomposition::{DECOMPOSITION, INTERFERENCE};
use crate::kernels::hockney::{sync, vector};
use crate::kernels::scibench::C2C;
use crate::platform::Topology;
use crate::results::{CardComparison, Comparison, KernelResult, Point, PointValue, Why, num};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The kernels whose results have tables of their own here (see
/// [`kernel_result`]).
pub const PRESENTED: &[&str] = &[vector::NAME, sync::NAME, DECOMPOSITION, INTERFERENCE, C2C];

/// The machine's topology and the distance class of each CPU pair.
pub fn topology(topo: &Topology, allowed: &[usize]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "CPU model: {}",
        topo.cpu_model.as_deref().unwrap_or("unknown")
    );
    let _ = writeln!(
        s,
        "{} logical CPUs, {} physical cores, {} package(s), {} NUMA node(s), SMT {}",
        topo.logical_cpus(),
        topo.physical_cores(),
        topo.packages(),
        topo.numa_nodes(),
        if topo.smt() { "on" } else { "off" }
    );
    let _ = writeln!(s, "allowed CPUs: {allowed:?}");
    let _ = writeln!(
        s,
        "\n{:>5} {:>6} {:>8} {:>5}  smt siblings",
        "cpu", "core", "package", "numa"
    );
    for c in &topo.cpus {
        let numa = c.numa_node.map_or("-".into(), |n| n.to_string());
        let _ = writeln!(
            s,
            "{:>5} {:>6} {:>8} {:>5}  {:?}",
            c.id, c.core_id, c.package_id, numa, c.smt_siblings
        );
    }
    let _ = writeln!(
        s,
        "\n{:>6} {:>12} {:>10}  shared by",
        "level", "kind", "size"
    );
    for c in &topo.caches {
        let _ = writeln!(
            s,
            "{:>6} {:>12} {:>10}  {:?}",
            format!("L{}", c.level),
            format!("{:?}", c.kind).to_lowercase(),
            crate::results::bytes(c.size_bytes),
            c.shared_cpus
        );
    }
    let pairs = topo.pairs_by_class(allowed);
    if !pairs.is_empty() {
        let _ = writeln!(s, "\ndistance classes (one pair each):");
        for (class, a, b) in pairs {
            let _ = writeln!(s, "  {class:<16} CPUs {a}-{b}");
        }
    }
    s
}

/// The kernel list.
pub fn kernel_list(kernels: &[&KernelSpec]) -> String {
    let mut s = String::new();
    for k in kernels {
        let _ = writeln!(
            s,
            "{:<12} {:<10} {}\n{:<23} ({}){}",
            k.name,
            k.method,
            k.about,
            "",
            k.paper,
            match crate::kernels::mpi_processes_needed(k) {
                _ if !crate::kernels::runs_over_mpi(k) => String::new(),
                2 => "; runs over MPI".into(),
                n => format!("; runs over MPI with {n} processes or more"),
            }
        );
    }
    let _ = writeln!(
        s,
        "\nOver MPI (`--transport mpi`, built with --features mpi): {}. Not over MPI:",
        crate::kernels::OVER_MPI.join(", ")
    );
    for k in kernels {
        if let Some(why) = crate::kernels::not_over_mpi(k) {
            let _ = writeln!(s, "  {:<12} {why}", k.name);
        }
    }
    s
}

/// One line per finished kernel: what ran where, its size, its fits and how many
/// warnings it has.
pub fn progress_line(r: &KernelResult) -> String {
    let name = match &r.transport {
        Some(t) => format!("{}/{t}", r.kernel),
        None => r.kernel.clone(),
    };
    let flagged = r.fits.iter().filter(|f| f.flagged).count();
    let mut notes = Vec::new();
    if flagged > 0 {
        notes.push(format!("{flagged} flagged"));
    }
    if r.load.as_ref().is_some_and(|l| l.busy) {
        notes.push("busy machine".into());
    }
    if !r.warnings.is_empty() {
        notes.push(format!("{} warning(s)", r.warnings.len()));
    }
    format!(
        "  {name:<34} {:>4} points {:>3} fits {:>7.1} s  {}{}\n",
        r.points.len(),
        r.fits.len(),
        r.elapsed_s,
        r.placement,
        if notes.is_empty() {
            String::new()
        } else {
            format!(", {}", notes.join(", "))
        }
    )
}

/// One kernel result as a table: a row per point, the fits, and the warnings when
/// `warnings` (else their count).
pub fn kernel_result(r: &KernelResult, warnings: bool) -> String {
    let mut s = String::new();
    let transport = r
        .transport
        .as_deref()
        .map(|t| format!(" [{t}]"))
        .unwrap_or_default();
    let class = r
        .distance_class
        .map(|c| format!(", {c}"))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "== {}{} on CPUs {:?}{}, {} ranks, {} ({:.1} s)",
        r.kernel, transport, r.cpus, class, r.ranks, r.placement, r.elapsed_s
    );
    if let Some(table) = hockney::summary_table(r) {
        s.push_str(&table);
    } else {
        if r.kernel == C2C {
            s.push_str(&c2c_matrix(r));
        } else if let Some(table) = decomposition::paper_table(r) {
            s.push_str(&table);
        } else {
            s.push_str(&points_table(r));
        }
        for f in &r.fits {
            let params: Vec<String> = f
                .params
                .iter()
                .map(|(k, v)| format!("{k} = {}", num(*v)))
                .collect();
            let _ = writeln!(
                s,
                "   fit {} on {} vs {}: {}  (R^2 = {:.4}, {} points{})",
                f.model,
                f.y,
                f.x,
                params.join(", "),
                f.r2,
                f.n_points,
                if f.flagged { ", FLAGGED" } else { "" }
            );
        }
    }
    if warnings {
        for w in &r.warnings {
            let _ = writeln!(s, "   warning: {w}");
        }
    } else if !r.warnings.is_empty() {
        let _ = writeln!(
            s,
            "   {} warning(s); --warnings lists them",
            r.warnings.len()
        );
    }
    s
}

/// The points as a table: the swept variables, each measured distribution's
/// minimum (the statistic the fits use) and spread, then its median and maximum,
/// the other measured numbers and the counts; integers without decimals; a column
/// that is empty in every row is left out.
fn points_table(r: &KernelResult) -> String {
    let mut swept: Vec<String> = Vec::new();
    let mut measured: Vec<String> = Vec::new();
    let mut counts: Vec<String> = Vec::new();
    let mut stats: Vec<String> = Vec::new();
    for p in &r.points {
        for (name, v) in &p.0 {
            let list = match v {
                PointValue::Stats(_) => &mut stats,
                PointValue::Number(_) if Point::is_measured(name) => &mut measured,
                PointValue::Number(_) if Point::is_count(name) => &mut counts,
                PointValue::Number(_) => &mut swept,
            };
            if !list.contains(name) {
                list.push(name.clone());
            }
        }
    }
    type Column<'a> = (String, Box<dyn Fn(&Point) -> Option<String> + 'a>);
    let number = |n: String| -> Column<'_> {
        let key = n.clone();
        (n, Box::new(move |p: &Point| p.number(&key).map(card::cell)))
    };
    let mut columns: Vec<Column<'_>> = swept.iter().cloned().map(number).collect();
    for st in &stats {
        let (a, b) = (st.clone(), st.clone());
        columns.push((
            format!("{st}.min"),
            Box::new(move |p: &Point| p.stats(&a).map(|x| num(x.min))),
        ));
        columns.push((
            "spread".into(),
            Box::new(move |p: &Point| p.stats(&b).map(|x| format!("{:.2}", x.relative_spread()))),
        ));
    }
    for st in &stats {
        let (a, b) = (st.clone(), st.clone());
        columns.push((
            format!("{st}.median"),
            Box::new(move |p: &Point| p.stats(&a).map(|x| num(x.median))),
        ));
        columns.push((
            format!("{st}.max"),
            Box::new(move |p: &Point| p.stats(&b).map(|x| num(x.max))),
        ));
    }
    columns.extend(measured.iter().cloned().map(number));
    columns.extend(counts.iter().cloned().map(number));
    let table: Vec<(String, Vec<String>)> = columns
        .into_iter()
        .filter_map(|(header, get)| {
            let cells: Vec<Option<String>> = r.points.iter().map(&get).collect();
            cells.iter().any(Option::is_some).then(|| {
                let cells = cells.into_iter().map(|c| c.unwrap_or("-".into()));
                (header, cells.collect())
            })
        })
        .collect();
    let widths: Vec<usize> = table
        .iter()
        .map(|(h, cells)| {
            cells
                .iter()
                .map(String::len)
                .chain([h.len(), 6])
                .max()
                .unwrap_or(6)
        })
        .collect();
    let mut s = String::from("  ");
    for ((h, _), w) in table.iter().zip(&widths) {
        let _ = write!(s, " {h:>w$}");
    }
    s.push('\n');
    for i in 0..r.points.len() {
        s.push_str("  ");
        for ((_, cells), w) in table.iter().zip(&widths) {
            let _ = write!(s, " {:>w$}", cells[i]);
        }
        s.push('\n');
    }
    s
}

fn c2c_matrix(r: &KernelResult) -> String {
    let cpus: BTreeSet<usize> = r
        .points
        .iter()
        .flat_map(|p| [p.number("cpu_a"), p.number("cpu_b")])
        .flatten()
        .map(|v| v as usize)
        .collect();
    let lookup = |a: usize, b: usize| {
        r.points.iter().find_map(|p| {
            let (x, y) = (p.number("cpu_a")? as usize, p.number("cpu_b")? as usize);
            ((x, y) == (a, b) || (x, y) == (b, a)).then(|| p.stats("one_way_ns").map(|s| s.min))?
        })
    };
    let mut s =
        String::from("   one-way latency, ns (min over trials; 8-byte mailbox ping-pong)\n");
    let _ = write!(s, "   {:>6}", "cpu");
    for c in &cpus {
        let _ = write!(s, " {c:>8}");
    }
    s.push('\n');
    for &a in &cpus {
        let _ = write!(s, "   {a:>6}");
        for &b in &cpus {
            let cell = if a == b {
                "-".into()
            } else {
                lookup(a, b).map_or("?".into(), num)
            };
            let _ = write!(s, " {cell:>8}");
        }
        s.push('\n');
    }
    s
}

/// The run-to-run floor in words: `value ± 5 % (the run-to-run floor)`.
fn floor_words(floor: f64) -> String {
    format!(
        "value ± {} % (the run-to-run floor)",
        (100_000.0 * floor).round() / 1000.0
    )
}

/// A comparison as a table: values per file and the ratio to the first, marked `*`
/// where the value differs from the first by more than both uncertainties.
pub fn comparison(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ratio to [1] (x) for positive quantities, difference from [1] (+/-) for signed ones; * = differs from [1] by more than the two values' spread or standard error, each at least {}; ~ = so does the CPU pair's probe, and the quantity moved in its direction by no more than it, or twice it (the floor's phase modes), or a run's probes spanned a change of state that covers the change (the machine moved), or a sync method's t0 moved with how often its hand-overs slept (its mode changed)",
        floor_words(c.floor)
    );
    for (i, col) in c.columns.iter().enumerate() {
        let _ = writeln!(s, "[{}] {col}", i + 1);
    }
    let mut last_kernel = "";
    for row in &c.rows {
        if row.kernel != last_kernel {
            let _ = writeln!(s, "\n== {}", row.kernel);
            last_kernel = &row.kernel;
        }
        let mut line = format!("   {:<48}", row.quantity);
        for (i, (v, ratio)) in row.values.iter().zip(&row.ratios).enumerate() {
            let v = v.map_or("-".into(), num);
            if i == 0 {
                let _ = write!(line, " {v:>12}");
            } else {
                let r = match (ratio, row.differences[i]) {
                    (Some(r), _) => format!("x{r:.3}"),
                    (None, Some(d)) => format!("{}{}", if d > 0.0 { "+" } else { "" }, num(d)),
                    _ => "-".into(),
                };
                let mark = row.why[i].map_or("", Why::mark);
                let _ = write!(line, " {v:>12} {r:>8}{mark:1}");
            }
        }
        let _ = writeln!(s, "{line}");
        s.push_str(&notes(&row.why, &row.notes));
    }
    s
}

/// The notes of a row's marked columns, one line each under the row.
fn notes(why: &[Option<Why>], notes: &[Option<String>]) -> String {
    let mut s = String::new();
    for (i, (w, n)) in why.iter().zip(notes).enumerate() {
        if let (Some(w), Some(n)) = (w, n)
            && !w.mark().is_empty()
        {
            let _ = writeln!(s, "      [{}] {} {n}", i + 1, w.mark());
        }
    }
    s
}

/// Machine cards side by side: one column per file, per row the value with its
/// 95 % interval and, after the first file, the change (ratio or difference),
/// marked `*` only where the intervals do not overlap; then each file's decisions.
pub fn card_comparison(c: &CardComparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "machine cards side by side: value [95 % interval]; change against [1]: ratio (x) for positive quantities, difference (+/-) for signed ones; * = the 95 % intervals, each widened to at least {}, do not overlap; ~ = nor do the CPU pair's probes (for an r_inf, the rate probes), and the parameter moved in their direction by no more than they did, or twice (the floor's phase modes), or a run's probes spanned a change of state that covers the change (the machine moved), or a sync method's t0 moved with how often its hand-overs slept (its mode changed)",
        floor_words(c.floor)
    );
    for (i, col) in c.columns.iter().enumerate() {
        let _ = writeln!(s, "[{}] {col}", i + 1);
    }
    s.push_str(&crate::platform::differing_settings_text(
        c.cards.iter().map(|k| k.identity.state.as_slice()),
    ));
    let mut method = "";
    for row in &c.rows {
        if row.method != method {
            method = &row.method;
            let _ = writeln!(s, "{method}");
        }
        let subject = match &row.of {
            Some(of) => format!("{} {of}", row.kernel),
            None => row.kernel.clone(),
        };
        let mut line = format!(
            "  {:<60}",
            format!("{subject} {}", card::short_name(&row.name))
        );
        for (i, cell) in row.cells.iter().enumerate() {
            let value = cell.as_ref().map_or("-".into(), |cell| {
                card::value_text(cell.value, cell.ci95, &row.unit, cell.trust, None)
            });
            if i == 0 {
                let _ = write!(line, " {value:>30}");
            } else {
                let change = card::change(row.ratios[i], row.differences[i], &row.unit);
                let mark = row.why[i].map_or("", Why::mark);
                let _ = write!(line, " {value:>30} {change:>10}{mark:1}");
            }
        }
        let _ = writeln!(s, "{}", line.trim_end());
        s.push_str(&notes(&row.why, &row.notes));
    }
    for (i, card) in c.cards.iter().enumerate() {
        if !card.decisions.is_empty() {
            let _ = writeln!(s, "decisions [{}]", i + 1);
            for d in &card.decisions {
                let _ = writeln!(s, "  - {}", d.text);
            }
        }
    }
    s
}
