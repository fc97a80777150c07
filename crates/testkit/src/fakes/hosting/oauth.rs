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
            PlatformType::Gitlab => Some(self.oauth.clone()),
            PlatformType::Github => None,
        }
    }
}

#[derive(Default)]
struct OAuthState {
    /// Codes and refresh tokens already spent: the platform refuses them again.
    spent: HashSet<String>,
    /// Refresh tokens handed out: the only ones the platform takes.
    refresh_tokens: HashSet<String>,
    issued: u64,
    failures: VecDeque<PlatformError>,
    down: bool,
}

/// An OAuth2 provider that takes any code once (a used code is `Rejected`) and the
/// refresh tokens it issued once each (a rotated or unknown one is `Rejected`),
/// issuing `access-<n>`/`refresh-<n>`.
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

    /// While down, every exchange and refresh is `Unavailable`.
    pub fn set_down(&self, down: bool) {
        self.state.lock().unwrap().down = down;
    }

    fn issue(&self, grant: Grant<'_>) -> Result<OAuthTokens, PlatformError> {
        let mut state = self.state.lock().unwrap();
        if state.down {
            return Err(PlatformError::Unavailable("HTTP 503: injected".to_owned()));
        }
        if let Some(error) = state.failures.pop_front() {
            return Err(error);
        }
        let (spending, known) = match grant {
            Grant::Code(code) => (format!("code:{code}"), true),
            Grant::Refresh(token) => (
                format!("refresh:{token}"),
                state.refresh_tokens.contains(token),
            ),
        };
        if !known || !state.spent.insert(spending) {
            return Err(PlatformError::Rejected(
                "invalid_grant: the grant is unknown or was already used".to_owned(),
            ));
        }
        state.issued += 1;
        let n = state.issued;
        let refresh_token = format!("refresh-{n}");
        state.refresh_tokens.insert(refresh_token.clone());
        Ok(OAuthTokens {
            access_token: SecretString::new(format!("access-{n}")),
            refresh_token: Some(SecretString::new(refresh_token)),
            expires_at: self.expires_at,
            scopes: vec!["api".to_owned()],
        })
    }
}

enum Grant<'a> {
    Code(&'a str),
    Refresh(&'a str),
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
        let query: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", app_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("response_type", "code")
            .append_pair("state", state)
            .append_pair("scope", "api")
            .finish();
        format!("{}/oauth/authorize?{query}", base_url.trim_end_matches('/'))
    }

    async fn exchange_code(
        &self,
        _base_url: &str,
        _app_id: &str,
        _app_secret: &str,
        code: &str,
        _redirect_uri: &str,
    ) -> Result<OAuthTokens, PlatformError> {
        self.issue(Grant::Code(code))
    }

    async fn refresh(
        &self,
        _base_url: &str,
        _app_id: &str,
        _app_secret: &str,
        refresh_token: &str,
    ) -> Result<OAuthTokens, PlatformError> {
        self.issue(Grant::Refresh(refresh_token))
    }
}
