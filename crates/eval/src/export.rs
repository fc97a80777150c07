//! A team's own history as an eval set: each review round whose comments readers
//! judged becomes a case. The commits come from a local clone (`git archive`),
//! the findings from the comments readers accepted or implemented, the unwanted
//! ones from those they rejected. A comment on a line the round's diff does not
//! add (its MR was rebased since) is left out and counted.

use crate::diff::mr_diff;
use crate::tree::read_tree;
use reviewd_domain::model::review_views::JudgedRound;
use reviewd_domain::review::diff_lines::DiffLines;
use reviewd_domain::review::feedback::TrackingStatus;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What an export wrote.
#[derive(Debug, Default)]
pub struct Exported {
    pub cases: Vec<PathBuf>,
    /// Rounds left out, with why.
    pub skipped: Vec<String>,
    /// Comments left out because their line is not one the case's diff adds.
    pub dropped_comments: usize,
}

/// Writes one case per round of `rounds` under `out`, reading the commits from
/// the clone at `repo`.
///
/// # Errors
/// `out` cannot be written.
pub fn export(rounds: &[JudgedRound], repo: &Path, out: &Path) -> Result<Exported, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut done = Exported::default();
    for round in rounds {
        let name = format!(
            "mr{}-round{}-{}",
            round.mr_iid,
            round.round_number,
            round.head_sha.get(..8).unwrap_or(&round.head_sha)
        );
        let Some(base) = &round.base_sha else {
            done.skipped
                .push(format!("{name}: no base commit was recorded"));
            continue;
        };
        let dir = out.join(&name);
        let _ = std::fs::remove_dir_all(&dir);
        let trees = checkout(repo, base, &dir.join("base"))
            .and_then(|()| checkout(repo, &round.head_sha, &dir.join("head")));
        if let Err(e) = trees {
            let _ = std::fs::remove_dir_all(&dir);
            done.skipped.push(format!("{name}: {e}"));
            continue;
        }
        let base_tree = read_tree(&dir.join("base")).map_err(|e| e.to_string())?;
        let head_tree = read_tree(&dir.join("head")).map_err(|e| e.to_string())?;
        let diffs = mr_diff(&base_tree, &head_tree);
        let added = |path: &str, line: i32| {
            diffs
                .iter()
                .find(|d| d.new_path == path)
                .and_then(|d| d.diff.as_deref())
                .map(DiffLines::parse)
                .is_some_and(|l| u32::try_from(line).is_ok_and(|n| l.added().any(|a| a == n)))
        };
        let mut yaml = format!(
            "# Exported from review {} (round {}): what readers accepted or implemented\n# are findings, what they rejected is unwanted.\ntitle: {}\n",
            round.review_id,
            round.round_number,
            quoted(&round.mr_title)
        );
        let (mut findings, mut unwanted) = (String::new(), String::new());
        for c in &round.comments {
            if !added(&c.file_path, c.line) {
                done.dropped_comments += 1;
                continue;
            }
            let entry = format!(
                "  - file: {}\n    line: {}\n    message: {}\n",
                quoted(&c.file_path),
                c.line,
                quoted(&c.message)
            );
            if c.verdict == TrackingStatus::Rejected {
                unwanted.push_str(&entry);
            } else {
                findings.push_str(&entry);
                findings.push_str(&format!("    severity: {}\n", quoted(c.severity.as_str())));
            }
        }
        if findings.is_empty() && unwanted.is_empty() {
            let _ = std::fs::remove_dir_all(&dir);
            done.skipped.push(format!(
                "{name}: no judged comment is on a line its diff adds"
            ));
            continue;
        }
        yaml.push_str(&format!(
            "findings:{}\n{findings}",
            if findings.is_empty() { " []" } else { "" }
        ));
        if !unwanted.is_empty() {
            yaml.push_str(&format!("unwanted:\n{unwanted}"));
        }
        std::fs::write(dir.join("case.yml"), yaml)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        done.cases.push(dir);
    }
    Ok(done)
}

/// A YAML scalar: JSON's double-quoted string, which YAML reads as the same text.
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The tree of `commit` in the clone at `repo`, written under `into`
/// (`git archive | tar -x`).
fn checkout(repo: &Path, commit: &str, into: &Path) -> Result<(), String> {
    std::fs::create_dir_all(into).map_err(|e| format!("{}: {e}", into.display()))?;
    let mut archive = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["archive", "--format=tar", commit])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("git: {e}"))?;
    let stdout = archive.stdout.take().ok_or("git archive has no output")?;
    let untar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(stdout)
        .output()
        .map_err(|e| format!("tar: {e}"))?;
    let git = archive
        .wait_with_output()
        .map_err(|e| format!("git: {e}"))?;
    if !git.status.success() {
        return Err(format!(
            "commit {commit} is not in the clone (git fetch it first): {}",
            String::from_utf8_lossy(&git.stderr).trim()
        ));
    }
    if !untar.status.success() {
        return Err(format!(
            "tar: {}",
            String::from_utf8_lossy(&untar.stderr).trim()
        ));
    }
    Ok(())
}
