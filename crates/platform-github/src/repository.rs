//! Reading a repository at a commit for the reviewer's context: the recursive
//! git tree (one call), one blob, and the commit's tarball, which GitHub serves
//! by a redirect to `codeload`: followed without the token (the link carries its
//! own), read up to the context's download budget.

use crate::api::{GhBlob, GhTree};
use crate::client::{GithubPlatform, RawResponse, github_error, read_body, succeeded};
use reviewd_domain::ports::{Archive, ArchiveLimits, PlatformError, RepoTree, TreeEntry};

impl GithubPlatform {
    pub(crate) async fn tree(&self, repo: &str, sha: &str) -> Result<RepoTree, PlatformError> {
        let route = format!("{repo}/git/trees/{sha}");
        let tree: GhTree = self.get_json(&route, &[("recursive", "1".into())]).await?;
        Ok(RepoTree {
            entries: tree
                .tree
                .into_iter()
                // Sub-trees and submodules (`commit`) are not files; nor are symlinks.
                .filter(|e| e.kind == "blob" && e.mode != "120000")
                .map(|e| TreeEntry {
                    path: e.path,
                    blob_id: e.sha,
                    size: e.size,
                })
                .collect(),
            truncated: tree.truncated,
        })
    }

    pub(crate) async fn blob(&self, repo: &str, sha: &str) -> Result<Vec<u8>, PlatformError> {
        let blob: GhBlob = self
            .get_json(&format!("{repo}/git/blobs/{sha}"), &[])
            .await?;
        blob.decoded()
    }

    pub(crate) async fn archive(
        &self,
        repo: &str,
        sha: &str,
        limits: ArchiveLimits,
    ) -> Result<Archive, PlatformError> {
        let route = format!("{repo}/tarball/{sha}");
        let response: RawResponse = self
            .client(&route)
            .await?
            ._get(&route)
            .await
            .map_err(github_error)?;
        let bytes = if response.status().is_redirection() {
            let location = response
                .headers()
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    PlatformError::InvalidResponse("a redirect without a Location".into())
                })?
                .to_owned();
            self.http
                .send_bounded(|c| c.get(&location), limits.max_download_bytes)
                .await
                .map_err(reviewd_http::platform_error)?
                .body
        } else {
            let body = read_body(succeeded(response).await?).await?;
            if body.len() as u64 > limits.max_download_bytes {
                return Err(reviewd_http::platform_error(
                    reviewd_http::HttpError::TooLarge(limits.max_download_bytes),
                ));
            }
            body
        };
        reviewd_http::archive::unpack_tar_gz(bytes, limits).await
    }
}
