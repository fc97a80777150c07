//! A repository's files at one commit, as a case holds them, read from a directory; and how
//! reading a case fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A repository's files at one commit: path to bytes.
pub type Tree = BTreeMap<String, Vec<u8>>;

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: {1}")]
    Invalid(PathBuf, String),
}

/// Every file under `dir` (none when it does not exist: an empty side).
///
/// # Errors
/// A file that cannot be read.
pub fn read_tree(dir: &Path) -> Result<Tree, CaseError> {
    let mut tree = Tree::new();
    if !dir.is_dir() {
        return Ok(tree);
    }
    let mut pending = vec![dir.to_owned()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).map_err(|e| CaseError::Io(at.clone(), e))? {
            let entry = entry.map_err(|e| CaseError::Io(at.clone(), e))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| CaseError::Io(path.clone(), e))?;
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).map_err(|e| CaseError::Io(path.clone(), e))?;
                let relative = path
                    .strip_prefix(dir)
                    .map_err(|e| CaseError::Invalid(path.clone(), e.to_string()))?
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                tree.insert(relative, bytes);
            }
        }
    }
    Ok(tree)
}
