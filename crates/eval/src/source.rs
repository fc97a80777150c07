//! A case's trees as a code source: what the platform's API or a runner's
//! clone would give the engine, read from memory.

use crate::tree::Tree;
use async_trait::async_trait;
use reviewd_domain::ports::{
    Archive, ArchiveLimits, ArchivedFile, CodeSource, PlatformError, RepoTree, TreeEntry,
};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// The commit names a case's two trees go by.
pub const BASE: &str = "base";
pub const HEAD: &str = "head";

pub struct TreeSource {
    trees: HashMap<&'static str, Tree>,
}

impl TreeSource {
    #[must_use]
    pub fn new(base: Tree, head: Tree) -> Self {
        Self {
            trees: HashMap::from([(BASE, base), (HEAD, head)]),
        }
    }

    fn tree_of(&self, commit: &str) -> Result<&Tree, PlatformError> {
        self.trees
            .get(commit)
            .ok_or_else(|| PlatformError::NotFound(format!("commit {commit}")))
    }
}

/// A content id: equal bytes, equal ids (as git's blob ids are).
#[must_use]
pub fn blob_id(bytes: &[u8]) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("{:016x}{:08x}", hasher.finish(), bytes.len())
}

#[async_trait]
impl CodeSource for TreeSource {
    fn describe(&self) -> &'static str {
        "case trees"
    }

    async fn tree(&self, commit: &str) -> Result<RepoTree, PlatformError> {
        Ok(RepoTree {
            entries: self
                .tree_of(commit)?
                .iter()
                .map(|(path, bytes)| TreeEntry {
                    path: path.clone(),
                    blob_id: blob_id(bytes),
                    size: Some(bytes.len() as u64),
                })
                .collect(),
            truncated: false,
        })
    }

    async fn blob(&self, id: &str) -> Result<Vec<u8>, PlatformError> {
        self.trees
            .values()
            .flat_map(|t| t.values())
            .find(|b| blob_id(b) == id)
            .cloned()
            .ok_or_else(|| PlatformError::NotFound(format!("blob {id}")))
    }

    async fn file(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, PlatformError> {
        Ok(self.tree_of(commit)?.get(path).cloned())
    }

    async fn archive(&self, commit: &str, limits: ArchiveLimits) -> Result<Archive, PlatformError> {
        let mut total = 0u64;
        let mut truncated = false;
        let mut files = Vec::new();
        for (path, bytes) in self.tree_of(commit)? {
            let size = bytes.len() as u64;
            if size > limits.max_file_bytes {
                continue;
            }
            if total + size > limits.max_total_bytes {
                truncated = true;
                break;
            }
            total += size;
            files.push(ArchivedFile {
                path: path.clone(),
                blob_id: blob_id(bytes),
                bytes: bytes.clone(),
            });
        }
        Ok(Archive {
            files,
            downloaded_bytes: total,
            truncated,
        })
    }
}
