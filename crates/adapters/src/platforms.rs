//! Builds hostA/hostB clients for stored connections, all on one shared HTTP client.

use reviewd_domain::model::{PlatformConnection, PlatformType};
use reviewd_domain::ports::{HostingPlatform, PlatformClients, PlatformOAuth};
use reviewd_http::HttpClient;
use reviewd_platform_github::GithubPlatform;
use reviewd_platform_gitlab::{GitlabOAuth, GitlabPlatform};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a GitHub App's adapter is kept: long enough that its installation
/// tokens (one hour, renewed 30 s early) serve many reviews, short enough that a
/// repository moved to another installation is found again.
const APP_CLIENT_TTL: Duration = Duration::from_secs(30 * 60);
/// Adapters kept at most (one per App config and installation in practice).
const APP_CLIENTS_MAX: usize = 64;

pub struct HttpPlatformClients {
    http: HttpClient,
    /// GitHub App adapters by what signs in (URL, App id, key, installation):
    /// each holds its installation tokens, which a new adapter per call would
    /// mint again every time. A changed key or installation is another entry.
    apps: Mutex<HashMap<String, (Instant, Arc<GithubPlatform>)>>,
}

impl HttpPlatformClients {
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self {
            http,
            apps: Mutex::new(HashMap::new()),
        }
    }

    fn app_client(&self, connection: &PlatformConnection, key: String) -> Arc<dyn HostingPlatform> {
        let Ok(mut apps) = self.apps.lock() else {
            return Arc::new(GithubPlatform::new(self.http.clone(), connection));
        };
        if let Some((at, client)) = apps.get(&key)
            && at.elapsed() < APP_CLIENT_TTL
        {
            return client.clone();
        }
        // Old adapters (a rotated key, a deleted config) go as new ones come.
        apps.retain(|_, (at, _)| at.elapsed() < APP_CLIENT_TTL);
        if apps.len() >= APP_CLIENTS_MAX {
            apps.clear();
        }
        let client = Arc::new(GithubPlatform::new(self.http.clone(), connection));
        apps.insert(key, (Instant::now(), client.clone()));
        client
    }
}

/// What a GitHub App adapter signs in with, the key hashed (never kept in clear
/// beyond the adapter itself).
fn app_key(connection: &PlatformConnection) -> Option<String> {
    let app = connection.app.as_ref()?;
    let key_hash =
        reviewd_crypto::hmac_sha256_hex(b"reviewd-app-client", app.private_key.expose().as_bytes());
    Some(format!(
        "{}|{}|{key_hash}|{:?}",
        connection.base_url, app.app_id, app.installation_id
    ))
}

impl PlatformClients for HttpPlatformClients {
    fn client(&self, connection: &PlatformConnection) -> Arc<dyn HostingPlatform> {
        match connection.platform_type {
            PlatformType::Gitlab => Arc::new(GitlabPlatform::new(self.http.clone(), connection)),
            PlatformType::Github => match app_key(connection) {
                Some(key) => self.app_client(connection, key),
                None => Arc::new(GithubPlatform::new(self.http.clone(), connection)),
            },
        }
    }

    fn oauth(&self, platform_type: PlatformType) -> Option<Arc<dyn PlatformOAuth>> {
        match platform_type {
            PlatformType::Gitlab => Some(Arc::new(GitlabOAuth::new(self.http.clone()))),
            PlatformType::Github => None,
        }
    }
}
