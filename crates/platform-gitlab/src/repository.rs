//! Reading a repository at a commit for the reviewer's context: the tree (paged,
//! so bounded), one blob, and the whole commit as one `tar.gz` archive read up to
//! the context's download budget.

use crate::api::GlTreeEntry;
use crate::client::GitlabPlatform;
use crate::endpoints::{BlobRaw, RepositoryTree};
use crate::rest::gl_error;
use gitlab::api::{AsyncQuery, raw};
use reviewd_domain::ports::{
    Archive, ArchiveLimits, PlatformError, ProjectRef, RepoTree, TreeEntry,
};

/// Pages of 100 entries a tree listing reads at most: past 2,000 files the
/// context reads the archive instead.
const TREE_PAGES: u32 = 20;

impl GitlabPlatform {
    pub(crate) async fn tree(
        &self,
        project: &ProjectRef,
        sha: &str,
    ) -> Result<RepoTree, PlatformError> {
        let endpoint = RepositoryTree {
            project: project.id.as_str(),
            sha,
        };
        let mut tree = RepoTree::default();
        for page in 1..=TREE_PAGES {
            let listed = self
                .rest
                .one_page::<_, GlTreeEntry>(&endpoint, page, 100)
                .await?;
            tree.entries.extend(
                listed
                    .items
                    .into_iter()
                    // Sub-trees and submodules (`commit`) are not files; nor are symlinks.
                    .filter(|e| e.kind == "blob" && e.mode != "120000")
                    .map(|e| TreeEntry {
                        path: e.path,
                        blob_id: e.id,
                        size: None,
                    }),
            );
            if !listed.has_next {
                return Ok(tree);
            }
        }
        tree.truncated = true;
        Ok(tree)
    }

    pub(crate) async fn blob(
        &self,
        project: &ProjectRef,
        sha: &str,
    ) -> Result<Vec<u8>, PlatformError> {
        raw(BlobRaw {
            project: project.id.as_str(),
            sha,
        })
        .query_async(&self.rest)
        .await
        .map_err(gl_error)
    }

    /// `GET /projects/:id/repository/archive.tar.gz?sha=`, read up to the
    /// download budget, then unpacked.
    pub(crate) async fn archive(
        &self,
        project: &ProjectRef,
        sha: &str,
        limits: ArchiveLimits,
    ) -> Result<Archive, PlatformError> {
        let path = format!(
            "projects/{}/repository/archive.tar.gz",
            gitlab::api::common::path_escaped(project.id.as_str())
        );
        let bytes = self
            .rest
            .download(&path, &[("sha", sha)], limits.max_download_bytes)
            .await?;
        reviewd_http::archive::unpack_tar_gz(bytes, limits).await
    }
}
