//! What the HTTP edge reads of the server's configuration: names, URLs, the secrets it
//! checks requests against, and the root user a reset re-creates. The server's
//! composition root builds it from the whole configuration (`reviewd-server`'s `config`);
//! the edge sees nothing else of it.

use reviewd_domain::model::SecretString;
use std::time::Duration;

/// `NODE_ENV`, shown by `GET /api/health`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeEnv {
    Development,
    Production,
    Test,
}

impl NodeEnv {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            NodeEnv::Development => "development",
            NodeEnv::Production => "production",
            NodeEnv::Test => "test",
        }
    }
}

#[derive(Debug, Clone)]
pub struct EdgeSettings {
    /// Shown in page titles and e-mails (`SYSTEM_NAME`).
    pub system_name: String,
    /// Keys the session-bound form tokens (`AUTH_SECRET`).
    pub auth_secret: SecretString,
    /// The public URL (`APP_URL`); https makes cookies `Secure`.
    pub app_url: String,
    /// Other URLs the dashboard or API clients are served from (`APP_URLs`).
    pub app_urls: Vec<String>,
    /// Where the dashboard's OAuth callbacks land (`AUTH_URL`).
    pub auth_url: String,
    /// Origins allowed by CORS, comma-separated (`CORS_ORIGIN`).
    pub cors_origin: Option<String>,
    pub node_env: NodeEnv,
    pub app_env: String,
    /// `POST /api/system/reset` exists only when this is set (`RESET_DB_KEY`).
    pub reset_db_key: Option<SecretString>,
    /// The root user a reset creates again (`ROOT_EMAIL`, `ROOT_PASSWORD`).
    pub root_email: Option<String>,
    pub root_password: Option<SecretString>,
    /// A runner silent this long counts as offline in `/metrics`.
    pub runner_heartbeat_timeout: Duration,
    /// Proxies whose forwarded header names the client (`TRUSTED_PROXIES`,
    /// `TRUSTED_PROXY_HEADER`).
    pub trusted_proxies: crate::client_addr::TrustedProxies,
}

impl EdgeSettings {
    /// Whether cookies must carry `Secure` (the public URL is https).
    #[must_use]
    pub fn secure_cookies(&self) -> bool {
        self.app_url.starts_with("https://")
    }
}
