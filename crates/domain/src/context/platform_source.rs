//! The code source of a project on its platform: the REST API's tree, blobs,
//! files and archive, through the project's platform client.

use crate::model::PlatformType;
use crate::ports::code_source::{Archive, ArchiveLimits, CodeSource, RepoTree};
use crate::ports::{HostingPlatform, PlatformError, ProjectRef};
use async_trait::async_trait;
use std::sync::Arc;

pub struct PlatformCodeSource {
    platform: Arc<dyn HostingPlatform>,
    project: ProjectRef,
}

impl PlatformCodeSource {
    #[must_use]
    pub fn new(platform: Arc<dyn HostingPlatform>, project: ProjectRef) -> Self {
        Self { platform, project }
    }
}

#[async_trait]
impl CodeSource for PlatformCodeSource {
    fn describe(&self) -> &'static str {
        match self.platform.platform_type() {
            PlatformType::Gitlab => "hostA API",
            PlatformType::Github => "hostB API",
        }
    }

    /// GitLab pages its tree 100 entries at a time; GitHub's recursive tree is
    /// one call.
    fn tree_is_one_call(&self) -> bool {
        self.platform.platform_type() == PlatformType::Github
    }

    async fn tree(&self, commit: &str) -> Result<RepoTree, PlatformError> {
        self.platform.repository_tree(&self.project, commit).await
    }

    async fn blob(&self, blob_id: &str) -> Result<Vec<u8>, PlatformError> {
        self.platform.repository_blob(&self.project, blob_id).await
    }

    async fn file(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, PlatformError> {
        self.platform.read_file(&self.project, path, commit).await
    }

    async fn archive(&self, commit: &str, limits: ArchiveLimits) -> Result<Archive, PlatformError> {
        self.platform
            .repository_archive(&self.project, commit, limits)
            .await
    }
}
