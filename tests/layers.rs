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
    "progress.rs",
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

/// The paths a `use` tree or a path expression opens at `text` (which starts
/// at its first segment): `super::{a, b::{c, self}}` gives `super::a`,
/// `super::b::c` and `super::b`. Each path stops at its first segment that
/// is no identifier (`*`, `as`, a call's parenthesis).
fn path_tree(text: &str) -> Vec<Vec<String>> {
    fn tree(text: &str, at: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        loop {
            *at += text[*at..].len() - text[*at..].trim_start().len();
            if text[*at..].starts_with('{') {
                *at += 1;
                loop {
                    tree(text, at, path.clone(), out);
                    *at += text[*at..].len() - text[*at..].trim_start().len();
                    match text[*at..].chars().next() {
                        Some(',') => *at += 1,
                        Some('}') => {
                            *at += 1;
                            return;
                        }
                        _ => return,
                    }
                }
            }
            let name = identifier(&text[*at..]);
            if name.is_empty() {
                break;
            }
            *at += name.len();
            if name != "self" || path.is_empty() {
                path.push(name.to_owned());
            }
            if !text[*at..].starts_with("::") {
                break;
            }
            *at += 2;
        }
        // `a as b`: the path is `a`; skip the alias.
        if text[*at..].trim_start().starts_with("as ") {
            let rest = text[*at..].trim_start()[3..].trim_start();
            *at = text.len() - rest.len() + identifier(rest).len();
        }
        out.push(path);
    }
    let mut out = Vec::new();
    tree(text, &mut 0, Vec::new(), &mut out);
    out.retain(|p| !p.is_empty());
    out
}

/// `path` (from a file of `module`) as a path from the crate root, if it
/// starts at `crate`, `self` or `super`, or, when `relative`, at a module
/// of `module`'s own (a `use` without a prefix).
fn absolute(module: &[String], path: &[String], relative: bool) -> Option<Vec<String>> {
    let mut base = module.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ if relative => {}
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// One production file's paths into the crate, from the crate root, and
/// the names it re-exports (`pub use`), each with the path it stands for.
struct Paths {
    used: Vec<Vec<String>>,
    exported: Vec<(String, Vec<String>)>,
}

fn paths_of(module: &[String], code: &str) -> Paths {
    let mut used = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(root) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
                continue;
            }
            used.extend(
                path_tree(&code[i..])
                    .iter()
                    .filter_map(|p| absolute(module, p, false)),
            );
        }
    }
    let mut exported = Vec::new();
    for (i, _) in code.match_indices("use ") {
        let head = code[..i].trim_end();
        let public = ["pub", "pub(crate)", "pub(super)"]
            .iter()
            .any(|p| head.ends_with(p));
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        for p in path_tree(&code[i + 4..]) {
            let Some(abs) = absolute(module, &p, true) else {
                continue;
            };
            if public && let Some(name) = p.last() {
                exported.push((name.clone(), abs.clone()));
            }
            used.push(abs);
        }
    }
    Paths { used, exported }
}

/// The module a path from the root names: its longest prefix that is a
/// module, following re-exports (`pub use`) of the modules on the way.
fn target(
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    exports: &BTreeMap<(Vec<String>, String), Vec<String>>,
    depth: usize,
) -> Vec<String> {
    let mut at: Vec<String> = Vec::new();
    for segment in path {
        let mut next = at.clone();
        next.push(segment.clone());
        if modules.contains(&next) {
            at = next;
        } else if let Some(to) = exports.get(&(at.clone(), segment.clone()))
            && depth < 8
            && to != path
        {
            return target(to, modules, exports, depth + 1);
        } else {
            break;
        }
    }
    at
}

/// The circles among sibling modules of one folder (a module and what is
/// inside it counting as one), each as its members' names under the folder.
fn folder_circles(src: &Path) -> Vec<String> {
    let mut all = Vec::new();
    files(src, &mut all);
    all.sort();
    let mut modules = BTreeSet::new();
    let mut code = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(src).unwrap();
        let name = rel.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue; // modules of tests, declared under #[cfg(test)]
        }
        let mut module = module_path(rel);
        if module.last().is_some_and(|m| m == "lib" || m == "main") {
            module.pop();
        }
        modules.insert(module.clone());
        let text = production_code(&std::fs::read_to_string(path).unwrap());
        code.push((module, text));
    }
    let parsed: Vec<(Vec<String>, Paths)> = code
        .iter()
        .map(|(m, text)| (m.clone(), paths_of(m, text)))
        .collect();
    let mut exports = BTreeMap::new();
    for (m, p) in &parsed {
        for (name, to) in &p.exported {
            exports.insert((m.clone(), name.clone()), to.clone());
        }
    }
    // Every edge between two siblings: the children of their deepest
    // common folder that hold the user and the used.
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut why: BTreeMap<(Vec<String>, Vec<String>), String> = BTreeMap::new();
    for (m, p) in &parsed {
        for used in &p.used {
            let to = target(used, &modules, &exports, 0);
            let common = m.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < m.len() && common < to.len() {
                let (a, b) = (m[..=common].to_vec(), to[..=common].to_vec());
                edges.entry(a.clone()).or_default().insert(b.clone());
                why.entry((a, b))
                    .or_insert_with(|| format!("{} uses {}", m.join("::"), used.join("::")));
            }
        }
    }
    let mut circles = Vec::new();
    let mut seen = BTreeSet::new();
    for start in edges.keys() {
        if seen.contains(start) {
            continue;
        }
        // Those reachable from `start` that reach it back.
        let reach = |from: &Vec<String>| {
            let mut found = BTreeSet::new();
            let mut todo = vec![from.clone()];
            while let Some(m) = todo.pop() {
                for n in edges.get(&m).into_iter().flatten() {
                    if found.insert(n.clone()) {
                        todo.push(n.clone());
                    }
                }
            }
            found
        };
        let from_start = reach(start);
        if !from_start.contains(start) {
            continue;
        }
        let circle: Vec<&Vec<String>> = from_start
            .iter()
            .filter(|m| reach(m).contains(start))
            .collect();
        let folder = start[..start.len() - 1].join("::");
        let names: Vec<&str> = circle.iter().map(|m| m.last().unwrap().as_str()).collect();
        seen.extend(circle.iter().map(|m| (*m).clone()));
        let inside: Vec<&String> = why
            .iter()
            .filter(|((a, b), _)| circle.contains(&a) && circle.contains(&b))
            .map(|(_, w)| w)
            .collect();
        circles.push(format!(
            "{}: {}\n  {}",
            if folder.is_empty() { "crate" } else { &folder },
            names.join(", "),
            inside
                .iter()
                .map(|w| w.as_str())
                .collect::<Vec<_>>()
                .join("\n  ")
        ));
    }
    circles
}

/// The circles still to break, each as [`folder_circles`] names it (its
/// folder and members): the decomposition's schedule (`plan.rs`) holds its
/// results per size, whose fields are rank 0's figure types (`rank0.rs`),
/// and rank 0 reads the schedule. Moving `SizeTimes` and `Repetition` to
/// `rank0.rs` breaks it; then this list is empty.
const KNOWN_CIRCLES: &[&str] = &[];

/// No two sibling modules (in any folder of `src/`) import each other,
/// directly or around a circle, through any path (re-exports followed),
/// beyond the known ones; and each known one is still there, so that the
/// list shrinks as they are broken.
#[test]
fn no_module_circle_inside_a_folder() {
    let circles = folder_circles(Path::new(SRC));
    let named: Vec<&str> = circles
        .iter()
        .map(|c| c.lines().next().unwrap_or_default())
        .collect();
    let new: Vec<&String> = circles
        .iter()
        .filter(|c| !KNOWN_CIRCLES.contains(&c.lines().next().unwrap_or_default()))
        .collect();
    assert!(
        new.is_empty(),
        "module circles inside folders:\n{}",
        new.iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for known in KNOWN_CIRCLES {
        assert!(
            named.contains(known),
            "the circle {known} is broken: take it off KNOWN_CIRCLES"
        );
    }
}

/// The circle finder reads grouped imports, `self`, aliases and re-exports.
#[test]
fn the_circle_finder_reads_grouped_paths_and_reexports() {
    let strings = |v: &[&[&str]]| -> Vec<Vec<String>> {
        v.iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .collect()
    };
    assert_eq!(
        path_tree("super::{a, b::{c, self}, d as e}::x;"),
        strings(&[
            &["super", "a"],
            &["super", "b", "c"],
            &["super", "b"],
            &["super", "d"]
        ])
    );
    let module: Vec<String> = ["k", "m"].iter().map(|s| (*s).to_owned()).collect();
    let p = paths_of(
        &module,
        "pub use super::n::Spec;\nfn f() { super::o::run(); }",
    );
    assert_eq!(
        p.exported,
        vec![(
            "Spec".to_owned(),
            strings(&[&["k", "n", "Spec"]])[0].clone()
        )]
    );
    let mut used = p.used.clone();
    used.sort();
    assert_eq!(
        used,
        strings(&[&["k", "n", "Spec"], &["k", "n", "Spec"], &["k", "o", "run"]])
    );
    let modules: BTreeSet<Vec<String>> = strings(&[&["k"], &["k", "n"], &["k", "o"]])
        .into_iter()
        .collect();
    let mut exports = BTreeMap::new();
    exports.insert(
        ("k".to_owned(), "Spec".to_owned()),
        strings(&[&["k", "n", "Spec"]])[0].clone(),
    );
    let exports: BTreeMap<(Vec<String>, String), Vec<String>> = exports
        .into_iter()
        .map(|((m, n), to)| ((vec![m], n), to))
        .collect();
    assert_eq!(
        target(&strings(&[&["k", "Spec"]])[0], &modules, &exports, 0),
        strings(&[&["k", "n"]])[0]
    );
}

/// `lib.rs` declares its modules in the order of its docs' list (the loom
/// shim `primitive` first, under every layer).
#[test]
fn the_declarations_follow_the_list() {
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).expect("src/lib.rs");
    let declared: Vec<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or(l.strip_prefix("mod ")))
        .map(|l| l.trim_end_matches(';').to_owned())
        .collect();
    let mut listed = vec!["primitive".to_owned()];
    listed.extend(layers());
    assert_eq!(declared, listed);
}
