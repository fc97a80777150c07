//! Hosting platforms (`hostA`: GitLab-compatible, `hostB`: GitHub-compatible), the
//! stored connections to them, and what they tell us about projects and MRs.

use super::secret::SecretString;
use chrono::{DateTime, Utc};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// Which platform a config, project or event is on. The code names the platforms; the
/// contract's neutral names (`hostA`, `hostB`) are the wire's, read and written only by
/// [`PlatformType::as_str`] and its `FromStr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlatformType {
    /// GitLab or a GitLab-compatible server: `hostA`.
    Gitlab,
    /// GitHub or GitHub Enterprise Server: `hostB`.
    Github,
}

impl PlatformType {
    pub const ALL: [PlatformType; 2] = [PlatformType::Gitlab, PlatformType::Github];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PlatformType::Gitlab => "hostA",
            PlatformType::Github => "hostB",
        }
    }
}

impl fmt::Display for PlatformType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PlatformType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "hostA" => Ok(PlatformType::Gitlab),
            "hostB" => Ok(PlatformType::Github),
            other => Err(format!(
                "unknown platform type `{other}` (expected hostA or hostB)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthType {
    Token,
    OAuth,
    /// A GitHub App installation (hostB): installation tokens minted from the
    /// App's private key.
    App,
}

impl AuthType {
    pub const ALL: [AuthType; 3] = [AuthType::Token, AuthType::OAuth, AuthType::App];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AuthType::Token => "token",
            AuthType::OAuth => "oauth",
            AuthType::App => "app",
        }
    }
}

impl FromStr for AuthType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "token" => Ok(AuthType::Token),
            "oauth" => Ok(AuthType::OAuth),
            "app" => Ok(AuthType::App),
            other => Err(format!(
                "unknown auth type `{other}` (expected token, oauth or app)"
            )),
        }
    }
}

/// A stored connection to one platform instance. Secrets are decrypted in memory
/// only; responses show them as `***`.
#[derive(Debug, Clone)]
pub struct PlatformConfig {
    pub id: Uuid,
    pub name: String,
    pub platform_type: PlatformType,
    pub base_url: String,
    pub auth_type: AuthType,
    pub access_token: Option<SecretString>,
    pub app_id: Option<String>,
    pub app_secret: Option<SecretString>,
    pub webhook_secret: Option<SecretString>,
    pub refresh_token: Option<SecretString>,
    pub token_expires_at: Option<DateTime<Utc>>,
    pub oauth_state: Option<String>,
    pub oauth_redirect_uri: Option<String>,
    pub token_scopes: Vec<String>,
    pub enabled: bool,
    pub is_default: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// `app` configs: the GitHub App's private key (PEM).
    pub private_key: Option<SecretString>,
    /// `app` configs: the one installation to use; `None` for every installation.
    pub installation_id: Option<i64>,
}

/// Fields of a config to insert.
#[derive(Debug, Clone)]
pub struct NewPlatformConfig {
    pub name: String,
    pub platform_type: PlatformType,
    pub base_url: String,
    pub auth_type: AuthType,
    pub access_token: Option<SecretString>,
    pub app_id: Option<String>,
    pub app_secret: Option<SecretString>,
    pub webhook_secret: Option<SecretString>,
    pub token_scopes: Vec<String>,
    pub enabled: bool,
    pub is_default: bool,
    pub private_key: Option<SecretString>,
    pub installation_id: Option<i64>,
}

/// Changes to a config; `None` keeps the stored value. For nullable fields
/// `Some(None)` clears the value.
#[derive(Debug, Clone, Default)]
pub struct PlatformConfigChanges {
    pub name: Option<String>,
    pub base_url: Option<String>,
    pub auth_type: Option<AuthType>,
    pub access_token: Option<Option<SecretString>>,
    pub app_id: Option<Option<String>>,
    pub app_secret: Option<Option<SecretString>>,
    pub webhook_secret: Option<Option<SecretString>>,
    pub refresh_token: Option<Option<SecretString>>,
    pub token_expires_at: Option<Option<DateTime<Utc>>>,
    pub oauth_state: Option<Option<String>>,
    pub oauth_redirect_uri: Option<Option<String>>,
    pub token_scopes: Option<Vec<String>>,
    pub enabled: Option<bool>,
    pub private_key: Option<Option<SecretString>>,
    pub installation_id: Option<Option<i64>>,
}

/// What a client needs to call a platform on behalf of a config.
#[derive(Debug, Clone)]
pub struct PlatformConnection {
    pub platform_type: PlatformType,
    pub base_url: String,
    pub auth_type: AuthType,
    /// The access token; empty for a GitHub App (`app` says how to get one).
    pub token: SecretString,
    /// A GitHub App's credentials, for `AuthType::App`.
    pub app: Option<AppCredentials>,
}

/// A token minted for a runner: one repository, read-only, short-lived.
#[derive(Debug, Clone)]
pub struct RunnerToken {
    pub token: SecretString,
    pub expires_at: DateTime<Utc>,
}

/// What a GitHub App config signs in with: installation tokens are minted from
/// the App's private key.
#[derive(Debug, Clone)]
pub struct AppCredentials {
    pub app_id: u64,
    /// The App's private key, PEM.
    pub private_key: SecretString,
    /// Only this installation; `None` for every installation of the App.
    pub installation_id: Option<u64>,
}

/// The identity behind a token, and its scopes when the platform tells them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenIdentity {
    pub user_id: String,
    pub username: String,
    pub name: Option<String>,
    /// `None` when the platform does not report scopes for this kind of token.
    pub scopes: Option<Vec<String>>,
}

/// A project (hostA) or repository (hostB) as the platform describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformProject {
    pub id: String,
    pub name: String,
    pub full_path: String,
    pub web_url: String,
    pub default_branch: Option<String>,
    pub visibility: Option<String>,
    pub platform_type: PlatformType,
}

/// A platform user (project member or search result).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformUser {
    pub id: String,
    pub username: String,
    pub name: String,
    pub avatar_url: String,
    pub state: String,
    pub web_url: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MrState {
    Opened,
    Merged,
    Closed,
    All,
}

impl FromStr for MrState {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MrState::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                format!("unknown merge request state `{s}` (opened, merged, closed or all)")
            })
    }
}

impl MrState {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MrState::Opened => "opened",
            MrState::Merged => "merged",
            MrState::Closed => "closed",
            MrState::All => "all",
        }
    }

    pub const ALL: [MrState; 4] = [
        MrState::Opened,
        MrState::Merged,
        MrState::Closed,
        MrState::All,
    ];
}

/// A merge request (hostA) or pull request (hostB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeRequest {
    pub iid: i64,
    pub title: String,
    pub description: Option<String>,
    pub state: String,
    pub web_url: String,
    pub source_branch: String,
    pub target_branch: String,
    pub author_id: Option<String>,
    pub author_username: Option<String>,
    pub head_sha: Option<String>,
    pub base_sha: Option<String>,
    pub start_sha: Option<String>,
    pub draft: bool,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// A webhook registered on a platform project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformWebhook {
    pub id: String,
    pub url: String,
}

/// A page of items from a platform list endpoint; `total` when the platform tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformPage<T> {
    pub items: Vec<T>,
    pub page: u32,
    pub per_page: u32,
    pub total: Option<u64>,
    pub has_next: bool,
}

/// Tokens from an OAuth2 code exchange or refresh.
#[derive(Debug, Clone)]
pub struct OAuthTokens {
    pub access_token: SecretString,
    pub refresh_token: Option<SecretString>,
    pub expires_at: Option<DateTime<Utc>>,
    pub scopes: Vec<String>,
}
