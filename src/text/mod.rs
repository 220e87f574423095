//! Plain-text tables for the terminal: topology, kernel list, kernel results,
//! comparisons. Data goes to JSON; these are for people.

#![forbid(unsafe_code)]

pub mod card;
pub mod compare;
pub mod decomposition;
pub mod hockney;
pub mod papers;
pub mod plan;
pub mod prediction;
pub mod repeat;
pub mod sci;
pub mod simulator;
pub mod workload;

use crate::kernels::KernelSpec;
use crate::kernels::OverMpi;
use crate::kernels::decomposition::{DECOMPOSITION, INTERFERENCE};
use crate::kernels::hockney::{sync, vector};
use crate::kernels::scibench::C2C;
use crate::model::stats::Summary;
use crate::platform::Topology;
use crate::results::{KernelResult, Point, PointValue, num};
pub use compare::{card_comparison, comparison};
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
            crate::analysis::bytes(c.size_bytes),
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

/// The end of a run: each kernel skipped with its reason, one line each.
pub fn skipped(skipped: &[(String, String)]) -> String {
    let mut s = String::new();
    for (kernel, reason) in skipped {
        let _ = writeln!(s, "skipped {kernel}: {reason}");
    }
    s
}

/// The line saying where a run's result file was written.
pub fn wrote(path: &std::path::Path, incomplete: bool) -> String {
    format!(
        "wrote {}{}\n",
        path.display(),
        if incomplete {
            " (incomplete: only the kernels that finished)"
        } else {
            ""
        }
    )
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
            match k.over_mpi {
                OverMpi::No(_) => String::new(),
                OverMpi::Runs { processes: 2, .. } => "; runs over MPI".into(),
                OverMpi::Runs { processes, .. } =>
                    format!("; runs over MPI with {processes} processes or more"),
                OverMpi::OnGrid { .. } =>
                    "; runs over MPI on a processor grid (2, 4, 8, 9, ... processes)".into(),
            }
        );
    }
    let _ = writeln!(
        s,
        "\nOver MPI (`--transport mpi`, built with --features mpi): {}. Not over MPI:",
        crate::kernels::over_mpi_names().join(", ")
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
    // A column of one figure of distribution `st`, shown by `show`.
    let stat = |header: String, st: &str, show: fn(&Summary) -> String| -> Column<'_> {
        let key = st.to_owned();
        (header, Box::new(move |p: &Point| p.stats(&key).map(show)))
    };
    for st in &stats {
        columns.push(stat(format!("{st}.min"), st, |x| num(x.min)));
        columns.push(stat("spread".into(), st, |x| {
            format!("{:.2}", x.relative_spread())
        }));
    }
    for st in &stats {
        columns.push(stat(format!("{st}.median"), st, |x| num(x.median)));
        columns.push(stat(format!("{st}.max"), st, |x| num(x.max)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_names_what_it_skipped_and_wrote() {
        let skipped = [
            ("mpi-pingpong".to_string(), "needs mpirun".to_string()),
            ("c2c".to_string(), "one CPU".to_string()),
        ];
        assert_eq!(
            super::skipped(&skipped),
            "skipped mpi-pingpong: needs mpirun\nskipped c2c: one CPU\n"
        );
        assert_eq!(super::skipped(&[]), "");
        let p = std::path::Path::new("out.json");
        assert_eq!(wrote(p, false), "wrote out.json\n");
        assert_eq!(
            wrote(p, true),
            "wrote out.json (incomplete: only the kernels that finished)\n"
        );
    }
}
