//! The code documents the design, not the lab: no file under `src/` carries a
//! dated figure (a date like 2026-11-28 ties a number to one machine on one day;
//! such measurements belong in commit bodies and `results/`), and every module
//! doc (the `//!` lines at the top of a file) stays within 60 lines: what is
//! measured or predicted, from which paper, the design and its invariants.

use std::path::{Path, PathBuf};

/// The longest module doc allowed, in `//!` lines.
const MAX_MODULE_DOC_LINES: usize = 60;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn src_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut v);
    v.sort();
    assert!(v.len() > 50, "src/ read as {} files", v.len());
    v
}

/// The dates (`20dd-dd-dd`) in a text, with their line numbers.
fn dates(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        for i in 0..b.len().saturating_sub(9) {
            let w = &b[i..i + 10];
            let digits = [0, 1, 2, 3, 5, 6, 8, 9]
                .iter()
                .all(|&k| w[k].is_ascii_digit());
            if w[0] == b'2' && w[1] == b'0' && digits && w[4] == b'-' && w[7] == b'-' {
                found.push((n + 1, String::from_utf8_lossy(w).into_owned()));
            }
        }
    }
    found
}

/// The number of `//!` lines a file opens with (blank lines and inner
/// attributes between them do not end the block).
fn module_doc_lines(text: &str) -> usize {
    let mut n = 0;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("//!") {
            n += 1;
        } else if !(t.is_empty() || t.starts_with("#![")) {
            break;
        }
    }
    n
}

#[test]
fn the_checks_see_what_they_look_for() {
    assert_eq!(
        dates("a\nrun of 2026-11-28: 5 ns\n1999-01-01 20261128"),
        vec![(2, "2026-11-28".to_string())]
    );
    assert_eq!(
        module_doc_lines("//! a\n//! b\n\n#![forbid(unsafe_code)]\n//! c\nuse x;\n//! d"),
        3
    );
    assert_eq!(module_doc_lines("use x;\n//! a"), 0);
}

#[test]
fn no_dated_figure_in_src() {
    let mut bad = Vec::new();
    for p in src_files() {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for (line, date) in dates(&text) {
            bad.push(format!("{}:{line}: {date}", p.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "dated figures in src/ (measurements go in commit bodies and results/):\n{}",
        bad.join("\n")
    );
}

#[test]
fn module_docs_stay_within_sixty_lines() {
    let mut long = Vec::new();
    for p in src_files() {
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let n = module_doc_lines(&std::fs::read_to_string(&p).unwrap());
        if n > MAX_MODULE_DOC_LINES {
            long.push(format!("{}: {n} lines", p.display()));
        }
    }
    assert!(
        long.is_empty(),
        "module docs over {MAX_MODULE_DOC_LINES} lines:\n{}",
        long.join("\n")
    );
}
