//! `compare` fits a terminal: two files' tables (cards and `--points`) are
//! at most 120 columns wide, wider only by one file's columns per further
//! file, and every row's cells stay in line whatever marks the row carries.

use halfperf::analysis::{compare, compare_cards};
use halfperf::results::{self, ResultFile};
use halfperf::text::compare::TWO_FILE_WIDTH;
use halfperf::text::{card_comparison, comparison};
use std::path::Path;

fn load(dir: &str, name: &str) -> ResultFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(name);
    results::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The pairs a user compares: the two reference machines of the tests, and
/// two runs of the suite on different machines (every method,
/// marks, notes and decisions).
fn pairs() -> Vec<[ResultFile; 2]> {
    vec![
        [
            load("tests/data", "machine-a.json"),
            load("tests/data", "machine-b.json"),
        ],
        [
            load("results", "xeon-avx512-2vcpu-vm-2026-11-22-quick.json"),
            load("results/machines", "amd-epyc-2vcpu-vm.json.gz"),
        ],
    ]
}

fn widest(text: &str) -> (usize, &str) {
    text.lines()
        .map(|l| (l.chars().count(), l))
        .max()
        .unwrap_or((0, ""))
}

#[test]
fn two_files_compare_within_120_columns() {
    for files in pairs() {
        for text in [
            card_comparison(&compare_cards(&files)),
            comparison(&compare(&files)),
        ] {
            let (w, line) = widest(&text);
            assert!(w <= TWO_FILE_WIDTH, "{w} columns: {line}\n{text}");
            // The legend is a short footer, not a first line of hundreds.
            assert!(text.lines().next().unwrap().starts_with("[1] "), "{text}");
            assert!(text.contains("* the intervals") || text.contains("* differs"));
        }
    }
}

#[test]
fn a_third_file_widens_the_table_by_its_own_columns_only() {
    let [a, b] = pairs().swap_remove(1);
    let two = widest(&card_comparison(&compare_cards(&[a.clone(), b.clone()]))).0;
    let three = card_comparison(&compare_cards(&[a.clone(), b.clone(), a]));
    let (w, line) = widest(&three);
    assert!(w > two && w <= TWO_FILE_WIDTH + 60, "{w}: {line}");
}

/// Every card row's change column ends at one column, marked or not: the
/// rows of the quick runs' comparison that carry a change (after the
/// second file's interval) all end there or one column later (the mark).
#[test]
fn the_change_column_stays_in_line_with_and_without_marks() {
    let files = pairs().swap_remove(1);
    let c = compare_cards(&files);
    let text = card_comparison(&c);
    let ends: Vec<(usize, bool)> = text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("      ["))
        .filter_map(|l| {
            let marked = l.ends_with('*') || l.ends_with('~');
            let body = l.trim_end_matches(['*', '~']);
            let last = body.split(' ').next_back()?;
            let change = last.starts_with('x') || last.starts_with('+') || last.starts_with('-');
            change.then_some((body.chars().count(), marked))
        })
        .collect();
    assert!(ends.len() > 20, "{text}");
    assert!(ends.iter().any(|e| e.1), "no marked row\n{text}");
    let first = ends[0].0;
    assert!(ends.iter().all(|e| e.0 == first), "{ends:?}\n{text}");
}
