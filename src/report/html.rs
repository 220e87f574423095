//! The report as one self-contained HTML page: inline SVG, inline CSS, no script,
//! no external reference.

use super::{Report, Table};
use std::fmt::Write;

/// Escapes text for HTML.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An SVG document made fit to inline: no XML namespace attribute (HTML knows
/// `<svg>`), so the page holds no URL at all.
fn inline_svg(svg: &str) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}

/// The `width` attribute of an SVG document's root element, in pixels.
fn svg_width(svg: &str) -> Option<u32> {
    let root = &svg[..svg.find('>')?];
    let rest = &root[root.find(" width=\"")? + 8..];
    rest[..rest.find('"')?].parse().ok()
}

const STYLE: &str = "
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1180px; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; vertical-align: top; }
th { background: #f3f3f3; }
td.l, th.l { text-align: left; }
.figs { display: flex; flex-wrap: wrap; gap: 0 1.5em; align-items: flex-start; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #444; max-width: 760px; }
.note { font-size: 0.9em; margin: 0.4em 0; }
.placement { display: inline-block; background: #e8f0fe; border-radius: 3px; padding: 0 0.4em; }
.placement.unusual { background: #fde2c8; }
.warn { background: #fff6d5; border-left: 4px solid #e0b000; padding: 0.2em 0.6em; margin: 0.3em 0; font-size: 0.9em; }
.toc { columns: 2; font-size: 0.9em; }
details { margin: 0.5em 0; }
summary { cursor: pointer; color: #245; }
";

fn table(t: &Table) -> String {
    let mut s = String::from("<table>\n<tr>");
    for (i, h) in t.header.iter().enumerate() {
        let class = if i == 0 { " class=\"l\"" } else { "" };
        let _ = write!(s, "<th{class}>{}</th>", esc(h));
    }
    s.push_str("</tr>\n");
    for row in &t.rows {
        s.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let class = if i == 0 || c.len() > 24 {
                " class=\"l\""
            } else {
                ""
            };
            let _ = write!(s, "<td{class}>{}</td>", esc(c));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// The page.
pub fn to_html(r: &Report) -> String {
    let mut s = String::new();
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<title>halfperf report</title>\n<style>");
    s.push_str(STYLE);
    s.push_str("</style>\n</head>\n<body>\n<h1>halfperf report</h1>\n");
    let _ = writeln!(
        s,
        "<p>{} result file(s). Every figure is drawn from the files alone; units are in the axis labels.</p>",
        r.sources.len()
    );
    for src in &r.sources {
        let _ = writeln!(s, "<h3>{}</h3>\n<table>", esc(&src.label));
        for (k, v) in &src.facts {
            let _ = writeln!(
                s,
                "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>",
                esc(k),
                esc(v)
            );
        }
        s.push_str("</table>\n");
    }
    s.push_str("<h2>Contents</h2>\n<ul class=\"toc\">\n");
    for sec in &r.sections {
        let _ = writeln!(
            s,
            "<li><a href=\"#{}\">{}</a></li>",
            sec.id,
            esc(&sec.title)
        );
    }
    s.push_str("</ul>\n");
    for sec in &r.sections {
        let _ = writeln!(
            s,
            "<section id=\"{}\">\n<h2>{}</h2>",
            sec.id,
            esc(&sec.title)
        );
        for n in &sec.notes {
            let class = if n.unusual_placement {
                "placement unusual"
            } else {
                "placement"
            };
            let _ = writeln!(
                s,
                "<div class=\"note\"><b>{}</b>: <span class=\"{class}\">{}</span></div>",
                esc(&n.label),
                esc(&n.placement)
            );
            // A few warnings in full; the rest fold away so the figures stay near.
            const SHOWN: usize = 3;
            for w in n.warnings.iter().take(SHOWN) {
                let _ = writeln!(s, "<div class=\"warn\">warning: {}</div>", esc(w));
            }
            if n.warnings.len() > SHOWN {
                let _ = writeln!(
                    s,
                    "<details><summary>{} more warnings</summary>",
                    n.warnings.len() - SHOWN
                );
                for w in &n.warnings[SHOWN..] {
                    let _ = writeln!(s, "<div class=\"warn\">warning: {}</div>", esc(w));
                }
                s.push_str("</details>\n");
            }
        }
        s.push_str("<div class=\"figs\">\n");
        for f in &sec.figures {
            // As wide as its drawing, so that small figures (heat maps) sit side by side.
            let width = svg_width(&f.svg).unwrap_or(760);
            let _ = writeln!(
                s,
                "<figure id=\"{}\" style=\"width: {width}px; max-width: 100%\">\n<h3>{}</h3>\n{}\n<figcaption>{}</figcaption>\n</figure>",
                f.id,
                esc(&f.title),
                inline_svg(&f.svg),
                f.caption
                    .iter()
                    .map(|c| esc(c))
                    .collect::<Vec<_>>()
                    .join("<br>\n")
            );
        }
        s.push_str("</div>\n");
        for (i, t) in sec.tables.iter().enumerate() {
            // The fits are open; the (long) point tables fold away, unless there is
            // no figure to show instead.
            let open = if (i == 0 && t.caption.starts_with("Fits")) || sec.figures.is_empty() {
                " open"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "<details{open}>\n<summary>{}</summary>\n{}</details>",
                esc(&t.caption),
                table(t)
            );
        }
        s.push_str("</section>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}
