//! The report as one self-contained HTML page: inline SVG, inline CSS, no script,
//! no external reference.

use super::{Report, Section, Table, TrustRow};
use crate::results::{MachineCard, Trust};
use crate::text::card::{lines, short_name, subject, value_text};
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
body { font-family: sans-serif; margin: 1em auto; max-width: 1560px; padding: 0 1em; color: #222; line-height: 1.35; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; display: block; overflow-x: auto; max-width: 100%; }
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
.warnings { font-size: 0.85em; color: #444; margin: 0.2em 0; }
.toc { columns: 3; font-size: 0.9em; margin-top: 0.2em; }
.figs figure.wide { max-width: calc(50% - 0.75em); }
@media (max-width: 1100px) { .figs figure.wide { max-width: 100%; } }
.id { font-size: 0.9em; margin: 0.2em 0 0.5em; }
table.card { font-size: 0.85em; margin: 0.3em 0; }
table.card td { text-align: left; border: none; border-bottom: 1px solid #eee; padding: 0.05em 0.5em; }
table.card tr.method td { font-weight: bold; background: #f3f3f3; }
.t-noisy { color: #a60; } .t-flagged-fit { color: #b00; } .t-virtual { color: #609; } .t-busy { color: #b00; font-weight: bold; }
.decisions { font-size: 0.9em; margin: 0.3em 0; }
table.grid td { border: none; padding: 0 0.3em; text-align: left; font-size: 0.85em; }
.cell { display: inline-block; width: 9px; height: 12px; margin-right: 1px; }
.s0 { background: #3a3; } .s1 { background: #9c5; } .s2 { background: #eb3; } .s3 { background: #d33; } .sn { background: #ccc; }
.top { font-size: 0.6em; font-weight: normal; margin-left: 1em; }
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

/// The first section whose id names `kernel` (`pingpong/mailbox` ->
/// `pingpong-mailbox...`), for links from the card.
fn link(sections: &[Section], kernel: &str) -> Option<String> {
    let stem = super::slug(kernel);
    sections
        .iter()
        .find(|s| s.id == stem || s.id.starts_with(&format!("{stem}-")))
        .map(|s| s.id.clone())
}

fn trust_class(t: Trust) -> &'static str {
    match t {
        Trust::Ok => "t-ok",
        Trust::Noisy => "t-noisy",
        Trust::FlaggedFit => "t-flagged-fit",
        Trust::Virtual => "t-virtual",
        Trust::Busy => "t-busy",
        Trust::Unresolved => "t-unresolved",
    }
}

/// A machine card: identity, a row per printed line linking to its section,
/// the decisions.
fn card(s: &mut String, c: &MachineCard, sections: &[Section], n: usize) {
    let id = &c.identity;
    let _ = writeln!(
        s,
        "<h2 id=\"card-{n}\">{} &middot; {} &middot; {}</h2>",
        esc(&id.cpu_model),
        esc(&id.hostname),
        esc(&id.date)
    );
    let _ = writeln!(
        s,
        "<p class=\"id\">{}; {}<br>vector code run: {}; the CPU offers: {}; compiled for: {}<br>{} run, {} trials per point; halfperf {}; {} kernel results, {} with warnings{}</p>",
        esc(&id.cores),
        esc(&id.caches.join(", ")),
        esc(&crate::text::card::isa_run_summary(&id.isa_run)),
        esc(&id.isa_offered.join(" ")),
        esc(&id.isa_used.join(" ")),
        if id.quick { "quick" } else { "full" },
        id.trials.map_or("?".into(), |t| t.to_string()),
        esc(&id.halfperf),
        id.kernels,
        id.kernels_warned,
        if id.incomplete {
            "; incomplete (interrupted)"
        } else {
            ""
        }
    );
    s.push_str("<table class=\"card\">\n");
    let mut method = "";
    for line in lines(&c.rows) {
        let first = &line[0];
        if first.method != method {
            method = &first.method;
            let _ = writeln!(
                s,
                "<tr class=\"method\"><td colspan=\"3\">{}</td></tr>",
                esc(method)
            );
        }
        let label = match link(sections, &first.kernel) {
            Some(to) => format!("<a href=\"#{to}\">{}</a>", esc(&first.line)),
            None => esc(&first.line),
        };
        let values: Vec<String> = line
            .iter()
            .map(|r| {
                format!(
                    "<span class=\"{}\" title=\"{}\">{} {}</span>",
                    trust_class(r.trust),
                    esc(&r.interval),
                    esc(short_name(&r.name)),
                    esc(&value_text(
                        r.value,
                        r.ci95,
                        &r.unit,
                        r.trust,
                        r.repetitions.as_ref()
                    ))
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "<tr><td>{label}</td><td>{}</td><td>{}</td></tr>",
            esc(&subject(first)),
            values.join("; ")
        );
    }
    s.push_str("</table>\n");
    if !c.decisions.is_empty() {
        s.push_str("<ul class=\"decisions\">\n");
        for d in &c.decisions {
            let links: Vec<String> = d
                .kernels
                .iter()
                .filter_map(|k| {
                    link(sections, k).map(|to| format!("<a href=\"#{to}\">{}</a>", esc(k)))
                })
                .collect();
            let _ = writeln!(s, "<li>{} ({})</li>", esc(&d.text), links.join(", "));
        }
        s.push_str("</ul>\n");
    }
}

/// The spread class of a point: under 5 %, 20 %, 50 %, more, unknown.
fn spread_class(spread: Option<f64>) -> &'static str {
    match spread {
        None => "sn",
        Some(x) if x < 0.05 => "s0",
        Some(x) if x < 0.2 => "s1",
        Some(x) if x < 0.5 => "s2",
        Some(_) => "s3",
    }
}

/// The trust grid: a row per kernel result, a cell per point coloured by its
/// spread, the placement, load and warnings beside.
fn trust_grid(s: &mut String, rows: &[TrustRow]) {
    s.push_str("<h2 id=\"trust\">Trust grid<a class=\"top\" href=\"#top\">top</a></h2>\n");
    s.push_str("<p class=\"id\">One cell per point, coloured by its spread (max &minus; min) / min over trials: <span class=\"cell s0\"></span> under 5 %, <span class=\"cell s1\"></span> under 20 %, <span class=\"cell s2\"></span> under 50 %, <span class=\"cell s3\"></span> more, <span class=\"cell sn\"></span> no distribution.</p>\n<table class=\"grid\">\n");
    for r in rows {
        let cells: String = r
            .cells
            .iter()
            .map(|(at, spread)| {
                let title = match spread {
                    Some(x) => format!("{at}: spread {:.0} %", x * 100.0),
                    None => at.clone(),
                };
                format!(
                    "<span class=\"cell {}\" title=\"{}\"></span>",
                    spread_class(*spread),
                    esc(&title)
                )
            })
            .collect();
        let mut notes = Vec::new();
        if r.unusual_placement {
            notes.push("<span class=\"t-virtual\">virtual</span>".to_string());
        }
        if r.busy {
            notes.push("<span class=\"t-busy\">busy</span>".to_string());
        }
        if r.warnings > 0 {
            notes.push(format!("{} warning(s)", r.warnings));
        }
        let _ = writeln!(
            s,
            "<tr><td><a href=\"#{}\">{}</a></td><td>{cells}</td><td>{}</td></tr>",
            r.section,
            esc(&r.label),
            notes.join(", ")
        );
    }
    s.push_str("</table>\n");
}

/// One section: its notes (placement, the warnings folded), its figures, then
/// its tables (the fits open, the point tables folded unless nothing else shows).
fn push_section(s: &mut String, sec: &Section) {
    let _ = writeln!(
        s,
        "<section id=\"{}\">\n<h2>{}<a class=\"top\" href=\"#contents\">contents</a></h2>",
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
        // The warnings fold away: the trust grid counts them.
        if !n.warnings.is_empty() {
            let _ = writeln!(
                s,
                "<details class=\"warnings\"><summary>{} warning(s)</summary><ul>",
                n.warnings.len()
            );
            for w in &n.warnings {
                let _ = writeln!(s, "<li>{}</li>", esc(w));
            }
            s.push_str("</ul></details>\n");
        }
    }
    s.push_str("<div class=\"figs\">\n");
    for f in &sec.figures {
        // As wide as its drawing, so that small figures (heat maps) sit side by side.
        let width = svg_width(&f.svg).unwrap_or(760);
        // Wide figures two to a row where the page is wide.
        let class = if width > 500 { " class=\"wide\"" } else { "" };
        let _ = writeln!(
            s,
            "<figure id=\"{}\"{class} style=\"width: {width}px\">\n<h3>{}</h3>\n{}\n<figcaption>{}</figcaption>\n</figure>",
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

/// The page: the cards and decisions first, then the trust grid, the files'
/// facts, the contents by method, and a section per kernel.
pub fn to_html(r: &Report) -> String {
    let mut s = String::new();
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let title = match &r.cards[..] {
        [c] => format!(
            "halfperf: {}, {}",
            c.identity.cpu_model, c.identity.hostname
        ),
        cards => format!("halfperf: {} result files", cards.len()),
    };
    let _ = write!(s, "<title>{}</title>\n<style>", esc(&title));
    s.push_str(STYLE);
    let _ = writeln!(
        s,
        "</style>\n</head>\n<body>\n<h1 id=\"top\">{}</h1>",
        esc(&title)
    );
    s.push_str("<p class=\"id\">Values with [95 % interval]; marks: <span class=\"t-noisy\">noisy</span>, <span class=\"t-flagged-fit\">flagged fit</span>, <span class=\"t-virtual\">virtual</span>, <span class=\"t-busy\">busy</span>. Each line links to its figures; <a href=\"#trust\">trust grid</a>, <a href=\"#contents\">contents</a>.</p>\n");
    for (i, c) in r.cards.iter().enumerate() {
        card(&mut s, c, &r.sections, i + 1);
    }
    s.push_str("<h2 id=\"index\">Index<a class=\"top\" href=\"#top\">top</a></h2>\n");
    let _ = writeln!(s, "<p>{}</p>", esc(&r.index.caption));
    s.push_str(&table(&r.index));
    trust_grid(&mut s, &r.trust);
    s.push_str("<h2 id=\"files\">Files<a class=\"top\" href=\"#top\">top</a></h2>\n");
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
    s.push_str("<h2 id=\"contents\">Contents<a class=\"top\" href=\"#top\">top</a></h2>\n");
    for m in r.methods() {
        let _ = writeln!(s, "<h3>{}</h3>\n<ul class=\"toc\">", esc(m));
        for sec in r.sections.iter().filter(|sec| sec.method == m) {
            let _ = writeln!(
                s,
                "<li><a href=\"#{}\">{}</a></li>",
                sec.id,
                esc(&sec.title)
            );
        }
        s.push_str("</ul>\n");
    }
    for sec in &r.sections {
        push_section(&mut s, sec);
    }
    s.push_str("</body>\n</html>\n");
    s
}
