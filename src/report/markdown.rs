//! The report as Markdown, the figures as SVG files beside it.

use super::{Report, Table};
use std::fmt::Write;

/// Escapes a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(t: &Table) -> String {
    let mut s = format!("{}:\n\n", t.caption);
    let _ = writeln!(
        s,
        "| {} |",
        t.header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(s, "|{}", "---|".repeat(t.header.len()));
    for row in &t.rows {
        let _ = writeln!(
            s,
            "| {} |",
            row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        );
    }
    s.push('\n');
    s
}

/// The document; figures are linked as `<figure id>.svg`.
pub fn to_markdown(r: &Report) -> String {
    let mut s = String::from("# halfperf report\n\n");
    let _ = writeln!(
        s,
        "{} result file(s). Every figure is drawn from the files alone; units are in the axis labels.\n",
        r.sources.len()
    );
    for c in &r.cards {
        let _ = writeln!(s, "```\n{}```\n", crate::text::card::card(c));
    }
    s.push_str("## Index\n\n");
    s.push_str(&table(&r.index));
    for src in &r.sources {
        let _ = writeln!(s, "### {}\n", src.label);
        for (k, v) in &src.facts {
            let _ = writeln!(s, "- **{k}**: {v}");
        }
        s.push('\n');
    }
    s.push_str("## Contents\n\n");
    for m in r.methods() {
        let _ = writeln!(s, "- {m}");
        for sec in r.sections.iter().filter(|sec| sec.method == m) {
            let _ = writeln!(s, "  - [{}](#{})", sec.title, sec.id);
        }
    }
    s.push('\n');
    for sec in &r.sections {
        let _ = writeln!(s, "<a id=\"{}\"></a>\n\n## {}\n", sec.id, sec.title);
        for n in &sec.notes {
            let _ = writeln!(s, "- **{}**: {}", n.label, n.placement);
            for w in &n.warnings {
                let _ = writeln!(s, "  - warning: {w}");
            }
        }
        s.push('\n');
        for f in &sec.figures {
            let _ = writeln!(s, "### {}\n", f.title);
            if !f.svg.is_empty() {
                let _ = writeln!(s, "![{}]({}.svg)\n", f.title, f.id);
            }
            for c in &f.caption {
                let _ = writeln!(s, "{c}  ");
            }
            s.push('\n');
        }
        for t in &sec.tables {
            s.push_str(&table(t));
        }
    }
    s
}
