//! The machine card: a result file's answer on one screen. The machine's identity,
//! its headline parameters grouped by method (each with unit, 95 % interval and
//! trust mark) and the decisions drawn from them. [`card`] computes it from a
//! [`ResultFile`]; the file keeps it as its `summary`.
//!
//! A kernel that recorded `headline` parameters gives its rows from them; for a
//! kernel without (files written before headlines existed) the rows are derived
//! here from the same fits and points, each row's `interval` saying how: a fit's
//! standard error times Student's t quantile, the error propagated to a ratio or a
//! product of fitted parameters, or the median over trials with the median's
//! standard error (`1.2533 s / sqrt(n)`, normal samples), cut to the trials'
//! range.

use super::card_rows::derived_rows;
use super::decisions::decisions;
use super::kernel_key;
use super::trust::{is_signed, trust};
use crate::kernels::card::CardRows;
use crate::kernels::{card_rows_of, presented_as};
use crate::results::{
    CardRow, Identity, KernelResult, MachineCard, Repetitions, ResultFile, Trust, scaled, sig,
    unit_of,
};
use std::collections::BTreeMap;

/// The file's card: the stored `summary` when the file has one, else computed.
/// A stored card's rows are resolved again ([`resolve`]) and its vector
/// kernels' instruction sets filled in from the points where it lacks them,
/// so that a file written before either existed reads as truthfully.
pub fn card_of(file: &ResultFile) -> MachineCard {
    let Some(mut c) = file.summary.clone() else {
        return card(file);
    };
    c.rows.iter_mut().for_each(resolve);
    if c.identity.isa_run.is_empty() {
        c.identity.isa_run = isa_run(file);
    }
    c
}

/// Computes the card of a result file.
pub fn card(file: &ResultFile) -> MachineCard {
    let mut rows = rows(&file.kernels);
    sort_sync_methods(&mut rows);
    let decisions = decisions(&rows, &file.kernels);
    rows.iter_mut().for_each(resolve);
    MachineCard {
        identity: identity(file),
        rows,
        decisions,
    }
}

fn identity(file: &ResultFile) -> Identity {
    let m = &file.machine;
    let mut caches: Vec<String> = Vec::new();
    for c in &m.caches {
        let kind = match format!("{:?}", c.kind).to_lowercase().as_str() {
            "data" => "d",
            "instruction" => "i",
            _ => "",
        }
        .to_string();
        let phrase = format!("L{}{kind} {}", c.level, bytes(c.size_bytes));
        if !caches.contains(&phrase) {
            caches.push(phrase);
        }
    }
    let vector = |list: &[String]| -> Vec<String> {
        list.iter()
            .filter(|f| f.starts_with("avx") || f.starts_with("sse") || f.starts_with("fma"))
            .cloned()
            .collect()
    };
    let kernels_warned = file
        .kernels
        .iter()
        .filter(|k| !k.warnings.is_empty())
        .count();
    Identity {
        cpu_model: m.cpu_model.clone().unwrap_or_else(|| "unknown CPU".into()),
        hostname: m.hostname.clone(),
        cores: format!(
            "{} logical CPUs on {} core(s), SMT {}, {} package(s), {} NUMA node(s)",
            m.logical_cpus,
            m.physical_cores,
            if m.smt { "on" } else { "off" },
            m.packages,
            m.numa_nodes
        ),
        caches,
        isa_used: vector(&file.software.target_features_compiled),
        isa_run: isa_run(file),
        isa_offered: vector(&file.software.target_features_detected),
        quick: file.config["run"]["quick"].as_bool().unwrap_or(false),
        trials: file.config["trials"].as_u64(),
        date: file.started_utc.clone(),
        halfperf: format!(
            "{} ({})",
            file.software.halfperf_version, file.software.git_commit
        ),
        kernels: file.kernels.len(),
        kernels_warned,
        incomplete: file.incomplete,
        state: crate::platform::state_lines(m.state.as_ref()),
        fragile: m.state.as_ref().map(|s| s.fragile()).unwrap_or_default(),
    }
}

/// What the vector kernels ran: per `hockney-vector` result (`triad-f64`),
/// its levels grouped by the instruction set their points' dispatch ran
/// (`simd_width_bits`: 512 is `avx512f`, 256 `avx2+fma`, 128 the 128-bit
/// baseline, `sse2` on x86_64; the scalar operation's element width is
/// `scalar`), e.g. `triad-f64 L1 L2 L3: avx512f`. The levels are named by
/// the kernel's per-level fits where there is one per level, else `level
/// 1`, `level 2`, ...
pub fn isa_run(file: &ResultFile) -> Vec<String> {
    let x86 = file
        .software
        .target_features_detected
        .iter()
        .chain(&file.software.target_features_compiled)
        .any(|f| f == "sse2");
    let isa = |bits: f64| match bits as u32 {
        512 => "avx512f".to_string(),
        256 => "avx2+fma".into(),
        128 if x86 => "sse2".into(),
        128 => "baseline 128-bit".into(),
        b if b <= 64 => "scalar".into(),
        b => format!("{b}-bit"),
    };
    let mut out = Vec::new();
    for k in file
        .kernels
        .iter()
        .filter(|k| presented_as(&k.kernel, CardRows::VectorLevels))
    {
        let Some(label) = &k.transport else { continue };
        const PREFIX: &str = "t = (n + n_half)/r_inf on ";
        let names: Vec<&str> = k
            .fits
            .iter()
            .filter_map(|f| f.model.strip_prefix(PREFIX))
            .filter(|m| !m.starts_with("Fig. 1"))
            .collect();
        let mut levels: Vec<(usize, String)> = Vec::new();
        for p in &k.points {
            let (Some(level), Some(bits)) = (p.number("level"), p.number("simd_width_bits")) else {
                continue;
            };
            let entry = (level as usize, isa(bits));
            if !levels.contains(&entry) {
                levels.push(entry);
            }
        }
        let top = levels.iter().map(|l| l.0).max().unwrap_or(0);
        let name = |l: usize| match names.len() == top {
            true => names[l - 1].to_string(),
            false => format!("level {l}"),
        };
        let mut by_isa: Vec<(String, Vec<String>)> = Vec::new();
        for (level, isa) in levels {
            match by_isa.iter_mut().find(|(i, _)| *i == isa) {
                Some((_, ls)) => ls.push(name(level)),
                None => by_isa.push((isa, vec![name(level)])),
            }
        }
        for (isa, ls) in by_isa {
            out.push(format!("{label} {}: {isa}", ls.join(" ")));
        }
    }
    out
}

/// A size in bytes as `1 KiB`, `2 MiB`, `48 B`.
pub fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// The rows of a set of kernel results: per kernel from its `headline` or derived,
/// repetitions of one kernel merged into the median and the range.
fn rows(kernels: &[KernelResult]) -> Vec<CardRow> {
    let mut all: Vec<CardRow> = Vec::new();
    for k in kernels {
        let rows = if k.headline.is_empty() {
            derived_rows(k)
        } else {
            headline_rows(k)
        };
        let rows = select(k, rows);
        all.extend(rows);
    }
    merge_repetitions(all)
}

/// The card's rows of a kernel that recorded `headline` parameters: the same
/// parameters as for a file without them (`derived_rows`, the short list
/// per method), each with the recorded value and interval where the kernel
/// recorded one. A kernel records every parameter it fits (all of them stay in
/// its `headline` in the file); the card shows the ones a reader compares.
fn select(k: &KernelResult, headline: Vec<CardRow>) -> Vec<CardRow> {
    if k.headline.is_empty() {
        return headline;
    }
    let mut chosen = derived_rows(k);
    for row in &mut chosen {
        let same = |r: &&CardRow| r.name == row.name && (r.of == row.of || row.of.is_none());
        let Some(recorded) = headline.iter().find(same) else {
            continue;
        };
        row.value = recorded.value;
        row.ci95 = recorded.ci95;
        row.interval = recorded.interval.clone();
        let flagged = row.trust == Trust::FlaggedFit;
        row.trust = trust(k, flagged, row.value, row.ci95, row.trust != Trust::Virtual);
    }
    // A kernel the short list does not cover, but which recorded headline
    // parameters (c2c's classes, for one), keeps them; so does a result whose
    // entry shows its headline as it stands (`cargo bench`'s copy group).
    let keeps_headline = matches!(
        card_rows_of(&k.kernel, k.transport.as_deref()),
        Some(CardRows::CoreToCore | CardRows::SyncMethods | CardRows::Headline)
    );
    if chosen.is_empty() && keeps_headline {
        return headline;
    }
    chosen
}

/// Orders the synchronisation methods' rows by their s_1/2, smallest first, leaving
/// every other row where it is.
fn sort_sync_methods(rows: &mut [CardRow]) {
    let s_half = |kernel: &str| {
        rows.iter()
            .find(|r| r.kernel == kernel && r.name == "s_half_flop")
            .map_or(f64::INFINITY, |r| r.value)
    };
    let sync: Vec<usize> = (0..rows.len())
        .filter(|&i| {
            let (kernel, transport) = rows[i].kernel.split_once('/').unzip();
            transport.is_some() && kernel.is_some_and(|k| presented_as(k, CardRows::SyncMethods))
        })
        .collect();
    let mut block: Vec<CardRow> = sync.iter().map(|&i| rows[i].clone()).collect();
    block.sort_by(|a, b| s_half(&a.kernel).total_cmp(&s_half(&b.kernel)));
    for (i, row) in sync.into_iter().zip(block) {
        rows[i] = row;
    }
}

/// Rows from a kernel's recorded headline parameters.
fn headline_rows(k: &KernelResult) -> Vec<CardRow> {
    let key = kernel_key(k);
    k.headline
        .iter()
        .map(|p| {
            let flagged = k
                .fits
                .iter()
                .any(|f| f.flagged && f.params.contains_key(&p.name));
            CardRow {
                method: k.method.clone(),
                line: line_of(&p.name),
                kernel: key.clone(),
                name: p.name.clone(),
                of: p.of.clone(),
                value: p.value,
                unit: unit_of(&p.name).into(),
                ci95: p.ci95,
                interval: p.interval.clone().unwrap_or_else(|| "none recorded".into()),
                signed: is_signed(&p.name),
                trust: trust(k, flagged, p.value, p.ci95, false),
                repetitions: None,
            }
        })
        .collect()
}

/// Rows of one kernel repeated by `run --repeat K` become one row each: the median
/// value over the repetitions, the interval of the repetition that gave it, and the
/// range.
fn merge_repetitions(rows: Vec<CardRow>) -> Vec<CardRow> {
    let mut order: Vec<(String, String, String, String)> = Vec::new();
    let mut groups: BTreeMap<(String, String, String, String), Vec<CardRow>> = BTreeMap::new();
    for r in rows {
        let (kernel, name, of) = r.key();
        let key = (r.method.clone(), kernel, name, of);
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    order
        .into_iter()
        .map(|key| {
            let mut group = groups.remove(&key).expect("every key has a group");
            if group.len() == 1 {
                return group.pop().expect("one row");
            }
            group.sort_by(|a, b| a.value.total_cmp(&b.value));
            let (min, max) = (group[0].value, group[group.len() - 1].value);
            let count = group.len() as u32;
            let worst = group.iter().map(|r| r.trust).max().unwrap_or(Trust::Ok);
            let mut row = group.swap_remove(group.len() / 2);
            row.trust = worst;
            row.repetitions = Some(Repetitions { count, min, max });
            row
        })
        .collect()
}

/// The words of a line for a parameter name that a headline gives.
fn line_of(name: &str) -> String {
    match name {
        "one_way_ns" => "8 B one-way latency".into(),
        "mailbox_over_baseline" | "channel_over_baseline" => "against two bare flags".into(),
        "mpi_over_baseline" => "against plain MPI_Send/MPI_Recv".into(),
        "t_startup_ns" | "t_per_byte_ns" | "n_half_bytes" => "message start-up and rate".into(),
        "t0_ns" | "s_half_flop" => "synchronisation".into(),
        "overhead_o_ns" | "forwarding_lf_ns" | "switching_ls_ns" => "SCI components".into(),
        "tl_ms" | "tc_ms_per_byte" | "ti_ms" => "T_ML = t_l + L H t_c + I t_i".into(),
        "a_ms" | "b" | "c_ms_per_node" => "eq. 13: T = a + b U/N + c N".into(),
        _ => name.replace('_', " "),
    }
}

/// Marks a row [`Trust::Unresolved`] where its number says nothing, and puts
/// the reason in its `interval`: a flagged fit; no interval; an interval of a
/// signed quantity that spans zero; an interval of a positive quantity that
/// reaches zero or below (whose interval is then dropped: a positive
/// quantity's interval never holds zero). The card's own intervals of
/// positive quantities are positive by construction (`card_rows`: a rate
/// from the reciprocal of its slope's interval, a product or ratio on the
/// log scale); a recorded one that is not, or a fitted slope whose interval
/// reaches zero, cannot be told from zero. Decisions are computed before,
/// from the values, and say which rows they use.
pub fn resolve(row: &mut CardRow) {
    let reason = match row.ci95 {
        _ if row.trust == Trust::Unresolved => return,
        _ if row.trust == Trust::FlaggedFit => {
            "its fit is flagged (below the kernel's goodness threshold)".to_string()
        }
        None => format!("no interval ({})", row.interval),
        Some(ci) if row.signed && ci[0] <= 0.0 && ci[1] >= 0.0 => {
            format!("its 95 % interval {} spans zero", interval_words(row, ci))
        }
        Some(ci) if !row.signed && ci[0] <= 0.0 => {
            row.ci95 = None;
            format!(
                "its 95 % interval {} reaches zero, for a positive quantity",
                interval_words(row, ci)
            )
        }
        Some(_) => return,
    };
    row.trust = Trust::Unresolved;
    row.interval = format!("not resolved: {reason}");
}

/// `[lo, hi] unit`, in the unit the row's value reads best in.
fn interval_words(row: &CardRow, [lo, hi]: [f64; 2]) -> String {
    let (l, unit) = scaled(lo, &row.unit, row.value);
    let h = scaled(hi, &row.unit, row.value).0;
    format!("[{}, {}] {unit}", sig(l), sig(h))
        .trim_end()
        .to_string()
}
