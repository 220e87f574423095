//! Plain-text tables for the terminal: topology, kernel list, kernel results,
//! comparisons. Data goes to JSON; these are for people.

#![forbid(unsafe_code)]

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
use crate::results::{Comparison, KernelResult, PointValue, num};
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
            bytes(c.size_bytes),
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

fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// The kernel list.
pub fn kernel_list(kernels: &[&KernelSpec]) -> String {
    let mut s = String::new();
    for k in kernels {
        let _ = writeln!(
            s,
            "{:<12} {:<10} {}\n{:<23} ({})",
            k.name, k.method, k.about, "", k.paper
        );
    }
    s
}

/// One kernel result as a table: a row per point, the fits, the warnings.
pub fn kernel_result(r: &KernelResult) -> String {
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
        r.warnings
            .iter()
            .for_each(|w| s.push_str(&format!("   warning: {w}\n")));
        return s;
    }
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
    for w in &r.warnings {
        let _ = writeln!(s, "   warning: {w}");
    }
    s
}

fn points_table(r: &KernelResult) -> String {
    let mut numbers: Vec<String> = Vec::new();
    let mut stats: Vec<String> = Vec::new();
    for p in &r.points {
        for (name, v) in &p.0 {
            let list = match v {
                PointValue::Number(_) => &mut numbers,
                PointValue::Stats(_) => &mut stats,
            };
            if !list.contains(name) && name != "reps" {
                list.push(name.clone());
            }
        }
    }
    let mut header: Vec<String> = numbers.clone();
    for st in &stats {
        header.extend([
            format!("{st}.min"),
            format!("{st}.median"),
            format!("{st}.max"),
            "spread".into(),
        ]);
    }
    let widths: Vec<usize> = header.iter().map(|h| h.len().max(10)).collect();
    let mut s = String::new();
    let row = |cells: &[String]| -> String {
        let mut line = String::from("  ");
        for (c, w) in cells.iter().zip(&widths) {
            let _ = write!(line, " {c:>w$}");
        }
        line.push('\n');
        line
    };
    s.push_str(&row(&header));
    for p in &r.points {
        let mut cells: Vec<String> = numbers
            .iter()
            .map(|n| p.number(n).map_or("-".into(), num))
            .collect();
        for st in &stats {
            match p.stats(st) {
                Some(x) => cells.extend([
                    num(x.min),
                    num(x.median),
                    num(x.max),
                    format!("{:.2}", x.relative_spread()),
                ]),
                None => cells.extend(["-".into(), "-".into(), "-".into(), "-".into()]),
            }
        }
        s.push_str(&row(&cells));
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

/// A comparison as a table: values per file and the ratio to the first, marked `*`
/// where the value differs from the first by more than both uncertainties.
pub fn comparison(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ratio to [1]; * = differs from [1] by more than the two values' spread or standard error"
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
                let r = ratio.map_or("-".into(), |r| format!("x{r:.3}"));
                let mark = if row.differs[i] == Some(true) {
                    "*"
                } else {
                    " "
                };
                let _ = write!(line, " {v:>12} {r:>8}{mark}");
            }
        }
        let _ = writeln!(s, "{line}");
    }
    s
}
