//! A repository's `.reviewd.yml` parsed with serde-saphyr into the domain's
//! [`RepoConfig`]: the YAML library stays out of the domain, which checks the values
//! and applies them (`reviewd_domain::review::repo_config`).
//!
//! serde-saphyr is panic-free and `forbid(unsafe_code)`; the budget below keeps a
//! hostile file (alias bombs, deep nesting, many documents) cheap to refuse. The
//! domain has already refused files over `MAX_CONFIG_BYTES`.

use reviewd_domain::ports::RepoConfigParser;
use reviewd_domain::review::repo_config::{MAX_DEPTH, RepoConfig};

/// The YAML parser of `.reviewd.yml`.
#[derive(Debug, Clone, Copy, Default)]
pub struct YamlRepoConfig;

impl RepoConfigParser for YamlRepoConfig {
    fn parse(&self, text: &str) -> Result<RepoConfig, String> {
        let options = serde_saphyr::options! {
            // YAML 1.2 only: `skipDrafts: yes` (or "yes") is an error, not a guess.
            strict_booleans: true,
            merge_keys: serde_saphyr::MergeKeyPolicy::Error,
            reject_unsupported_tags: true,
            budget: serde_saphyr::budget! {
                max_depth: MAX_DEPTH,
                max_documents: 1,
                max_aliases: 0,
                max_anchors: 0,
                max_nodes: 10_000,
            },
        };
        serde_saphyr::from_str_with_options::<RepoConfig>(text, options)
            // One line for the note on the MR: the message and where, no snippet.
            .map_err(|e| e.without_snippet().render())
    }
}

#[cfg(test)]
mod tests;
