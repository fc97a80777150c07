//! The GitHub App side of the fake GitHub: the App (checked by its JWT, signed
//! with the App's private key and verified here with its public key), its
//! installations, and the installation tokens minted for them, which expire and
//! which the repository routes accept (see `access`).

mod routes;

use super::FakeGithub;
use super::wire::{bearer, error};
use crate::fakes::hosted::body_json;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wiremock::{Request, ResponseTemplate};

pub(super) type AppShared = Arc<Mutex<AppState>>;

/// The App, its installations and the tokens minted so far.
pub(super) struct AppState {
    app: Option<App>,
    installations: Vec<Installation>,
    tokens: Vec<IssuedToken>,
    mints: Vec<TokenMint>,
    token_ttl: Duration,
}

struct App {
    id: u64,
    slug: String,
    name: String,
    key: DecodingKey,
}

#[derive(Clone)]
pub(super) struct Installation {
    id: u64,
    account: String,
    /// Full names (or ids) of the repositories chosen; `None` for all of the
    /// account's repositories.
    repositories: Option<Vec<String>>,
    pub suspended: bool,
}

pub(super) struct IssuedToken {
    token: String,
    installation_id: u64,
    /// The full names the token was narrowed to; `None` for the installation's.
    repositories: Option<Vec<String>>,
    permissions: Map<String, Value>,
    expires_at: DateTime<Utc>,
}

/// An installation token the fake minted, with what was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenMint {
    pub installation_id: u64,
    pub token: String,
    /// The full names the token is limited to (from the request's `repositories`
    /// or `repository_ids`); `None` for every repository of the installation.
    pub repositories: Option<Vec<String>>,
    /// The token's permissions (the requested ones, else the installation's).
    pub permissions: Value,
    pub expires_at: DateTime<Utc>,
}

/// What every installation of the App is granted.
fn granted() -> Map<String, Value> {
    let granted = json!({
        "contents": "read", "issues": "write", "metadata": "read", "pull_requests": "write",
    });
    granted.as_object().cloned().unwrap_or_default()
}

/// The events the App subscribes to.
const EVENTS: [&str; 5] = [
    "issue_comment",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_review_thread",
];

fn level(access: &Value) -> u8 {
    match access.as_str() {
        Some("read") => 1,
        Some("write") => 2,
        Some("admin") => 3,
        _ => 0,
    }
}

impl Installation {
    /// Whether the installation reaches repository `full_name` (`known`: the
    /// server's `(id, full_name)`s, for repositories chosen by id).
    fn reaches(&self, full_name: &str, known: &[(u64, String)]) -> bool {
        let Some(chosen) = &self.repositories else {
            let owner = full_name.split('/').next().unwrap_or_default();
            return owner.eq_ignore_ascii_case(&self.account);
        };
        chosen.iter().any(|entry| {
            entry.eq_ignore_ascii_case(full_name)
                || entry.parse::<u64>().is_ok_and(|id| {
                    known
                        .iter()
                        .any(|(i, n)| *i == id && n.eq_ignore_ascii_case(full_name))
                })
        })
    }

    fn selection(&self) -> &'static str {
        if self.repositories.is_some() {
            "selected"
        } else {
            "all"
        }
    }
}

impl IssuedToken {
    pub fn reaches(
        &self,
        installation: &Installation,
        full_name: &str,
        known: &[(u64, String)],
    ) -> bool {
        installation.reaches(full_name, known)
            && self
                .repositories
                .as_ref()
                .is_none_or(|r| r.iter().any(|n| n.eq_ignore_ascii_case(full_name)))
    }

    pub fn may_write(&self) -> bool {
        self.permissions.values().any(|v| level(v) >= 2)
    }
}

impl AppState {
    pub fn shared() -> AppShared {
        Arc::new(Mutex::new(Self {
            app: None,
            installations: Vec::new(),
            tokens: Vec::new(),
            mints: Vec::new(),
            token_ttl: Duration::from_secs(3600),
        }))
    }

    /// An unexpired token the fake minted, with its installation (`None` once the
    /// installation is removed: its tokens go with it).
    pub fn live_token(&self, token: &str) -> Option<(&IssuedToken, &Installation)> {
        let issued = self
            .tokens
            .iter()
            .find(|t| t.token == token && t.expires_at > Utc::now())?;
        let installation = self
            .installations
            .iter()
            .find(|i| i.id == issued.installation_id)?;
        Some((issued, installation))
    }

    /// The login what an installation token posts shows: the App's bot,
    /// `{slug}[bot]`; `None` for any other token.
    pub fn bot_login(&self, token: &str) -> Option<String> {
        self.live_token(token)?;
        Some(format!("{}[bot]", self.app.as_ref()?.slug))
    }

    /// Checks the request's App JWT as GitHub does: RS256 under the App's key,
    /// `iss` the App id, `iat`/`exp` present, `exp` in the future and at most ten
    /// minutes after `iat`, `iat` not ahead of the clock by more than a minute.
    #[expect(
        clippy::result_large_err,
        reason = "a test fake: the refusal is the response, built once per request"
    )]
    fn check_jwt(&self, request: &Request) -> Result<&App, ResponseTemplate> {
        const UNDECODABLE: &str = "A JSON web token could not be decoded";
        let app = self.app.as_ref().ok_or_else(|| error(401, UNDECODABLE))?;
        let jwt = bearer(request).ok_or_else(|| error(401, UNDECODABLE))?;
        let mut validation = Validation::new(Algorithm::RS256);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let claims = jsonwebtoken::decode::<Value>(jwt, &app.key, &validation)
            .map_err(|_| error(401, UNDECODABLE))?
            .claims;
        let issuer = match &claims["iss"] {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        };
        if issuer != Some(app.id) {
            return Err(error(401, UNDECODABLE));
        }
        let now = Utc::now().timestamp();
        let issued = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
        let expiry = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
        let iat = claims["iat"].as_i64().ok_or_else(|| error(401, issued))?;
        let exp = claims["exp"].as_i64().ok_or_else(|| error(401, expiry))?;
        if exp <= now {
            return Err(error(401, expiry));
        }
        if exp - iat > 600 {
            let too_far = "'Expiration time' claim ('exp') is too far in the future";
            return Err(error(401, too_far));
        }
        if iat > now + 60 {
            return Err(error(401, issued));
        }
        Ok(app)
    }

    /// `POST /app/installations/{id}/access_tokens`.
    fn mint(&mut self, id: u64, request: &Request, known: &[(u64, String)]) -> ResponseTemplate {
        if let Err(refused) = self.check_jwt(request) {
            return refused;
        }
        let Some(installation) = self.installations.iter().find(|i| i.id == id).cloned() else {
            return error(404, "Not Found");
        };
        if installation.suspended {
            return error(403, "This installation has been suspended");
        }
        let body = body_json(request);
        let names = body["repositories"].as_array().map(|names| {
            names
                .iter()
                .map(|n| {
                    format!(
                        "{}/{}",
                        installation.account,
                        n.as_str().unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
        });
        let ids = body["repository_ids"].as_array().map(|ids| {
            ids.iter()
                .map(|id| {
                    let id = id.as_u64();
                    let name = known.iter().find(|(i, _)| Some(*i) == id);
                    name.map(|(_, n)| n.clone()).unwrap_or_default()
                })
                .collect::<Vec<_>>()
        });
        let narrowed = match (names, ids) {
            (None, None) => None,
            (names, ids) => Some(
                [names, ids]
                    .into_iter()
                    .flatten()
                    .flatten()
                    .collect::<Vec<_>>(),
            ),
        };
        if narrowed
            .iter()
            .flatten()
            .any(|n| !known.iter().any(|(_, k)| k == n) || !installation.reaches(n, known))
        {
            return error(
                422,
                "There is at least one repository that does not exist or is not accessible to the parent installation.",
            );
        }
        let granted = granted();
        let permissions = match body["permissions"].as_object() {
            None => granted,
            Some(asked) => {
                let within = |(k, v): (&String, &Value)| {
                    level(v) > 0 && granted.get(k).is_some_and(|g| level(g) >= level(v))
                };
                if !asked.iter().all(within) {
                    return error(
                        422,
                        "The permissions requested are not granted to this installation.",
                    );
                }
                let mut permissions = asked.clone();
                permissions.insert("metadata".to_owned(), json!("read"));
                permissions
            }
        };
        let ttl = chrono::Duration::from_std(self.token_ttl).unwrap_or(chrono::Duration::hours(1));
        let expires_at = Utc::now() + ttl;
        let token = format!(
            "ghs_{}{:04}",
            uuid::Uuid::new_v4().simple(),
            self.mints.len() % 10_000
        );
        let mut answer = json!({
            "token": token,
            "expires_at": expires_at.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            "permissions": permissions,
            "repository_selection": if narrowed.is_some() { "selected" } else { installation.selection() },
        });
        if let Some(names) = &narrowed {
            answer["repositories"] = json!(
                names
                    .iter()
                    .map(|n| {
                        let id = known.iter().find(|(_, k)| k == n).map_or(0, |(i, _)| *i);
                        super::github_repo(id, n)
                    })
                    .collect::<Vec<_>>()
            );
        }
        self.mints.push(TokenMint {
            installation_id: id,
            token: token.clone(),
            repositories: narrowed.clone(),
            permissions: Value::Object(permissions.clone()),
            expires_at,
        });
        self.tokens.push(IssuedToken {
            token,
            installation_id: id,
            repositories: narrowed,
            permissions,
            expires_at,
        });
        ResponseTemplate::new(201).set_body_json(answer)
    }
}

impl FakeGithub {
    /// Turns on the GitHub App side: App `app_id`, whose JWTs are checked with
    /// `public_pem` (SPKI or PKCS#1 PEM, e.g. [`FakeGithub::APP_PUBLIC_KEY`]). Its
    /// slug is `reviewd-app` (see [`FakeGithub::app_name`]); it has no
    /// installations until [`FakeGithub::with_installation`]. Called again, it
    /// swaps the App's id and key.
    pub async fn app(&self, app_id: u64, public_pem: &str) {
        let key = DecodingKey::from_rsa_pem(public_pem.as_bytes())
            .expect("the App's public key is an RSA PEM");
        let first = {
            let mut state = self.app.lock().unwrap();
            let first = state.app.is_none();
            let (slug, name) = state.app.take().map_or_else(
                || ("reviewd-app".to_owned(), "Reviewd App".to_owned()),
                |a| (a.slug, a.name),
            );
            state.app = Some(App {
                id: app_id,
                slug,
                name,
                key,
            });
            first
        };
        if first {
            self.serve_app().await;
        }
    }

    /// The App's slug and name, as `GET /app` and installations show them.
    pub fn app_name(&self, slug: &str, name: &str) {
        if let Some(app) = self.app.lock().unwrap().app.as_mut() {
            slug.clone_into(&mut app.slug);
            name.clone_into(&mut app.name);
        }
    }

    /// Installs the App on `account` (an organisation) as installation `id`, for the
    /// repositories `repositories` names (full names `owner/name`, or repository ids
    /// as text), or for all of the account's repositories when it is empty; a
    /// suspended installation gets no tokens (403). The same `id` again replaces the
    /// installation (change its repositories, suspend or unsuspend it).
    pub fn with_installation(
        &self,
        id: u64,
        account: &str,
        repositories: &[&str],
        suspended: bool,
    ) {
        let installation = Installation {
            id,
            account: account.to_owned(),
            repositories: (!repositories.is_empty())
                .then(|| repositories.iter().map(|&r| r.to_owned()).collect()),
            suspended,
        };
        let mut state = self.app.lock().unwrap();
        state.installations.retain(|i| i.id != id);
        state.installations.push(installation);
        state.installations.sort_by_key(|i| i.id);
    }

    /// Uninstalls installation `id`: its tokens stop working (401).
    pub fn remove_installation(&self, id: u64) {
        let mut state = self.app.lock().unwrap();
        state.installations.retain(|i| i.id != id);
        state.tokens.retain(|t| t.installation_id != id);
    }

    /// How long tokens minted from now on live (GitHub: one hour).
    pub fn token_ttl(&self, ttl: Duration) {
        self.app.lock().unwrap().token_ttl = ttl;
    }

    /// Every installation token minted so far expires now.
    pub fn expire_all_tokens(&self) {
        let now = Utc::now() - chrono::Duration::seconds(1);
        for token in &mut self.app.lock().unwrap().tokens {
            token.expires_at = token.expires_at.min(now);
        }
    }

    /// How many installation tokens were minted.
    #[must_use]
    pub fn mint_count(&self) -> usize {
        self.app.lock().unwrap().mints.len()
    }

    /// Every installation token minted, oldest first, with the scope asked for.
    #[must_use]
    pub fn mints(&self) -> Vec<TokenMint> {
        self.app.lock().unwrap().mints.clone()
    }
}
