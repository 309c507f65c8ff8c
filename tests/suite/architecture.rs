//! The layout's import graph, read from the sources: the top-level modules of `src/` form no
//! cycle, and the two front ends stay at the edge — nothing imports the command line or the
//! studio, and the engine and the language layers know nothing of the analysis and the tools
//! above them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `module → modules it names as crate::X`, ignoring comments and `#[cfg(test)]` code.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
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
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
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
