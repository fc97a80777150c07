//! The fake GitHub as a GitHub App sees it: JWTs checked with the App's public key,
//! installation tokens minted, narrowed and expiring, and the repository routes
//! taking those tokens as far as they reach; driven with plain HTTP and JWTs signed
//! here, as GitHub's App documentation describes the exchange.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod jwt;
mod reach;
mod tokens;

use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::{Value, json};

const PAT: &str = "ghp_app_tests";
const APP_ID: u64 = 4242;
const INSTALLATION: u64 = 77;

/// GitHub's answer to a JWT that fails its checks.
const UNDECODABLE: &str = "A JSON web token could not be decoded";

/// `org/api` (with PR #1) and `org/web` in the installation's organisation,
/// `elsewhere/tool` outside it; the App installed on all of `org`'s repositories.
async fn github() -> FakeGithub {
    let fake = FakeGithub::start(PAT).await;
    fake.app(APP_ID, FakeGithub::APP_PUBLIC_KEY).await;
    for repo in ["org/api", "org/web", "elsewhere/tool"] {
        let project = ProjectFixture::new(repo).mr(MrFixture::new(1).title("Add a thing"));
        fake.add_project(&project).await;
    }
    fake.with_installation(INSTALLATION, "org", &[], false);
    fake
}

fn now() -> i64 {
    Utc::now().timestamp()
}

/// A JWT as octocrab makes one: `iss` the App id, `iat` a minute back, `exp` nine
/// minutes ahead, signed with `pem`.
fn jwt_with(pem: &str, claims: &Value) -> String {
    let key = EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap();
    jsonwebtoken::encode(&Header::new(Algorithm::RS256), claims, &key).unwrap()
}

fn jwt() -> String {
    let claims = json!({ "iss": APP_ID, "iat": now() - 60, "exp": now() + 540 });
    jwt_with(FakeGithub::APP_PRIVATE_KEY, &claims)
}

async fn call(
    fake: &FakeGithub,
    verb: reqwest::Method,
    route: &str,
    bearer: &str,
    body: Option<Value>,
) -> (StatusCode, Value, reqwest::header::HeaderMap) {
    let url = format!("{}/api/v3{route}", fake.base_url());
    let mut request = reqwest::Client::new()
        .request(verb, url)
        .bearer_auth(bearer)
        .header("accept", "application/vnd.github+json");
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body, headers)
}

async fn get(fake: &FakeGithub, route: &str, bearer: &str) -> (StatusCode, Value) {
    let (status, body, _) = call(fake, reqwest::Method::GET, route, bearer, None).await;
    (status, body)
}

/// `POST /app/installations/{id}/access_tokens` with `jwt` and `body`.
async fn mint(fake: &FakeGithub, id: u64, jwt: &str, body: Value) -> (StatusCode, Value) {
    let route = format!("/app/installations/{id}/access_tokens");
    let (status, body, _) = call(fake, reqwest::Method::POST, &route, jwt, Some(body)).await;
    (status, body)
}

/// A token for the whole installation.
async fn token(fake: &FakeGithub) -> String {
    let (status, body) = mint(fake, INSTALLATION, &jwt(), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

fn names(repositories: &Value) -> Vec<&str> {
    repositories
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["full_name"].as_str().unwrap())
        .collect()
}
