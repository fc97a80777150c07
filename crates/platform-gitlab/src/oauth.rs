use crate::api::GlOAuthToken;
use crate::endpoints::OAuthToken;
use crate::rest::{GlRest, gl_error};
use async_trait::async_trait;
use chrono::{TimeZone, Utc};
use gitlab::api::AsyncQuery;
use reviewd_domain::model::{OAuthTokens, SecretString};
use reviewd_domain::ports::{PlatformError, PlatformOAuth};
use reviewd_http::HttpClient;

/// GitLab's OAuth2 authorization-code flow (`/oauth/authorize`, `/oauth/token`).
pub struct GitlabOAuth {
    http: HttpClient,
}

impl GitlabOAuth {
    #[must_use]
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }

    async fn token(
        &self,
        base_url: &str,
        form: &[(&str, &str)],
    ) -> Result<OAuthTokens, PlatformError> {
        // No token yet: the client's credentials are in the form.
        let instance = GlRest::new(self.http.clone(), base_url, None);
        let token: GlOAuthToken = OAuthToken { form }
            .query_async(&instance)
            .await
            .map_err(gl_error)?;
        let expires_at = token.expires_in.map(|secs| {
            let issued = token
                .created_at
                .and_then(|t| Utc.timestamp_opt(t, 0).single())
                .unwrap_or_else(Utc::now);
            issued + chrono::Duration::seconds(secs)
        });
        Ok(OAuthTokens {
            access_token: SecretString::new(token.access_token),
            refresh_token: token.refresh_token.map(SecretString::new),
            expires_at,
            scopes: token
                .scope
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        })
    }
}

#[async_trait]
impl PlatformOAuth for GitlabOAuth {
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
        base_url: &str,
        app_id: &str,
        app_secret: &str,
        code: &str,
        redirect_uri: &str,
    ) -> Result<OAuthTokens, PlatformError> {
        let form = [
            ("grant_type", "authorization_code"),
            ("client_id", app_id),
            ("client_secret", app_secret),
            ("code", code),
            ("redirect_uri", redirect_uri),
        ];
        self.token(base_url, &form).await
    }

    async fn refresh(
        &self,
        base_url: &str,
        app_id: &str,
        app_secret: &str,
        refresh_token: &str,
    ) -> Result<OAuthTokens, PlatformError> {
        let form = [
            ("grant_type", "refresh_token"),
            ("client_id", app_id),
            ("client_secret", app_secret),
            ("refresh_token", refresh_token),
        ];
        self.token(base_url, &form).await
    }
}
