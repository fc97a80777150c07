//! A case: a repository at an MR's base and head, the MR's title and
//! description, and the findings a good review makes (with the evidence that
//! proves each). Read from a directory: `case.yml`, then `base/` and `head/`
//! trees, or a git bundle with the two commits (docs/eval.md).

use crate::tree::read_tree;
use crate::tree::{CaseError, Tree};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// The MR's title.
    pub title: String,
    #[serde(default)]
    pub description: Option<String>,
    /// The case's main language (for the table).
    #[serde(default)]
    pub language: Option<String>,
    /// The bug pattern (for the table).
    #[serde(default)]
    pub pattern: Option<String>,
    /// What a good review finds.
    #[serde(default)]
    pub findings: Vec<Golden>,
    /// What readers rejected: reporting it again counts against precision.
    #[serde(default)]
    pub unwanted: Vec<Unwanted>,
    /// The two commits in a git bundle beside `case.yml`, instead of `base/`
    /// and `head/` directories.
    #[serde(default)]
    pub bundle: Option<Bundle>,
}

/// A golden finding.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Golden {
    pub file: String,
    /// A line the MR adds, in the head version.
    pub line: u32,
    #[serde(default)]
    pub severity: Option<String>,
    pub message: String,
    /// What must reach the model for the finding to be findable.
    #[serde(default)]
    pub evidence: Vec<Evidence>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// Where it is.
    pub file: String,
    /// One line, or part of one, exactly as in the file.
    pub text: String,
    /// `base` when it is in the base version (a deleted line).
    #[serde(default)]
    pub at: Option<String>,
}

/// A finding readers rejected.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unwanted {
    pub file: String,
    pub line: u32,
    pub message: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// The bundle's file name, beside `case.yml`.
    pub file: String,
    pub base: String,
    pub head: String,
}

/// A case ready to run.
#[derive(Debug, Clone)]
pub struct Case {
    /// The directory's name.
    pub id: String,
    pub meta: CaseFile,
    pub base: Tree,
    pub head: Tree,
}

/// Every case under `root` (each directory holding a `case.yml`), by name.
///
/// # Errors
/// A case that cannot be read, naming it.
pub fn load_all(root: &Path) -> Result<Vec<Case>, CaseError> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| CaseError::Io(root.to_owned(), e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.yml").is_file())
        .collect();
    dirs.sort();
    dirs.iter().map(|d| load(d)).collect()
}

/// One case directory.
///
/// # Errors
/// `case.yml` missing or invalid, a tree unreadable, a finding on a line the MR
/// does not add.
pub fn load(dir: &Path) -> Result<Case, CaseError> {
    let file = dir.join("case.yml");
    let text = std::fs::read_to_string(&file).map_err(|e| CaseError::Io(file.clone(), e))?;
    let meta: CaseFile = serde_saphyr::from_str(&text)
        .map_err(|e| CaseError::Invalid(file.clone(), e.to_string()))?;
    let (base, head) = match &meta.bundle {
        Some(bundle) => crate::bundle::trees(&dir.join(&bundle.file), &bundle.base, &bundle.head)
            .map_err(|e| CaseError::Invalid(dir.join(&bundle.file), e))?,
        None => (read_tree(&dir.join("base"))?, read_tree(&dir.join("head"))?),
    };
    let id = dir
        .file_name()
        .map_or_else(|| "case".to_owned(), |n| n.to_string_lossy().into_owned());
    let case = Case {
        id,
        meta,
        base,
        head,
    };
    case.check().map_err(|e| CaseError::Invalid(file, e))?;
    Ok(case)
}

impl Case {
    /// A finding's line must be one the MR adds, else no review can place it.
    fn check(&self) -> Result<(), String> {
        let diffs = crate::diff::mr_diff(&self.base, &self.head);
        for (i, golden) in self.meta.findings.iter().enumerate() {
            let added = diffs
                .iter()
                .find(|d| d.new_path == golden.file)
                .and_then(|d| d.diff.as_deref())
                .map(reviewd_domain::review::diff_lines::DiffLines::parse)
                .is_some_and(|lines| lines.added().any(|l| l == golden.line));
            if !added {
                return Err(format!(
                    "findings[{i}]: line {} of {} is not a line the MR adds",
                    golden.line, golden.file
                ));
            }
            for (j, evidence) in golden.evidence.iter().enumerate() {
                let tree = if evidence.at.as_deref() == Some("base") {
                    &self.base
                } else {
                    &self.head
                };
                let found = tree
                    .get(&evidence.file)
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .is_some_and(|t| t.contains(&evidence.text));
                if !found {
                    return Err(format!(
                        "findings[{i}].evidence[{j}]: `{}` is not in {}",
                        evidence.text, evidence.file
                    ));
                }
            }
        }
        Ok(())
    }
}
