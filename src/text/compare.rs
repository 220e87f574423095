//! `compare`'s tables for a terminal: the cards side by side, and every fit
//! parameter and point (`--points`).
//!
//! Both tables fit [`TWO_FILE_WIDTH`] columns for two files, and grow by one
//! file's columns for every further file ([`width_budget`]). Every column has
//! one width over the whole table, so values, intervals and changes stay in
//! line whatever marks a row carries: a value's trust is one letter in a
//! column of its own, a change's mark (`*` or `~`) one character after it.
//! The label column takes what the other columns leave; a label longer than
//! that is printed on a line of its own and its cells on the next. Notes and
//! decisions are wrapped to the same width. The words behind the letters and
//! marks are in a short footer and, at length, in `halfperf compare --help`.
//! `--json` and `--csv` carry the same rows in full, and are not shaped here.

use super::card;
use crate::analysis::{CardComparison, Comparison, Why};
use crate::results::{Trust, num, scaled, sig};
use std::fmt::Write;

/// The widest a table may be for one or two files, in columns.
pub const TWO_FILE_WIDTH: usize = 120;

/// The narrowest label column before labels go on a line of their own.
const MIN_LABEL: usize = 18;

/// The widest a table of `files` files may be, where each file after the
/// second adds `per_file` columns.
pub fn width_budget(files: usize, per_file: usize) -> usize {
    TWO_FILE_WIDTH + files.saturating_sub(2) * per_file
}

/// The trust mark as one letter: blank for ok.
pub fn trust_letter(t: Trust) -> char {
    match t {
        Trust::Ok => ' ',
        Trust::Noisy => 'n',
        Trust::FlaggedFit => 'f',
        Trust::Virtual => 'v',
        Trust::Busy => 'b',
        Trust::Unresolved => 'r',
    }
}

/// Characters in `s` (the tables are ASCII but for `±` and `µ`).
fn chars(s: &str) -> usize {
    s.chars().count()
}

/// `text` cut into lines of at most `width` characters at spaces, each line
/// after the first starting with `indent`.
fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        let room = chars(line) + 1 + chars(word);
        if !line.trim().is_empty() && room > width {
            lines.push(format!("{indent}{word}"));
        } else {
            if !line.is_empty() && !line.ends_with(' ') {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

fn push_wrapped(s: &mut String, text: &str, width: usize, indent: &str) {
    for l in wrap(text, width, indent) {
        let _ = writeln!(s, "{}", l.trim_end());
    }
}

/// A label and its cells: on one line when the label fits `label_w`, else
/// the label on a line of its own (wrapped) and the cells under it.
fn push_row(s: &mut String, indent: &str, label: &str, label_w: usize, cells: &str, width: usize) {
    if chars(label) <= label_w {
        let pad = label_w - chars(label);
        let _ = writeln!(s, "{indent}{label}{:pad$}{}", "", cells.trim_end());
    } else {
        push_wrapped(
            s,
            &format!("{indent}{label}"),
            width,
            &format!("{indent}  "),
        );
        let _ = writeln!(s, "{indent}{:label_w$}{}", "", cells.trim_end());
    }
}

/// Right-aligns `text` in `w` columns.
fn right(text: &str, w: usize) -> String {
    let pad = w.saturating_sub(chars(text));
    format!("{:pad$}{text}", "")
}

/// Left-aligns `text` in `w` columns.
fn left(text: &str, w: usize) -> String {
    let pad = w.saturating_sub(chars(text));
    format!("{text}{:pad$}", "")
}

/// The notes of a row's marked columns, wrapped under the row.
fn push_notes(s: &mut String, why: &[Option<Why>], notes: &[Option<String>], width: usize) {
    for (i, (w, n)) in why.iter().zip(notes).enumerate() {
        if let (Some(w), Some(n)) = (w, n)
            && !w.mark().is_empty()
        {
            let text = format!("      [{}] {} {n}", i + 1, w.mark());
            push_wrapped(s, &text, width, "          ");
        }
    }
}

/// The floor in words: `± 5 %`.
fn floor_pct(floor: f64) -> String {
    format!("± {} %", (100_000.0 * floor).round() / 1000.0)
}

/// The files' names, one line each: `[1] ...`.
fn push_columns(s: &mut String, columns: &[String], width: usize) {
    for (i, col) in columns.iter().enumerate() {
        push_wrapped(s, &format!("[{}] {col}", i + 1), width, "    ");
    }
}

/// The change column's width: the widest change after the first file's, and
/// at least its head, `change`.
fn change_width(changes: &[Vec<String>]) -> usize {
    changes
        .iter()
        .flat_map(|c| c.iter().skip(1))
        .map(|c| chars(c))
        .max()
        .unwrap_or(1)
        .max(6)
}

/// The head row of `n` files: `[i]` over each file's value, `pad` blank
/// columns after it (for what the value's cell holds besides), and `change`
/// over each later file's change.
fn head_row(n: usize, value_w: usize, pad: usize, change_w: usize) -> String {
    let mut head = String::new();
    for i in 0..n {
        let _ = write!(
            head,
            " {}{:pad$}",
            right(&format!("[{}]", i + 1), value_w),
            ""
        );
        if i > 0 {
            let _ = write!(head, " {} ", right("change", change_w));
        }
    }
    head
}

/// A later file's change, right-aligned in `change_w` columns, and its mark.
fn push_change(cells: &mut String, change: &str, why: Option<Why>, change_w: usize) {
    let mark = why.map_or("", Why::mark);
    let _ = write!(cells, " {}{:1}", right(change, change_w), mark);
}

/// One card cell as printed: the value in its engineering unit, the
/// interval in the same unit, the trust letter.
struct CardText {
    value: String,
    interval: String,
    trust: char,
}

fn card_text(value: f64, ci95: Option<[f64; 2]>, unit: &str, trust: Trust) -> CardText {
    if trust == Trust::Unresolved {
        return CardText {
            value: "not resolved".into(),
            interval: String::new(),
            trust: ' ',
        };
    }
    let (v, shown) = scaled(value, unit, value);
    let value_text = match shown.is_empty() {
        true => sig(v),
        false => format!("{} {shown}", sig(v)),
    };
    let interval = ci95.map_or(String::new(), |[lo, hi]| {
        let lo = scaled(lo, unit, value).0;
        let hi = scaled(hi, unit, value).0;
        format!("[{}, {}]", sig(lo), sig(hi))
    });
    CardText {
        value: value_text,
        interval,
        trust: trust_letter(trust),
    }
}

/// Machine cards side by side: per file the value, its 95 % interval and a
/// trust letter; after the first file, the change against it (a ratio or a
/// difference) and its mark; then each file's decisions and a footer.
pub fn card_comparison(c: &CardComparison) -> String {
    let n = c.columns.len();
    let texts: Vec<Vec<Option<CardText>>> = c
        .rows
        .iter()
        .map(|row| {
            row.cells
                .iter()
                .map(|cell| {
                    cell.as_ref()
                        .map(|cell| card_text(cell.value, cell.ci95, &row.unit, cell.trust))
                })
                .collect()
        })
        .collect();
    let changes: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|row| {
            (0..n)
                .map(|i| card::change(row.ratios[i], row.differences[i], &row.unit))
                .collect()
        })
        .collect();
    let labels: Vec<String> = c.rows.iter().map(card_label).collect();
    let all = texts.iter().flatten().flatten();
    let value_w = all
        .clone()
        .map(|t| chars(&t.value))
        .max()
        .unwrap_or(1)
        .max(3);
    let interval_w = all.map(|t| chars(&t.interval)).max().unwrap_or(0).max(4);
    let change_w = change_width(&changes);
    // Per file: " value interval t"; per later file: " change m".
    let file_w = 1 + value_w + 1 + interval_w + 1;
    let change_cols = 1 + change_w + 1;
    let cells_w = n * file_w + n.saturating_sub(1) * change_cols;
    let width = width_budget(n, file_w + change_cols);
    let label_w = labels
        .iter()
        .map(|l| chars(l))
        .max()
        .unwrap_or(0)
        .min(width.saturating_sub(2 + cells_w))
        .max(MIN_LABEL);
    let mut s = String::new();
    push_columns(&mut s, &c.columns, width);
    s.push_str(&crate::platform::differing_settings_text(
        c.cards.iter().map(|k| k.identity.state.as_slice()),
    ));
    let head = head_row(n, value_w, interval_w + 2, change_w);
    push_row(&mut s, "  ", "", label_w, &head, width);
    let mut method = "";
    for (r, row) in c.rows.iter().enumerate() {
        if row.method != method {
            method = &row.method;
            let _ = writeln!(s, "{method}");
        }
        let mut cells = String::new();
        for i in 0..n {
            match &texts[r][i] {
                Some(t) => {
                    let _ = write!(
                        cells,
                        " {} {}{}",
                        right(&t.value, value_w),
                        left(&t.interval, interval_w),
                        t.trust
                    );
                }
                None => {
                    let _ = write!(cells, " {} {} ", right("-", value_w), left("", interval_w));
                }
            }
            if i > 0 {
                push_change(&mut cells, &changes[r][i], row.why[i], change_w);
            }
        }
        push_row(&mut s, "  ", &labels[r], label_w, &cells, width);
        push_notes(&mut s, &row.why, &row.notes, width);
    }
    for (i, card) in c.cards.iter().enumerate() {
        if !card.decisions.is_empty() {
            let _ = writeln!(s, "decisions [{}]", i + 1);
            for d in &card.decisions {
                push_wrapped(&mut s, &format!("  - {}", d.text), width, "    ");
            }
        }
    }
    let footer = [
        "value [95 % interval] per file; change against [1]: x ratio for a positive quantity, +/- difference for a signed one"
            .to_string(),
        format!(
            "* the intervals, each widened to value {}, do not overlap; ~ the machine moved (the probes too) or the hand-overs slept differently",
            floor_pct(c.floor)
        ),
        "trust: n noisy, f flagged fit, v virtual processors, b busy machine; not resolved: `halfperf card` says why"
            .into(),
    ];
    for f in footer {
        push_wrapped(&mut s, &f, width, "  ");
    }
    s
}

/// A card row's label: its kernel, what it is of unless the kernel names it
/// already, and the parameter without its unit.
fn card_label(row: &crate::analysis::CardComparisonRow) -> String {
    let kernel = &row.kernel;
    let subject = match &row.of {
        Some(of) if !kernel.ends_with(&format!("/{of}")) => format!("{kernel} {of}"),
        _ => kernel.clone(),
    };
    format!("{subject} {}", card::short_name(&row.name))
}

/// Every fit parameter and point side by side: per file the value; after the
/// first file, the change against it (a ratio or a difference) and its mark;
/// then a footer.
pub fn comparison(c: &Comparison) -> String {
    let n = c.columns.len();
    let values: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| r.values.iter().map(|v| v.map_or("-".into(), num)).collect())
        .collect();
    let changes: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            (0..n)
                .map(|i| match (r.ratios[i], r.differences[i]) {
                    (Some(x), _) => format!("x{x:.3}"),
                    (None, Some(d)) => format!("{}{}", if d > 0.0 { "+" } else { "" }, num(d)),
                    _ => "-".into(),
                })
                .collect()
        })
        .collect();
    let value_w = values
        .iter()
        .flatten()
        .map(|v| chars(v))
        .max()
        .unwrap_or(1)
        .max(3);
    let change_w = change_width(&changes);
    let file_w = 1 + value_w;
    let change_cols = 1 + change_w + 1;
    let cells_w = n * file_w + n.saturating_sub(1) * change_cols;
    let width = width_budget(n, file_w + change_cols);
    let label_w = c
        .rows
        .iter()
        .map(|r| chars(&r.quantity))
        .max()
        .unwrap_or(0)
        .min(width.saturating_sub(3 + cells_w))
        .max(MIN_LABEL);
    let mut s = String::new();
    push_columns(&mut s, &c.columns, width);
    let head = head_row(n, value_w, 0, change_w);
    push_row(&mut s, "   ", "", label_w, &head, width);
    let mut last_kernel = "";
    for (r, row) in c.rows.iter().enumerate() {
        if row.kernel != last_kernel {
            let _ = writeln!(s, "== {}", row.kernel);
            last_kernel = &row.kernel;
        }
        let mut cells = String::new();
        for i in 0..n {
            let _ = write!(cells, " {}", right(&values[r][i], value_w));
            if i > 0 {
                push_change(&mut cells, &changes[r][i], row.why[i], change_w);
            }
        }
        push_row(&mut s, "   ", &row.quantity, label_w, &cells, width);
        push_notes(&mut s, &row.why, &row.notes, width);
    }
    let footer = [
        "change against [1]: x ratio for a positive quantity, +/- difference for a signed one"
            .to_string(),
        format!(
            "* differs from [1] by more than both values' spread or standard error, each at least value {}; ~ the machine moved (the probes too) or the hand-overs slept differently; more in `halfperf compare --help`",
            floor_pct(c.floor)
        ),
    ];
    for f in footer {
        push_wrapped(&mut s, &f, width, "  ");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_line_within_the_width() {
        let text = "a b ".repeat(100) + "averyveryverylongwordthatdoesnotfit";
        // Every line fits but the one word longer than the width, alone
        // after its indent.
        for l in wrap(&text, 20, "  ") {
            assert!(
                chars(&l) <= 20 || l.trim() == "averyveryverylongwordthatdoesnotfit",
                "{l}"
            );
        }
        let lines = wrap("one two three four", 9, "  ");
        assert_eq!(lines, ["one two", "  three", "  four"]);
    }

    #[test]
    fn cells_align_in_their_columns() {
        assert_eq!(right("x1.2", 6), "  x1.2");
        assert_eq!(left("[1, 2]", 8), "[1, 2]  ");
        assert_eq!(right("toolong", 3), "toolong");
    }
}
