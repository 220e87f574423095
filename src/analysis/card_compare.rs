//! `compare` of machine cards: each headline parameter across files, with a ratio
//! to the first file for a positive quantity and a difference for a signed one,
//! marked only where the 95 % intervals do not overlap: `*`, or `~` where the
//! machine's probe moved between the files and the parameter's ratio to it held
//! (the rule is [`super::state`]'s).

use super::card::card_of;
use super::compare::csv_line;
use super::kernel_key;
use super::state::{Probed, Why, judge};
use crate::results::{CardRow, KernelResult, MachineCard, ResultFile, Trust};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One file's value of a parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardCell {
    /// The estimate.
    pub value: f64,
    /// Its 95 % interval.
    pub ci95: Option<[f64; 2]>,
    /// Its trust mark.
    pub trust: Trust,
}

/// One parameter across files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardComparisonRow {
    /// The method.
    pub method: String,
    /// The card's words for the row.
    pub line: String,
    /// `kernel/transport`.
    pub kernel: String,
    /// The parameter, unit in the name.
    pub name: String,
    /// What it is a parameter of.
    pub of: Option<String>,
    /// The unit.
    pub unit: String,
    /// True when the quantity is compared by difference: it can be negative or
    /// zero (by its nature, or because a value or an interval reaches zero).
    pub signed: bool,
    /// Per file, `None` where the file lacks the parameter.
    pub cells: Vec<Option<CardCell>>,
    /// Per file, its value over the first file's, for a positive quantity.
    pub ratios: Vec<Option<f64>>,
    /// Per file, its value less the first file's, for a signed quantity.
    pub differences: Vec<Option<f64>>,
    /// Per file: `Some(true)` where it is marked `*` (the 95 % intervals do not
    /// overlap, and the machine's probe does not explain it), `Some(false)` where
    /// it is not (the intervals overlap, or `~`: the machine moved and the
    /// parameter with it), `None` without both intervals (and for the first
    /// file).
    pub differs: Vec<Option<bool>>,
    /// Per file, why it is marked or not (`None` for the first file).
    pub why: Vec<Option<Why>>,
    /// Per file, the probes and ratios behind `why` where the probes were
    /// looked at.
    pub notes: Vec<Option<String>>,
}

/// Cards side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardComparison {
    /// Per file: CPU model, host, date.
    pub columns: Vec<String>,
    /// The cards, one per file.
    pub cards: Vec<MachineCard>,
    /// Every parameter any card has, in the cards' order.
    pub rows: Vec<CardComparisonRow>,
    /// The run-to-run floor every interval was widened to, a fraction of the
    /// value ([`super::state::DEFAULT_FLOOR`] unless `compare --floor`).
    #[serde(default)]
    pub floor: f64,
}

type Key = (String, String, String);

/// Compares the cards of `files` (each file's stored summary, or computed)
/// with the default run-to-run floor.
pub fn compare_cards(files: &[ResultFile]) -> CardComparison {
    compare_cards_with_floor(files, super::state::DEFAULT_FLOOR)
}

/// Compares the cards of `files`, every interval widened to at least
/// `value (1 ± floor)` ([`super::state::judge`]).
pub fn compare_cards_with_floor(files: &[ResultFile], floor: f64) -> CardComparison {
    let cards: Vec<MachineCard> = files.iter().map(card_of).collect();
    let mut order: Vec<Key> = Vec::new();
    let mut first: BTreeMap<Key, &CardRow> = BTreeMap::new();
    for c in &cards {
        for r in &c.rows {
            first.entry(r.key()).or_insert_with(|| {
                order.push(r.key());
                r
            });
        }
    }
    let rows = order
        .iter()
        .map(|key| {
            let cells: Vec<Option<&CardRow>> = cards
                .iter()
                .map(|c| c.rows.iter().find(|r| &r.key() == key))
                .collect();
            row(first[key], &cells, files, floor)
        })
        .collect();
    CardComparison {
        columns: cards
            .iter()
            .map(|c| {
                let id = &c.identity;
                format!("{}, {}, {}", id.cpu_model, id.hostname, id.date)
            })
            .collect(),
        cards,
        rows,
        floor,
    }
}

/// The row's value in `file` with its kernel's probe: the kernel result whose
/// headline has the row's value (a repeated kernel's card row is one
/// repetition's), else the first with the row's kernel.
fn probed(r: &CardRow, file: &ResultFile) -> Probed {
    let of = r.of.as_deref();
    let same =
        |p: &&crate::results::Param| p.name == r.name && (of.is_none() || p.of.as_deref() == of);
    let kernels: Vec<&KernelResult> = file
        .kernels
        .iter()
        .filter(|k| kernel_key(k) == r.kernel)
        .collect();
    let k = kernels
        .iter()
        .find(|k| k.headline.iter().filter(same).any(|p| p.value == r.value))
        .or(kernels.first());
    match k {
        Some(k) => {
            // The kernel's qualifier for its probe (`spin-hint`), where the card
            // row has none.
            let of = k.headline.iter().find(same).map_or(of, |p| p.of.as_deref());
            Probed::in_kernel(k, &r.name, of, r.value, r.ci95)
        }
        None => Probed::plain(r.value, r.ci95),
    }
}

fn row(
    model: &CardRow,
    cells: &[Option<&CardRow>],
    files: &[ResultFile],
    floor: f64,
) -> CardComparisonRow {
    let signed = cells
        .iter()
        .flatten()
        .any(|r| r.signed || r.value <= 0.0 || r.ci95.is_some_and(|[lo, _]| lo <= 0.0));
    let base = cells.first().copied().flatten();
    let mut ratios = Vec::new();
    let mut differences = Vec::new();
    let mut differs = Vec::new();
    let mut why = Vec::new();
    let mut notes = Vec::new();
    let base_probed = base.map(|b| probed(b, &files[0]));
    for (i, c) in cells.iter().enumerate() {
        let pair = base.zip(*c).filter(|_| i > 0);
        ratios.push(pair.filter(|_| !signed).map(|(b, c)| c.value / b.value));
        differences.push(pair.filter(|_| signed).map(|(b, c)| c.value - b.value));
        let judged = pair.map(|(_, c)| {
            let b = base_probed.as_ref().expect("a pair has a base");
            judge(b, &probed(c, &files[i]), floor)
        });
        differs.push(judged.as_ref().and_then(|(w, _)| match w {
            Why::NoInterval => None,
            w => Some(*w == Why::IntervalsDisjoint),
        }));
        why.push(judged.as_ref().map(|(w, _)| *w));
        notes.push(judged.and_then(|(_, n)| n));
    }
    CardComparisonRow {
        method: model.method.clone(),
        line: model.line.clone(),
        kernel: model.kernel.clone(),
        name: model.name.clone(),
        of: model.of.clone(),
        unit: model.unit.clone(),
        signed,
        cells: cells
            .iter()
            .map(|c| {
                c.map(|r| CardCell {
                    value: r.value,
                    ci95: r.ci95,
                    trust: r.trust,
                })
            })
            .collect(),
        ratios,
        differences,
        differs,
        why,
        notes,
    }
}

/// The card comparison as CSV: `method,kernel,name,of,unit`, then per file its
/// value, interval, trust, change against the first (`ratio` or `difference`),
/// mark (`*` where the intervals do not overlap and the probe does not explain
/// it, `~` where the machine moved and the parameter with it, `=` where the
/// intervals overlap), why in words, and the probes behind it.
pub fn cards_to_csv(c: &CardComparison) -> String {
    let mut header: Vec<String> = ["method", "kernel", "name", "of", "unit", "compared_by"]
        .map(String::from)
        .to_vec();
    for i in 1..=c.columns.len() {
        for what in [
            "value",
            "ci95_low",
            "ci95_high",
            "trust",
            "change",
            "differs",
            "why",
            "note",
        ] {
            header.push(format!("[{i}] {what}"));
        }
    }
    let mut out = csv_line(&header);
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    for r in &c.rows {
        let mut cells = vec![
            r.method.clone(),
            r.kernel.clone(),
            r.name.clone(),
            r.of.clone().unwrap_or_default(),
            r.unit.clone(),
            if r.signed { "difference" } else { "ratio" }.into(),
        ];
        for i in 0..c.columns.len() {
            let cell = r.cells[i].as_ref();
            cells.push(opt(cell.map(|c| c.value)));
            cells.push(opt(cell.and_then(|c| c.ci95).map(|c| c[0])));
            cells.push(opt(cell.and_then(|c| c.ci95).map(|c| c[1])));
            cells.push(cell.map_or(String::new(), |c| c.trust.mark().into()));
            cells.push(opt(r.ratios[i].or(r.differences[i])));
            cells.push(r.why[i].map_or("", Why::csv_mark).into());
            cells.push(r.why[i].map_or("", Why::words).into());
            cells.push(r.notes[i].clone().unwrap_or_default());
        }
        out.push_str(&csv_line(&cells));
    }
    out
}
