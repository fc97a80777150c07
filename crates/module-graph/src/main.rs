//! `cargo run -p reviewd-module-graph`: the lint of the workspace's own structure (run by
//! `scripts/lint.sh`). Fails when the modules of one target import each other in a circle
//! (each circle printed with the line of every import in it), or when a source file breaks
//! the size bounds of `bounds.txt`.
//!
//! A purpose-made reader rather than `cargo modules dependencies --acyclic`: that tool takes
//! about two minutes a crate here and counts a type and its own methods as a circle;
//! `cargo-cycles` reads only `use crate::…` items and so misses `super::` imports.

mod cycles;
mod edges;
mod sizes;
mod tree;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("module-graph: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, String> {
    let root = workspace_root()?;
    let mut circles = 0;
    let mut files = BTreeSet::new();
    let mut modules = 0;
    for target in targets(&root)? {
        let tree = tree::Tree::load(&target)?;
        modules += tree.modules.len();
        files.extend(tree.modules.iter().map(|m| m.file.clone()));
        let graph = edges::edges(&tree);
        for circle in cycles::circles(&graph) {
            circles += 1;
            println!("circle in {}:", relative(&root, &target));
            for &a in &circle {
                for (&b, edge) in &graph[a] {
                    if circle.contains(&b) {
                        println!(
                            "  {} -> {}   ({}:{})",
                            name(&tree, a),
                            name(&tree, b),
                            relative(&root, &tree.modules[a].file),
                            edge.line
                        );
                    }
                }
            }
        }
    }
    let bounds_file = root.join("crates/module-graph/bounds.txt");
    let bounds = std::fs::read_to_string(&bounds_file)
        .map_err(|e| format!("{}: {e}", bounds_file.display()))
        .and_then(|text| sizes::Bounds::parse(&text))?;
    let report = sizes::check(&root, &files, &bounds)?;
    for problem in &report.problems {
        println!("{problem}");
    }
    println!(
        "module-graph: {modules} modules in {} files, {circles} circle(s); median file {} lines (bound {}), {} file(s) still over {} lines",
        report.files,
        report.median,
        bounds.median,
        bounds.oversized.len(),
        sizes::MOST_LINES,
    );
    Ok(circles == 0 && report.problems.is_empty())
}

fn name(tree: &tree::Tree, module: usize) -> String {
    let path = &tree.modules[module].name_path;
    if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("::")
    }
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The workspace's root: this crate's grandparent (`crates/module-graph/..`).
fn workspace_root() -> Result<PathBuf, String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or_else(|| "cannot find the workspace root".to_owned())
}

/// The root file of every target of every workspace member (libraries, binaries, tests,
/// benches; build scripts are single files), from `cargo metadata`.
fn targets(root: &Path) -> Result<Vec<PathBuf>, String> {
    let output = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1", "--locked"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let mut roots = BTreeSet::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        for target in package["targets"].as_array().into_iter().flatten() {
            if let Some(path) = target["src_path"].as_str() {
                roots.insert(PathBuf::from(path));
            }
        }
    }
    Ok(roots.into_iter().collect())
}
