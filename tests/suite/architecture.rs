//! The layout's import graph, read from the sources: the top-level modules of `src/` form no
//! cycle, and the two front ends stay at the edge — nothing imports the command line or the
//! studio, and the engine and the language layers know nothing of the analysis and the tools
//! above them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The `.rs` files under `dir`, at any depth.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files
}

/// The module a relative path belongs to: its first component, without `.rs`.
fn first_component(rel: &Path) -> String {
    rel.components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// `module → modules it names as crate::X`, ignoring comments and `#[cfg(test)]` code.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in rust_files(&src) {
        let rel = f.strip_prefix(&src).unwrap();
        let top = first_component(rel);
        if top == "lib" || top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let deps = graph.entry(top.clone()).or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let name: String = line[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != top {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

fn reaches(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for d in graph.get(&m).into_iter().flatten() {
            if d == to {
                return true;
            }
            if seen.insert(d.clone()) {
                stack.push(d.clone());
            }
        }
    }
    false
}

#[test]
fn the_modules_form_no_cycle() {
    let g = import_graph();
    assert!(g.len() > 12, "found only {:?}", g.keys());
    let mut cycles = Vec::new();
    for (m, deps) in &g {
        for d in deps {
            if reaches(&g, d, m) {
                cycles.push(format!("{m} → {d} → … → {m}"));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn the_front_ends_stay_at_the_edge() {
    let g = import_graph();
    for (m, deps) in &g {
        if m != "cli" && m != "gui" {
            assert!(!deps.contains("cli"), "{m} imports the command line");
            assert!(!deps.contains("gui"), "{m} imports the studio");
        }
    }
    // The language layers and the engine know nothing of what is built on them; nor do the
    // compile front end's symbol index and pipeline (they know the language layers only).
    for low in ["symbols", "pipeline"] {
        for high in [
            "analysis",
            "search",
            "engine",
            "report",
            "arena",
            "players",
            "authoring",
            "lsp",
        ] {
            assert!(
                !reaches(&g, low, high),
                "{low} depends on {high}: {:?}",
                g.get(low)
            );
        }
    }
    for low in ["syntax", "expand", "program", "engine", "side", "diag"] {
        for high in [
            "analysis",
            "search",
            "report",
            "arena",
            "players",
            "authoring",
            "lsp",
            "pipeline",
        ] {
            assert!(
                !reaches(&g, low, high),
                "{low} depends on {high}: {:?}",
                g.get(low)
            );
        }
    }
}

/// The submodules of the folder `src/<folder>/` and what each names of its siblings: a child
/// file or folder `X` is node `X`, `mod.rs` is node `mod`. A child names a sibling by
/// `super::X` or `crate::<folder>::X` (an item `mod.rs` re-exports from `X` counts as `X`, any
/// other item as `mod`); `mod.rs` names a child by a path `X::` in its code (its `pub use`
/// re-exports are the folder's face, not a use). Comments and `#[cfg(test)]` code are left out.
fn submodule_graph(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(folder);
    let strip = |text: &str| -> String {
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        code.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    // The names after a path prefix: `X…` or each first name of a `{a, b::c, D}` group.
    let names_after = |rest: &str| -> Vec<String> {
        let rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            let mut out = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(ident(item.trim()));
            out.into_iter().filter(|n| !n.is_empty()).collect()
        } else {
            vec![ident(rest)]
        }
    };
    let mut children = BTreeSet::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if name != "mod" && (p.is_dir() || p.extension().is_some_and(|x| x == "rs")) {
            children.insert(name);
        }
    }
    let module = strip(&std::fs::read_to_string(dir.join("mod.rs")).unwrap());
    // Items `mod.rs` re-exports, by the child they come from.
    let mut reexported: BTreeMap<String, String> = BTreeMap::new();
    for stmt in module.split(';') {
        let s = stmt.trim();
        if let Some(path) = s
            .strip_prefix("pub use ")
            .or_else(|| s.strip_prefix("pub(crate) use "))
            && let Some((child, rest)) = path.split_once("::")
            && children.contains(child)
        {
            for n in names_after(rest) {
                reexported.insert(n, child.to_string());
            }
        }
    }
    let resolve = |n: &str| -> String {
        if children.contains(n) {
            n.to_string()
        } else {
            reexported.get(n).cloned().unwrap_or_else(|| "mod".into())
        }
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in rust_files(&dir) {
        let rel = f.strip_prefix(&dir).unwrap();
        let node = first_component(rel);
        let direct = rel.components().count() == 1;
        let code = strip(&std::fs::read_to_string(&f).unwrap());
        let deps = graph.entry(node.clone()).or_default();
        let mut prefixes = vec![format!("crate::{folder}::")];
        if direct && node != "mod" {
            prefixes.push("super::".into());
        }
        for prefix in &prefixes {
            for (i, _) in code.match_indices(prefix.as_str()) {
                for n in names_after(&code[i + prefix.len()..]) {
                    let to = resolve(&n);
                    if to != node {
                        deps.insert(to);
                    }
                }
            }
        }
        if node == "mod" {
            // The code of mod.rs: paths that start with a child's name, outside re-exports
            // and `mod` declarations.
            for stmt in code.split(';') {
                let s = stmt.trim();
                if s.starts_with("pub use ") || s.starts_with("pub(crate) use ") {
                    continue;
                }
                for child in &children {
                    let pat = format!("{child}::");
                    for (i, _) in s.match_indices(&pat) {
                        let before = s[..i].chars().next_back();
                        if before
                            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                        {
                            deps.insert(child.clone());
                        }
                    }
                }
            }
        }
    }
    graph
}

fn cycles_in(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut cycles = Vec::new();
    for (m, deps) in graph {
        for d in deps {
            if reaches(graph, d, m) {
                cycles.push(format!("{m} → {d} → … → {m}"));
            }
        }
    }
    cycles
}

/// Within each folder the children form no circle (the folder's own items in `mod.rs` aside:
/// in `engine` and `analysis` they are the shared types the children build on). In `search`,
/// whose `mod.rs` only declares and re-exports, not even through it: its shared helpers live
/// in the leaf `base.rs`, and the searcher owns its deepening.
#[test]
fn the_submodules_of_each_folder_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    let mut folders = 0;
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && p.join("mod.rs").exists() {
            folders += 1;
            let folder = p.file_name().unwrap().to_string_lossy().to_string();
            let mut g = submodule_graph(&folder);
            if folder == "search" {
                assert!(
                    g.iter()
                        .all(|(m, deps)| m == "mod" || !deps.contains("mod")),
                    "a submodule of search uses an item defined in search/mod.rs: {g:?}"
                );
                assert!(g.len() >= 12, "search: found only {:?}", g.keys());
            } else {
                g.remove("mod");
                for deps in g.values_mut() {
                    deps.remove("mod");
                }
            }
            for c in cycles_in(&g) {
                all.push(format!("{folder}: {c}"));
            }
        }
    }
    assert!(folders >= 8, "found only {folders} folders");
    assert!(all.is_empty(), "submodule cycles: {all:#?}");
}
