//! The platform clients and the OAuth2 flow, for services that build platforms from
//! stored connections.

use super::ScriptedPlatform;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::{OAuthTokens, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformClients, PlatformError, PlatformOAuth};
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

/// Hands out one [`ScriptedPlatform`] for every connection, remembering which
/// connections were asked for; OAuth for hostA only, as the real clients.
pub struct ScriptedClients {
    platform: ScriptedPlatform,
    oauth: Arc<FakeOAuth>,
    connections: Mutex<Vec<PlatformConnection>>,
}

impl ScriptedClients {
    #[must_use]
    pub fn new(platform: ScriptedPlatform) -> Self {
        Self {
            platform,
            oauth: Arc::new(FakeOAuth::default()),
            connections: Mutex::new(Vec::new()),
        }
    }

    /// The OAuth flow handed out, to script or inspect it.
    #[must_use]
    pub fn oauth_flow(&self) -> Arc<FakeOAuth> {
        self.oauth.clone()
    }

    /// Every connection a client was built for, in order.
    #[must_use]
    pub fn connections(&self) -> Vec<PlatformConnection> {
        self.connections.lock().unwrap().clone()
    }
}

impl PlatformClients for ScriptedClients {
    fn client(&self, connection: &PlatformConnection) -> Arc<dyn HostingPlatform> {
        self.connections.lock().unwrap().push(connection.clone());
        Arc::new(self.platform.clone())
    }

    fn oauth(&self, platform_type: PlatformType) -> Option<Arc<dyn PlatformOAuth>> {
        match platform_type {
            PlatformType::HostA => Some(self.oauth.clone()),
            PlatformType::HostB => None,
        }
    }
}

#[derive(Default)]
struct OAuthState {
    /// Codes and refresh tokens already spent: the platform refuses them again.
    spent: HashSet<String>,
    issued: u64,
    failures: VecDeque<PlatformError>,
}

/// An OAuth2 provider that takes any code or refresh token once (a used code, or a
/// refresh token already rotated, is `Rejected`), issuing `access-<n>`/`refresh-<n>`.
#[derive(Default)]
pub struct FakeOAuth {
    state: Mutex<OAuthState>,
    expires_at: Option<DateTime<Utc>>,
}

impl FakeOAuth {
    /// Tokens it issues expire at `at`.
    #[must_use]
    pub fn expiring_at(at: DateTime<Utc>) -> Self {
        Self {
            expires_at: Some(at),
            ..Self::default()
        }
    }

    /// The next exchange or refresh fails with `error`.
    pub fn fail_next(&self, error: PlatformError) {
        self.state.lock().unwrap().failures.push_back(error);
    }

    fn issue(&self, spending: &str) -> Result<OAuthTokens, PlatformError> {
        let mut state = self.state.lock().unwrap();
        if let Some(error) = state.failures.pop_front() {
            return Err(error);
        }
        if !state.spent.insert(spending.to_owned()) {
            return Err(PlatformError::Rejected(
                "invalid_grant: the grant was already used".to_owned(),
            ));
        }
        state.issued += 1;
        let n = state.issued;
        Ok(OAuthTokens {
            access_token: SecretString::new(format!("access-{n}")),
            refresh_token: Some(SecretString::new(format!("refresh-{n}"))),
            expires_at: self.expires_at,
            scopes: vec!["api".to_owned()],
        })
    }
}

/// Percent-encodes a query value (unreserved characters stay).
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[async_trait]
impl PlatformOAuth for FakeOAuth {
    fn authorize_url(
        &self,
        base_url: &str,
        app_id: &str,
        redirect_uri: &str,
        state: &str,
    ) -> String {
        format!(
            "{}/oauth/authorize?client_id={}&redirect_uri={}&response_type=code&state={}&scope=api",
            base_url.trim_end_matches('/'),
            encode(app_id),
            encode(redirect_uri),
            encode(state)
        )
    }

    async fn exchange_code(
        &self,
        _base_url: &str,
        _app_id: &str,
        _app_secret: &str,
        code: &str,
        _redirect_uri: &str,
    ) -> Result<OAuthTokens, PlatformError> {
        self.issue(&format!("code:{code}"))
    }

    async fn refresh(
        &self,
        _base_url: &str,
        _app_id: &str,
        _app_secret: &str,
        refresh_token: &str,
    ) -> Result<OAuthTokens, PlatformError> {
        self.issue(&format!("refresh:{refresh_token}"))
    }
}
