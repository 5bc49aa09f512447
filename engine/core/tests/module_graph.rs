//! The engine's module graph, read from its sources (see `source_graph`): no cycle between files,
//! no import of `abi/` from outside it (the flat ABI sits on top: it knows the engine, the engine
//! never knows it), and no circle between its top-level modules (the stages) either. Test-only
//! code is left out: a test may reach anywhere. `cargo test --test module_graph -- --nocapture`
//! prints the floors. Natively only: the wasm32 test run has no file system to read sources from.
#![cfg(not(target_arch = "wasm32"))]

mod source_graph;

use source_graph::{graph, module_of, Graph};
use std::collections::{BTreeMap, BTreeSet};

/// Files outside `abi/` allowed to import it, each with its reason. None today.
const ABI_IMPORTERS: &[&str] = &[];

/// A cycle of `g`, if any, as its nodes in order.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        n: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            return Some(stack[at..].iter().cloned().chain([n.to_string()]).collect());
        }
        if !done.insert(n.to_string()) {
            return None;
        }
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(g, m, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|n| visit(g, n, &mut Vec::new(), &mut done))
}

/// The graph of top-level modules (a file's first path segment: a stage folder or a flat file).
fn stages(g: &Graph) -> Graph {
    let top = |f: &str| {
        module_of(f)
            .first()
            .cloned()
            .unwrap_or_else(|| "lib".to_string())
    };
    let mut s = Graph::new();
    // lib.rs only declares the modules (a declaration is no import): it is no floor.
    for (from, tos) in g.iter().filter(|(f, _)| *f != "lib.rs") {
        let edges = s.entry(top(from)).or_default();
        edges.extend(tos.iter().map(|t| top(t)).filter(|t| *t != top(from)));
    }
    s
}

#[test]
fn the_parser_sees_the_known_edges() {
    let g = graph();
    let has = |a: &str, b: &str| g[a].contains(b);
    assert!(
        has("abi/dispatch.rs", "merge/finalize.rs") && has("abi/dispatch.rs", "abi/codec/mod.rs")
    );
    assert!(
        has("abi/codec/spec.rs", "abi/codec/fields.rs")
            && has("merge/finalize.rs", "merge/weighted.rs")
    );
    assert!(
        has("abi/wasm.rs", "abi/mod.rs") && has("kernels/likelihood.rs", "kernels/workspace.rs")
    );
    assert!(
        !g.contains_key("kernels/reference.rs"),
        "test-only modules are left out"
    );
    assert!(g["error.rs"].is_empty(), "{:?}", g["error.rs"]);
    assert!(g.values().map(BTreeSet::len).sum::<usize>() > 100);
    let mut circle = Graph::new();
    circle.insert("a".into(), ["b".to_string()].into_iter().collect());
    circle.insert("b".into(), ["a".to_string()].into_iter().collect());
    assert_eq!(
        cycle(&circle),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
}

#[test]
fn no_file_imports_another_in_a_circle() {
    assert_eq!(cycle(&graph()), None);
}

#[test]
fn no_stage_imports_another_in_a_circle() {
    let s = stages(&graph());
    assert_eq!(cycle(&s), None);
    // Floors, top down: each module one floor above the highest it imports.
    let mut floor: BTreeMap<&str, usize> = BTreeMap::new();
    while floor.len() < s.len() {
        for (m, tos) in &s {
            if tos.iter().all(|t| floor.contains_key(t.as_str())) {
                let f = tos.iter().map(|t| floor[t.as_str()] + 1).max().unwrap_or(0);
                floor.insert(m, f);
            }
        }
    }
    for f in (0..=floor.values().copied().max().unwrap_or(0)).rev() {
        let on: Vec<&str> = floor
            .iter()
            .filter(|(_, &x)| x == f)
            .map(|(m, _)| *m)
            .collect();
        println!("floor {f}: {}", on.join(", "));
    }
}

#[test]
fn nothing_outside_abi_imports_abi() {
    let back: Vec<String> = graph()
        .iter()
        .filter(|(from, _)| !from.starts_with("abi/") && !ABI_IMPORTERS.contains(&from.as_str()))
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|t| t.starts_with("abi/"))
                .map(move |t| format!("{from} -> {t}"))
        })
        .collect();
    assert!(back.is_empty(), "back edges into abi/: {back:?}");
}
