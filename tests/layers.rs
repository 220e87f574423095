//! Dependencies run one way. The crate docs (`src/lib.rs`) list the top-level
//! modules from the machine up to the command line and promise that each imports
//! only those above it; this test reads every library file (its tests left out)
//! and checks every path into another top-level module (`crate::x`, or `super::`
//! up to the root and on into `x`) against that list. A reference upward is a
//! cycle in the making, and the failure names the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The binary's own files: above every module, so they may use any.
const BINARY: &[&str] = &[
    "main.rs",
    "args.rs",
    "bars.rs",
    "mpirun.rs",
    "replay_cli.rs",
    "predict_cli.rs",
    "simulate_cli.rs",
    "model_papers_cli.rs",
    "model_sci_cli.rs",
    "model_hockney_cli.rs",
    "model_speedup_cli.rs",
    "plan_cli.rs",
    "index_cli.rs",
];

/// The loom shim under every layer, and the exported macro of `transport`.
const ALIASES: [(&str, &str); 2] = [("primitive", "primitive"), ("with_transport", "transport")];

/// The modules in the order of the crate docs' list (`- [`x`]: ...`).
fn layers() -> Vec<String> {
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).expect("src/lib.rs");
    lib.lines()
        .filter_map(|l| l.strip_prefix("//! - [`"))
        .filter_map(|l| l.split_once("`]").map(|(name, _)| name.to_owned()))
        .collect()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`kernels/comet/mod.rs` is
/// `["kernels", "comet"]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The text without line comments and without the items under
/// `#[cfg(test)]`/`#[cfg(all(test, ...))]` (up to their closing brace or `;`).
fn production_code(text: &str) -> String {
    let uncommented: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = uncommented.as_str();
    while let Some(i) = rest
        .find("#[cfg(test)]")
        .into_iter()
        .chain(rest.find("#[cfg(all(test"))
        .min()
    {
        out.push_str(&rest[..i]);
        let item = &rest[i..];
        let end = match (item.find('{'), item.find(';')) {
            (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                let mut depth = 0usize;
                let mut end = item.len();
                for (k, c) in item[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, Some(semi)) => semi + 1,
            _ => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The top-level modules a file's code names, with the module it is in.
fn references(module: &[String], code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        out.insert(identifier(&code[i + 7..]).to_owned());
    }
    let mut at = 0;
    while let Some(i) = code[at..].find("super::") {
        let start = at + i;
        let mut ups = 0;
        let mut j = start;
        while code[j..].starts_with("super::") {
            ups += 1;
            j += 7;
        }
        // Imports of a file-level module climb from the module itself; a
        // `super` that reaches the crate root names a top-level module next.
        if ups == module.len() {
            out.insert(identifier(&code[j..]).to_owned());
        }
        at = j;
    }
    out.remove("");
    out
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let layers = layers();
    assert!(
        layers.len() >= 10 && layers.iter().any(|l| l == "platform"),
        "the crate docs list the modules: {layers:?}"
    );
    let rank = |name: &str| {
        let name = ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .map_or(name, |(_, to)| to);
        if name == "primitive" {
            return Some(0);
        }
        layers.iter().position(|l| l == name).map(|p| p + 1)
    };
    let mut all = Vec::new();
    files(Path::new(SRC), &mut all);
    all.sort();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut upward = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(SRC).unwrap();
        let name = rel.to_string_lossy();
        if name == "lib.rs" || BINARY.contains(&name.as_ref()) {
            continue;
        }
        if rel.file_name().is_some_and(|f| f == "tests.rs") {
            continue; // a module of tests, declared under #[cfg(test)]
        }
        let module = module_path(rel);
        let top = module[0].clone();
        let own =
            rank(&top).unwrap_or_else(|| panic!("{name}: module {top} is not in lib.rs's list"));
        let code = production_code(&std::fs::read_to_string(path).unwrap());
        for used in references(&module, &code) {
            let Some(r) = rank(&used) else { continue };
            let used = ALIASES
                .iter()
                .find(|(alias, _)| *alias == used)
                .map_or(used.clone(), |(_, to)| (*to).to_owned());
            if used == top {
                continue;
            }
            graph.entry(top.clone()).or_default().insert(used.clone());
            if r >= own {
                upward.push(format!("{name} ({top}) uses {used}"));
            }
        }
    }
    let drawn: Vec<String> = graph
        .iter()
        .map(|(from, to)| {
            format!(
                "{from} -> {}",
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    assert!(
        upward.is_empty(),
        "imports against the order of lib.rs's list:\n{}\n\nthe graph:\n{}",
        upward.join("\n"),
        drawn.join("\n")
    );
    // The list is not vacuous: the layers above use those below.
    assert!(graph["kernels"].contains("team") && graph["report"].contains("results"));
}

/// The reader of `super::` paths climbs from a file's module to the root.
#[test]
fn a_super_path_to_the_root_names_a_top_level_module() {
    let module = vec!["kernels".to_owned(), "timing".to_owned()];
    let code = "use super::super::text::x; use super::comet; use crate::model::fit;";
    let refs = references(&module, code);
    assert_eq!(
        refs,
        ["model", "text"].iter().map(|s| (*s).to_owned()).collect()
    );
    let code = production_code(
        "use crate::a;\n#[cfg(test)]\nmod tests {\n use crate::b;\n}\nuse crate::c; // crate::d\n",
    );
    assert_eq!(
        references(&module, &code),
        ["a", "c"].iter().map(|s| (*s).to_owned()).collect()
    );
}
