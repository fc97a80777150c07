//! Which module each path of a module names, following imports and re-exports, and so the
//! edges of the import graph: module A depends on module B when A's code names an item that
//! B defines. A module naming an item of one of its ancestors is not an edge: a parent is the
//! namespace its children live in, and owns them.

use crate::tree::Tree;
use std::collections::BTreeMap;

/// How many imports a path is followed through before giving up (a `use` loop).
const MOST_HOPS: usize = 16;

/// A dependency of one module on another, with the first line that shows it.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    pub line: usize,
}

/// `edges[a][b]`: module `a` names an item of module `b`.
pub fn edges(tree: &Tree) -> Vec<BTreeMap<usize, Edge>> {
    let mut out = vec![BTreeMap::new(); tree.modules.len()];
    for (from, module) in tree.modules.iter().enumerate() {
        for r in &module.refs {
            let Some(to) = resolve(tree, from, &r.segments, 0) else {
                continue;
            };
            if to != from && !tree.is_ancestor(to, from) {
                out[from].entry(to).or_insert(Edge { line: r.line });
            }
        }
    }
    out
}

/// The module that defines what `segments` names from module `from`; `None` for a path
/// outside the target (another crate, a local variable's field...).
fn resolve(tree: &Tree, from: usize, segments: &[String], hops: usize) -> Option<usize> {
    if hops > MOST_HOPS {
        return None;
    }
    let (first, rest) = segments.split_first()?;
    let start = match first.as_str() {
        "crate" => 0,
        "self" => from,
        "super" => {
            let mut at = tree.modules[from].parent?;
            let mut rest = rest;
            while let Some(("super", more)) = rest.split_first().map(|(s, m)| (s.as_str(), m)) {
                at = tree.modules[at].parent?;
                rest = more;
            }
            return walk(tree, at, rest, hops);
        }
        name => {
            if let Some(&child) = tree.modules[from].children.get(name) {
                child
            } else if let Some(path) = tree.modules[from].imports.get(name) {
                let mut whole = path.clone();
                whole.extend_from_slice(rest);
                return resolve(tree, from, &whole, hops + 1);
            } else {
                return None;
            }
        }
    };
    walk(tree, start, rest, hops)
}

/// From module `at`, down the path's module segments to the module that defines its item,
/// through that module's imports when the item is one (a re-export).
fn walk(tree: &Tree, mut at: usize, rest: &[String], hops: usize) -> Option<usize> {
    for (i, segment) in rest.iter().enumerate() {
        if let Some(&child) = tree.modules[at].children.get(segment) {
            at = child;
            continue;
        }
        if let Some(path) = tree.modules[at].imports.get(segment) {
            let mut whole = path.clone();
            whole.extend_from_slice(&rest[i + 1..]);
            return resolve(tree, at, &whole, hops + 1).or(Some(at));
        }
        return Some(at);
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::edges;
    use crate::cycles::circles;
    use crate::tree::Tree;
    use std::path::PathBuf;

    /// The circles (as module names) of a crate made of `files`.
    fn circles_of(name: &str, files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let dir = std::env::temp_dir().join(format!(
            "reviewd-module-graph-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let tree = Tree::load(&PathBuf::from(&dir).join("lib.rs")).unwrap();
        let found = circles(&edges(&tree))
            .into_iter()
            .map(|c| {
                c.into_iter()
                    .map(|m| tree.modules[m].name_path.join("::"))
                    .collect()
            })
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        found
    }

    #[test]
    fn siblings_importing_each_other_through_super_are_a_circle() {
        let found = circles_of(
            "super",
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a.rs", "use super::b::X;\npub struct Y;\n"),
                ("b.rs", "pub struct X;\nfn f(_: super::a::Y) {}\n"),
            ],
        );
        assert_eq!(found, vec![vec!["a".to_owned(), "b".to_owned()]]);
    }

    #[test]
    fn a_re_export_is_followed_to_the_module_that_defines_the_item() {
        let found = circles_of(
            "reexport",
            &[
                ("lib.rs", "mod a;\nmod b;\npub use b::X;\n"),
                ("a.rs", "use crate::X;\npub struct Y;\n"),
                (
                    "b/mod.rs",
                    "pub struct X;\nfn f() -> Vec<crate::a::Y> { vec![] }\n",
                ),
            ],
        );
        assert_eq!(found, vec![vec!["a".to_owned(), "b".to_owned()]]);
    }

    #[test]
    fn paths_in_attributes_and_macros_count() {
        let found = circles_of(
            "tokens",
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                (
                    "a.rs",
                    "#[schema(schema_with = crate::b::f)]\npub struct Y;\n",
                ),
                ("b.rs", "pub fn f() { let _ = vec![crate::a::Y]; }\n"),
            ],
        );
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn a_parent_and_its_children_are_no_circle() {
        let found = circles_of(
            "parent",
            &[
                ("lib.rs", "mod engine;\n"),
                (
                    "engine/mod.rs",
                    "mod round;\npub struct Engine;\nfn go() { round::begin(); }\n",
                ),
                (
                    "engine/round.rs",
                    "use super::Engine;\npub fn begin() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
                ),
            ],
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
