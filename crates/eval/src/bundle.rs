//! A case's two commits from a git bundle, checked out with the `git` command
//! into a scratch directory and read as trees.

use crate::tree::{Tree, read_tree};
use std::path::Path;
use std::process::Command;

/// The trees of `base` and `head` in `bundle`.
///
/// # Errors
/// git is missing, the bundle or a commit cannot be read.
pub fn trees(bundle: &Path, base: &str, head: &str) -> Result<(Tree, Tree), String> {
    let scratch = std::env::temp_dir().join(format!(
        "reviewd-eval-{}-{}",
        std::process::id(),
        bundle
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    let repo = scratch.join("repo");
    let result = (|| {
        git(Command::new("git")
            .arg("clone")
            .arg("--quiet")
            .arg("--bare")
            .arg(bundle)
            .arg(&repo))?;
        let mut out = Vec::new();
        for (name, commit) in [("base", base), ("head", head)] {
            let dir = scratch.join(name);
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            git(Command::new("git")
                .arg("--git-dir")
                .arg(&repo)
                .arg("--work-tree")
                .arg(&dir)
                .args(["checkout", "--quiet", commit, "--", "."]))?;
            out.push(read_tree(&dir).map_err(|e| e.to_string())?);
        }
        let head = out.pop().unwrap_or_default();
        let base = out.pop().unwrap_or_default();
        Ok((base, head))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn git(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("git: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "git failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
