//! A tool's SARIF, from its output or the file it wrote in the checkout.

use reviewd_domain::review::tools::ToolFinding;
use std::path::Path;

/// A SARIF log's findings; a `command` tool's name stands for its drivers'.
pub(super) fn read_sarif(
    bytes: &[u8],
    tool: &str,
    root: &str,
) -> Result<(Vec<ToolFinding>, String), String> {
    let read = reviewd_sarif::read(bytes, Some(root)).map_err(|e| e.to_string())?;
    let mut note = if read.left_out > 0 {
        format!(" ({} more left out: over the limit)", read.left_out)
    } else {
        String::new()
    };
    if let Some(error) = read.errors.first() {
        note.push_str(&format!(
            "; it reported {} error(s), results may be missing: {error}",
            read.errors.len()
        ));
    }
    let findings = read
        .findings
        .into_iter()
        .map(|f| ToolFinding {
            tool: tool.to_owned(),
            ..f
        })
        .collect();
    Ok((findings, note))
}

/// The file at `path` in the checkout, refused when it leads outside it (a
/// symlink) or is larger than a SARIF log may be.
pub(super) async fn read_inside(dir: &Path, path: &str) -> Result<Vec<u8>, String> {
    let root = tokio::fs::canonicalize(dir)
        .await
        .map_err(|e| e.to_string())?;
    let file = tokio::fs::canonicalize(dir.join(path))
        .await
        .map_err(|_| format!("it wrote no {path}"))?;
    if !file.starts_with(&root) {
        return Err(format!("{path} leads outside the checkout"));
    }
    let size = tokio::fs::metadata(&file)
        .await
        .map_err(|e| e.to_string())?
        .len();
    if size > reviewd_sarif::MAX_SARIF_BYTES as u64 {
        return Err(format!(
            "{path} is {size} bytes; at most {} are read",
            reviewd_sarif::MAX_SARIF_BYTES
        ));
    }
    tokio::fs::read(&file).await.map_err(|e| e.to_string())
}
