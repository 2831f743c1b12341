//! The dependency rule of `src/lib.rs`, checked from the source: no module imports from a higher
//! layer, no two top-level modules import each other (directly or round a cycle), and no two
//! files of one folder do (an area of `app/update` never calls another). Reading `crate::` and
//! `super::` paths is enough; a path inside a string or comment is ignored.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layers, lowest first; a module may import its own layer and those below.
const LAYERS: &[&[&str]] = &[
    &[
        "ids",
        "logs",
        "classify",
        "metrics",
        "dataset",
        "triage",
        "report",
        "agents",
        "fixes",
        "runs",
        "builds",
        "campaigns",
        "telemetry",
        "config",
        "files",
        "synthetic",
        "startup",
    ],
    &["docker", "gpu"],
    &["app"],
    &["ui"],
    &["session"],
    &["jobs"],
    &["cli", "runtime"],
];

/// Same-layer pairs that must not meet either way.
const APART: &[(&str, &str)] = &[("cli", "runtime"), ("docker", "gpu")];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    files_in(dir)
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "lib.rs" && n != "main.rs"))
        .collect()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_in(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// A file's module path: `src/app/update/runs.rs` → `["app", "update", "runs"]`.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix("src").unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Source text without comments and string literals (so paths in prose do not count).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut in_string = false;
        for c in code.chars() {
            if c == '"' {
                in_string = !in_string;
            } else if !in_string {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// `prefix::{a, b::{c, d}}` written out as `prefix::a prefix::b::c prefix::b::d`, so that each
/// path of a grouped import is seen.
fn ungrouped(text: &str) -> String {
    let Some(open) = text.find("::{") else { return text.to_string() };
    let start =
        text[..open].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(0, |i| i + 1);
    let prefix = &text[start..open];
    let mut depth = 0;
    let close = text[open + 2..]
        .char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            depth == 0
        })
        .map_or(text.len(), |(i, _)| open + 2 + i);
    let inner = ungrouped(&text[(open + 3).min(close)..close]);
    let items: Vec<String> =
        top_level_items(&inner).iter().map(|item| format!("{prefix}::{}", item.trim())).collect();
    format!("{}{} {}", &text[..start], items.join(" "), ungrouped(text.get(close + 1..).unwrap_or("")))
}

/// The comma-separated items of a group (the groups inside it are already written out).
fn top_level_items(inner: &str) -> Vec<String> {
    inner.split([',', ' ', '\n']).filter(|i| !i.trim().is_empty()).map(str::to_string).collect()
}

/// Absolute module paths a file refers to, from `crate::a::b` and `super::x` paths, grouped ones
/// (`use super::{a, b::c}`) included.
fn references(file: &Path) -> Vec<Vec<String>> {
    let text = ungrouped(&code_only(&std::fs::read_to_string(file).unwrap()));
    let module = module_of(file);
    let mut out = Vec::new();
    let words = text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'));
    for word in words.filter(|w| w.contains("::")) {
        let parts: Vec<&str> = word.split("::").filter(|p| !p.is_empty()).collect();
        let absolute: Option<Vec<String>> = match parts.first() {
            Some(&"crate") => Some(parts[1..].iter().map(|p| p.to_string()).collect()),
            Some(&"super") => {
                let ups = parts.iter().take_while(|p| **p == "super").count();
                // In `a/b.rs` and in `a/b/mod.rs` alike, `super` is `a`.
                let base = &module[..module.len().saturating_sub(ups)];
                Some(base.iter().cloned().chain(parts[ups..].iter().map(|p| p.to_string())).collect())
            }
            _ => None,
        };
        out.extend(absolute);
    }
    out
}

/// Edges between top-level modules, with an example file for each.
fn top_level_edges() -> BTreeMap<(String, String), PathBuf> {
    let mut edges = BTreeMap::new();
    for file in files(Path::new("src")) {
        let module = module_of(&file);
        let Some(from) = module.first().cloned() else { continue };
        for path in references(&file) {
            if let Some(to) = path.first().filter(|t| layer(t).is_some() && **t != from) {
                edges.entry((from.clone(), to.clone())).or_insert_with(|| file.clone());
            }
        }
    }
    edges
}

fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    for start in nodes {
        let mut stack = vec![vec![start.clone()]];
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for (_, next) in edges.iter().filter(|(a, _)| a == last) {
                if next == start {
                    return Some(path.iter().cloned().chain([next.clone()]).collect());
                }
                if !path.contains(next) {
                    stack.push(path.iter().cloned().chain([next.clone()]).collect());
                }
            }
        }
    }
    None
}

#[test]
fn no_module_imports_from_a_higher_layer() {
    let mut upward = Vec::new();
    for ((from, to), file) in top_level_edges() {
        let (Some(lf), Some(lt)) = (layer(&from), layer(&to)) else { continue };
        let apart = APART.iter().any(|(a, b)| (*a == from && *b == to) || (*a == to && *b == from));
        if lt > lf || apart {
            upward.push(format!("{from} → {to} ({})", file.display()));
        }
    }
    assert!(upward.is_empty(), "imports against the layers of src/lib.rs:\n{}", upward.join("\n"));
}

#[test]
fn top_level_modules_form_no_cycle() {
    let edges: BTreeSet<(String, String)> = top_level_edges().into_keys().collect();
    assert_eq!(find_cycle(&edges), None, "an import cycle between top-level modules");
}

#[test]
fn no_two_files_of_a_folder_import_each_other() {
    let mut edges = BTreeSet::new();
    let modules: BTreeSet<Vec<String>> = files(Path::new("src")).iter().map(|f| module_of(f)).collect();
    for file in files(Path::new("src")) {
        let module = module_of(&file);
        let Some((_, parent)) = module.split_last() else { continue };
        for path in references(&file) {
            // A sibling: same parent, a different file below it.
            if path.len() > parent.len()
                && path[..parent.len()] == *parent
                && path[parent.len()] != module[parent.len()]
            {
                let sibling = [parent, &path[parent.len()..=parent.len()]].concat();
                if modules.contains(&sibling) {
                    edges.insert((module.join("::"), sibling.join("::")));
                }
            }
        }
    }
    assert_eq!(find_cycle(&edges), None, "an import cycle between files of one folder");
}

#[test]
fn the_checker_sees_a_cycle_and_an_upward_import_when_there_is_one() {
    let edges: BTreeSet<(String, String)> =
        [("app", "config"), ("config", "app")].map(|(a, b)| (a.to_string(), b.to_string())).into();
    assert_eq!(find_cycle(&edges).map(|c| c.len()), Some(3));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.rs");
    std::fs::write(&file, "use crate::runtime::tui; // crate::ui in a comment\nlet s = \"crate::jobs\";\n")
        .unwrap();
    let text = code_only(&std::fs::read_to_string(&file).unwrap());
    assert!(
        text.contains("crate::runtime::tui") && !text.contains("crate::ui") && !text.contains("crate::jobs")
    );
    assert!(layer("runtime") > layer("logs"), "domain → runtime would be reported as upward");
}

#[test]
fn grouped_imports_are_seen_path_by_path() {
    let text = ungrouped("use super::{runs, logs::{a, b}};\nuse crate::{app::Msg, ui};\n");
    for path in ["super::runs", "super::logs::a", "super::logs::b", "crate::app::Msg", "crate::ui"] {
        assert!(text.split_whitespace().any(|w| w.trim_end_matches(';') == path), "{path} in {text}");
    }
}
