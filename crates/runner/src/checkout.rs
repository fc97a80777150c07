//! The runner's code source: the task's clone, read with git (its tree, its
//! blobs, every file of a commit in one `cat-file --batch`), so the context is
//! read where the code is and never crosses the network.

use crate::git::Workspace;
use async_trait::async_trait;
use reviewd_domain::ports::{
    Archive, ArchiveLimits, ArchivedFile, CodeSource, PlatformError, RepoTree, TreeEntry,
};
use std::sync::Arc;

pub struct CheckoutSource {
    workspace: Arc<Workspace>,
}

impl CheckoutSource {
    #[must_use]
    pub fn new(workspace: Arc<Workspace>) -> Self {
        Self { workspace }
    }
}

fn failed(e: crate::git::GitError) -> PlatformError {
    PlatformError::Unavailable(e.to_string())
}

#[async_trait]
impl CodeSource for CheckoutSource {
    fn describe(&self) -> &'static str {
        "checkout"
    }

    async fn tree(&self, commit: &str) -> Result<RepoTree, PlatformError> {
        let entries = self.workspace.tree(commit).await.map_err(failed)?;
        Ok(RepoTree {
            entries: entries
                .into_iter()
                .map(|(path, blob_id, size)| TreeEntry {
                    path,
                    blob_id,
                    size: Some(size),
                })
                .collect(),
            truncated: false,
        })
    }

    async fn blob(&self, blob_id: &str) -> Result<Vec<u8>, PlatformError> {
        let mut blobs = self
            .workspace
            .blobs(&[blob_id.to_owned()])
            .await
            .map_err(failed)?;
        blobs
            .pop()
            .ok_or_else(|| PlatformError::NotFound(blob_id.to_owned()))
    }

    async fn file(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, PlatformError> {
        let tree = self.tree(commit).await?;
        match tree.entries.into_iter().find(|e| e.path == path) {
            Some(entry) => self.blob(&entry.blob_id).await.map(Some),
            None => Ok(None),
        }
    }

    /// Every file within the limits, read in one batch: the largest files
    /// (generated code, data) skipped first, then files past the total dropped.
    async fn archive(&self, commit: &str, limits: ArchiveLimits) -> Result<Archive, PlatformError> {
        let tree = self.tree(commit).await?;
        let mut wanted: Vec<TreeEntry> = Vec::new();
        let mut total = 0u64;
        let mut truncated = false;
        for entry in tree.entries {
            let size = entry.size.unwrap_or(0);
            if size > limits.max_file_bytes {
                continue;
            }
            if total + size > limits.max_total_bytes {
                truncated = true;
                continue;
            }
            total += size;
            wanted.push(entry);
        }
        let ids: Vec<String> = wanted.iter().map(|e| e.blob_id.clone()).collect();
        let blobs = self.workspace.blobs(&ids).await.map_err(failed)?;
        Ok(Archive {
            files: wanted
                .into_iter()
                .zip(blobs)
                .map(|(entry, bytes)| ArchivedFile {
                    path: entry.path,
                    blob_id: entry.blob_id,
                    bytes,
                })
                .collect(),
            // Read locally: nothing crossed the network.
            downloaded_bytes: 0,
            truncated,
        })
    }
}
