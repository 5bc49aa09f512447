//! The engine's sources read as a graph of files: every file's `use` paths and its `crate::`,
//! `super::` and `self::` paths, resolved to the files they name. Test-only code (`#[cfg(test)]`
//! items and the modules they declare) is left out. Std only: a small lexer blanks comments,
//! strings and character literals first, so that nothing inside them counts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The sources with comments, strings and character literals blanked (their quotes kept).
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let (mut out, mut i) = (String::with_capacity(src.len()), 0);
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c[i] == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&c, i) {
            let hashes = c[i + 1..].iter().take_while(|&&x| x == '#').count();
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let body: String = c[i + 2 + hashes..].iter().collect();
            let end = body.find(&close).expect("closed raw string");
            i += 2 + hashes + body[..end].chars().count() + close.len();
            out.push_str("\"\"");
        } else if c[i] == '"' {
            i += 1;
            while c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            i += 1;
            while c[i] != '\'' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn ident_before(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')
}

/// The code without its `#[cfg(test)]` items, and the modules those items declare.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let (mut out, mut test_mods, mut rest) = (String::new(), Vec::new(), code);
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let mut item = rest[at + "#[cfg(test)]".len()..].trim_start();
        while item.starts_with("#[") {
            item = item[item.find(']').expect("attribute") + 1..].trim_start();
        }
        let (mut depth, mut end) = (0i32, item.len());
        for (k, ch) in item.char_indices() {
            match ch {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth -= 1,
                ';' => {}
                _ => continue,
            }
            if depth == 0 && (ch == ';' || ch == '}') {
                end = k + 1;
                break;
            }
        }
        let words: Vec<&str> = item[..end].split_whitespace().collect();
        if let Some(p) = words.iter().position(|w| *w == "mod") {
            if words[..p].iter().all(|w| w.starts_with("pub")) && item[..end].ends_with(';') {
                test_mods.push(words[p + 1].trim_end_matches(';').to_string());
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    (out, test_mods)
}

/// The paths a use statement's tree names, e.g. `a::{b, c::d as e}` gives a::b and a::c::d.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    let spaced = tree
        .replace('{', " { ")
        .replace('}', " } ")
        .replace(',', " , ");
    let spaced = spaced.replace("::", " :: ");
    let tokens: Vec<String> = spaced.split_whitespace().map(String::from).collect();
    let (mut out, mut pos) = (Vec::new(), 0);
    use_tree(&tokens, &mut pos, Vec::new(), &mut out);
    out
}

fn use_tree(t: &[String], pos: &mut usize, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
    while *pos < t.len() {
        match t[*pos].as_str() {
            "{" => {
                *pos += 1;
                while t[*pos] != "}" {
                    use_tree(t, pos, path.clone(), out);
                    if t[*pos] == "," {
                        *pos += 1;
                    }
                }
                *pos += 1;
                return;
            }
            "::" => *pos += 1,
            "*" => *pos += 1,
            "as" => *pos += 2,
            "," | "}" => break,
            ident => {
                path.push(ident.to_string());
                *pos += 1;
            }
        }
    }
    out.push(path);
}

/// Every path of the code that starts at `crate`, `super` or `self`, or (in `use`) at a child.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let boundary = rest[..at]
            .chars()
            .last()
            .map_or(true, |ch| !ch.is_alphanumeric() && ch != '_');
        let end = at + rest[at..].find(';').unwrap_or(rest.len() - at);
        if boundary {
            out.extend(use_paths(&rest[at + 4..end]));
        }
        rest = &rest[at + 4..];
    }
    let chars: Vec<char> = code.chars().collect();
    for root in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(root) {
            let start = code[..at].chars().count();
            if ident_before(&chars, start) {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|ch| ch.is_alphanumeric() || *ch == '_' || *ch == ':')
                .collect();
            out.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            );
        }
    }
    out
}

/// Module path of a source file: `abi/codec/mod.rs` is abi::codec, `lib.rs` the root.
pub fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn sources(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src readable") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            sources(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".rs") {
            out.insert(
                format!("{prefix}{name}"),
                std::fs::read_to_string(&path).expect("read"),
            );
        }
    }
}

/// File → the files it imports, test-only code and files left out.
pub fn graph() -> Graph {
    let mut files = BTreeMap::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut files,
    );
    let modules: BTreeMap<Vec<String>, String> =
        files.keys().map(|f| (module_of(f), f.clone())).collect();
    let mut code = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for (file, src) in &files {
        let (kept, test_mods) = without_tests(&strip(src));
        for m in test_mods {
            let mut path = module_of(file);
            path.push(m);
            test_only.extend(modules.get(&path).cloned());
        }
        code.insert(file.clone(), kept);
    }
    let mut graph = Graph::new();
    for (file, kept) in code.iter().filter(|(f, _)| !test_only.contains(*f)) {
        let here = module_of(file);
        let edges = graph.entry(file.clone()).or_default();
        for path in paths(kept) {
            let mut base = match path[0].as_str() {
                "crate" => Vec::new(),
                "super" | "self" => here.clone(),
                child
                    if modules.contains_key(&[here.clone(), vec![child.to_string()]].concat()) =>
                {
                    here.clone()
                }
                _ => continue, // std, core or a name in scope
            };
            let start = usize::from(path[0] == "crate" || path[0] == "self");
            for seg in &path[start..] {
                match seg.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    s => base.push(s.to_string()),
                }
            }
            while !modules.contains_key(&base) {
                base.pop();
            }
            let target = &modules[&base];
            if target != file && !test_only.contains(target) {
                edges.insert(target.clone());
            }
        }
    }
    graph
}
