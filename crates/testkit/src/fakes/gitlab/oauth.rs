//! GitLab's OAuth2 token endpoint (`POST /oauth/token`) for one registered
//! application: codes the user approved, exchanged once and only with the redirect
//! URI they were issued for, and refresh tokens that rotate, answered with GitLab's
//! token and error bodies.

use super::FakeGitlab;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, ResponseTemplate};

#[derive(Default)]
pub(super) struct Grants {
    /// Approved codes, by code, with the redirect URI each was issued for.
    codes: HashMap<String, String>,
    refresh_tokens: HashSet<String>,
    approved: u64,
    issued: u64,
}

pub(super) type SharedGrants = Arc<Mutex<Grants>>;

fn error(status: u16, code: &str, description: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .set_body_json(json!({ "error": code, "error_description": description }))
}

fn answer(grants: &SharedGrants, app: &(String, String), req: &Request) -> ResponseTemplate {
    let form: HashMap<String, String> = url::form_urlencoded::parse(&req.body)
        .into_owned()
        .collect();
    let field = |name: &str| form.get(name).map_or("", String::as_str);
    if (field("client_id"), field("client_secret")) != (app.0.as_str(), app.1.as_str()) {
        return error(
            401,
            "invalid_client",
            "Client authentication failed due to unknown client.",
        );
    }
    let mut grants = grants.lock().unwrap();
    let granted = match field("grant_type") {
        "authorization_code" => grants
            .codes
            .remove(field("code"))
            .is_some_and(|redirect| redirect == field("redirect_uri")),
        "refresh_token" => grants.refresh_tokens.remove(field("refresh_token")),
        _ => {
            return error(
                400,
                "unsupported_grant_type",
                "The authorization grant type is not supported by the authorization server.",
            );
        }
    };
    if !granted {
        return error(
            400,
            "invalid_grant",
            "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
        );
    }
    grants.issued += 1;
    let n = grants.issued;
    let refresh_token = format!("gl-refresh-{n}");
    grants.refresh_tokens.insert(refresh_token.clone());
    let created_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    ResponseTemplate::new(200).set_body_json(json!({
        "access_token": format!("gl-access-{n}"), "token_type": "Bearer", "expires_in": 7200,
        "refresh_token": refresh_token, "scope": "api", "created_at": created_at,
    }))
}

impl FakeGitlab {
    /// Registers the OAuth application `app_id` with `secret`: `/oauth/token` then
    /// answers for it as GitLab does.
    pub async fn with_oauth_app(&self, app_id: &str, secret: &str) {
        let grants = self.oauth.clone();
        let app = (app_id.to_owned(), secret.to_owned());
        Mock::given(method("POST"))
            .and(path("/oauth/token"))
            .respond_with(move |req: &Request| answer(&grants, &app, req))
            .mount(&self.server)
            .await;
    }

    /// A code for a user who approved the application, valid once for `redirect_uri`.
    #[must_use]
    pub fn approve_oauth(&self, redirect_uri: &str) -> String {
        let mut grants = self.oauth.lock().unwrap();
        grants.approved += 1;
        let code = format!("gl-code-{}", grants.approved);
        grants.codes.insert(code.clone(), redirect_uri.to_owned());
        code
    }
}
