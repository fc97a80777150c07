//! Builds hostA/hostB clients for stored connections, all on one shared HTTP client.

use reviewd_domain::model::{PlatformConnection, PlatformType};
use reviewd_domain::ports::{HostingPlatform, PlatformClients, PlatformOAuth};
use reviewd_http::HttpClient;
use reviewd_platform_github::GithubPlatform;
use reviewd_platform_gitlab::{GitlabOAuth, GitlabPlatform};
use std::sync::Arc;

pub struct HttpPlatformClients {
    http: HttpClient,
}

impl HttpPlatformClients {
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }
}

impl PlatformClients for HttpPlatformClients {
    fn client(&self, connection: &PlatformConnection) -> Arc<dyn HostingPlatform> {
        match connection.platform_type {
            PlatformType::HostA => Arc::new(GitlabPlatform::new(self.http.clone(), connection)),
            PlatformType::HostB => Arc::new(GithubPlatform::new(self.http.clone(), connection)),
        }
    }

    fn oauth(&self, platform_type: PlatformType) -> Option<Arc<dyn PlatformOAuth>> {
        match platform_type {
            PlatformType::HostA => Some(Arc::new(GitlabOAuth::new(self.http.clone()))),
            PlatformType::HostB => None,
        }
    }
}
