//! The findings a round knows before its files are reviewed (uploaded from CI,
//! or found by a runner's tools), and which of them are posted.

use super::{PostMode, ToolFinding, secrets_scan};

/// A round's findings known before its files are reviewed, and which are posted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundTools {
    pub found: Vec<ToolFinding>,
    pub post: PostMode,
}

impl RoundTools {
    /// The round's findings with the secrets scan of `path`'s `diff`.
    #[must_use]
    pub fn with_secrets_of(&self, path: &str, diff: &str) -> Vec<ToolFinding> {
        let mut found = secrets_scan::scan(path, diff);
        // An upload's absolute path (a CI job's checkout) ends with the file's; a
        // relative one must be the file's (`crates/a/src/lib.rs` is not `src/lib.rs`).
        let suffix = format!("/{path}");
        found.extend(
            self.found
                .iter()
                .filter(|f| {
                    f.path == path || (f.path.starts_with('/') && f.path.ends_with(&suffix))
                })
                .map(|f| ToolFinding {
                    path: path.to_owned(),
                    ..f.clone()
                }),
        );
        found
    }
}
