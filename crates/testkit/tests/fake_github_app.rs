//! The fake GitHub as a GitHub App sees it: JWTs checked with the App's public key,
//! installation tokens minted, narrowed and expiring, and the repository routes
//! taking those tokens as far as they reach; driven with plain HTTP and JWTs signed
//! here, as GitHub's App documentation describes the exchange.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

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

#[tokio::test]
async fn a_valid_jwt_mints_a_token_that_lists_the_installation_and_reads_its_pulls() {
    let fake = github().await;

    let (status, minted) = mint(&fake, INSTALLATION, &jwt(), json!({})).await;

    assert_eq!(status, StatusCode::CREATED, "{minted}");
    let token = minted["token"].as_str().unwrap();
    assert!(token.starts_with("ghs_") && token.len() == 40, "{token}");
    assert_eq!(minted["repository_selection"], "all");
    assert_eq!(minted["permissions"]["pull_requests"], "write");
    let expires_at: DateTime<Utc> = minted["expires_at"].as_str().unwrap().parse().unwrap();
    let lifetime = (expires_at - Utc::now()).num_seconds();
    assert!((3590..=3600).contains(&lifetime), "expires in {lifetime} s");
    assert_eq!(fake.mint_count(), 1);

    let (status, listed) = get(&fake, "/installation/repositories", token).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed["total_count"], 2);
    assert_eq!(listed["repository_selection"], "all");
    assert_eq!(names(&listed["repositories"]), ["org/api", "org/web"]);

    let (status, pull) = get(&fake, "/repos/org/api/pulls/1", token).await;
    assert_eq!(status, StatusCode::OK, "{pull}");
    assert_eq!(pull["title"], "Add a thing");
    // The personal token still works beside it.
    assert_eq!(
        get(&fake, "/repos/org/api/pulls/1", PAT).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_app_and_its_installations_are_read_with_the_jwt() {
    let fake = github().await;
    fake.with_installation(78, "other-org", &["other-org/one"], true);

    let (status, app) = get(&fake, "/app", &jwt()).await;
    assert_eq!(status, StatusCode::OK, "{app}");
    assert_eq!(app["id"], APP_ID);
    assert_eq!(app["slug"], "reviewd-app");
    assert_eq!(app["owner"]["login"], "reviewd");

    let url = "/app/installations?per_page=1";
    let (status, first, headers) = call(&fake, reqwest::Method::GET, url, &jwt(), None).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first[0]["id"], INSTALLATION);
    assert_eq!(first[0]["account"]["login"], "org");
    assert_eq!(first[0]["account"]["type"], "Organization");
    assert_eq!(first[0]["app_id"], APP_ID);
    assert_eq!(first[0]["repository_selection"], "all");
    assert_eq!(first[0]["suspended_at"], Value::Null);
    let link = headers["link"].to_str().unwrap();
    assert!(link.contains("page=2>; rel=\"next\""), "{link}");
    let (_, second) = get(&fake, "/app/installations?per_page=1&page=2", &jwt()).await;
    assert_eq!(second[0]["id"], 78);
    assert_eq!(second[0]["repository_selection"], "selected");
    assert!(second[0]["suspended_at"].is_string());

    let (status, found) = get(&fake, "/repos/org/web/installation", &jwt()).await;
    assert_eq!(
        (status, &found["id"]),
        (StatusCode::OK, &json!(INSTALLATION))
    );
    let (status, _) = get(&fake, "/repos/elsewhere/tool/installation", &jwt()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // An installation token is no JWT.
    let (status, refused) = get(&fake, "/app", &token(&fake).await).await;
    assert_eq!(
        (status, &refused["message"]),
        (StatusCode::UNAUTHORIZED, &json!(UNDECODABLE))
    );
}

#[tokio::test]
async fn jwts_that_are_not_the_apps_or_out_of_date_are_refused() {
    let fake = github().await;
    let other_key = jwt_with(
        FakeGithub::OTHER_PRIVATE_KEY,
        &json!({ "iss": APP_ID, "iat": now() - 60, "exp": now() + 540 }),
    );
    let expired = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID, "iat": now() - 700, "exp": now() - 100 }),
    );
    let other_app = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID + 1, "iat": now() - 60, "exp": now() + 540 }),
    );
    let too_long = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID, "iat": now() - 60, "exp": now() + 900 }),
    );

    for (jwt, message) in [
        (other_key.as_str(), UNDECODABLE),
        (other_app.as_str(), UNDECODABLE),
        ("not.a.jwt", UNDECODABLE),
        (PAT, UNDECODABLE),
        (
            expired.as_str(),
            "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
        ),
        (
            too_long.as_str(),
            "'Expiration time' claim ('exp') is too far in the future",
        ),
    ] {
        let (status, body) = mint(&fake, INSTALLATION, jwt, json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert_eq!(body["message"], message);
    }
    assert_eq!(fake.mint_count(), 0);

    // `iss` as a string is taken too.
    let text_issuer = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID.to_string(), "iat": now() - 60, "exp": now() + 540 }),
    );
    let (status, _) = mint(&fake, INSTALLATION, &text_issuer, json!({})).await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn an_expired_installation_token_is_bad_credentials_and_a_new_one_works() {
    let fake = github().await;
    let token = token(&fake).await;
    assert_eq!(get(&fake, "/repos/org/api", &token).await.0, StatusCode::OK);

    fake.expire_all_tokens();

    let (status, body) = get(&fake, "/repos/org/api", &token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["message"], "Bad credentials");
    let (status, _) = get(&fake, "/installation/repositories", &token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let unknown = "ghs_0000000000000000000000000000000000000";
    assert_eq!(
        get(&fake, "/repos/org/api", unknown).await.0,
        StatusCode::UNAUTHORIZED
    );

    let fresh = self::token(&fake).await;
    assert_eq!(get(&fake, "/repos/org/api", &fresh).await.0, StatusCode::OK);
    assert_eq!(fake.mint_count(), 2);
}

#[tokio::test]
async fn token_lifetime_follows_the_knob() {
    let fake = github().await;
    fake.token_ttl(std::time::Duration::from_secs(120));

    let (_, minted) = mint(&fake, INSTALLATION, &jwt(), json!({})).await;

    let expires_at: DateTime<Utc> = minted["expires_at"].as_str().unwrap().parse().unwrap();
    let lifetime = (expires_at - Utc::now()).num_seconds();
    assert!((110..=120).contains(&lifetime), "expires in {lifetime} s");
    assert_eq!(
        fake.mints()[0].expires_at.timestamp(),
        expires_at.timestamp()
    );
}

#[tokio::test]
async fn a_token_narrowed_to_one_repository_reads_only_that_one() {
    let fake = github().await;
    let body = json!({ "repositories": ["api"], "permissions": { "contents": "read" } });

    let (status, minted) = mint(&fake, INSTALLATION, &jwt(), body).await;

    assert_eq!(status, StatusCode::CREATED, "{minted}");
    assert_eq!(minted["repository_selection"], "selected");
    assert_eq!(
        minted["permissions"],
        json!({ "contents": "read", "metadata": "read" })
    );
    assert_eq!(names(&minted["repositories"]), ["org/api"]);
    // octocrab reads them as its `models::Repository`, which needs `id`, `name` and `url`.
    assert!(minted["repositories"][0]["url"].is_string(), "{minted}");
    let recorded = &fake.mints()[0];
    assert_eq!(recorded.installation_id, INSTALLATION);
    assert_eq!(recorded.repositories, Some(vec!["org/api".to_owned()]));
    assert_eq!(recorded.permissions["contents"], "read");

    let token = minted["token"].as_str().unwrap();
    assert_eq!(
        get(&fake, "/repos/org/api/pulls/1", token).await.0,
        StatusCode::OK
    );
    let (status, body) = get(&fake, "/repos/org/web/pulls/1", token).await;
    assert_eq!(
        (status, &body["message"]),
        (StatusCode::NOT_FOUND, &json!("Not Found"))
    );
    let (_, listed) = get(&fake, "/installation/repositories", token).await;
    assert_eq!(names(&listed["repositories"]), ["org/api"]);
    // Read-only: GitHub refuses writes.
    let (status, body, _) = call(
        &fake,
        reqwest::Method::POST,
        "/repos/org/api/issues/1/comments",
        token,
        Some(json!({ "body": "hi" })),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["message"], "Resource not accessible by integration");
}

#[tokio::test]
async fn an_installation_token_reaches_only_its_installations_repositories() {
    let fake = github().await;
    let token = token(&fake).await;

    let (status, _) = get(&fake, "/repos/elsewhere/tool/pulls/1", &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&fake, "/repos/elsewhere/tool/pulls/1", PAT).await.0,
        StatusCode::OK
    );
    // Installation tokens act for no user.
    let (status, body) = get(&fake, "/user", &token).await;
    assert_eq!(
        (status, &body["message"]),
        (
            StatusCode::FORBIDDEN,
            &json!("Resource not accessible by integration")
        )
    );
    // GraphQL hides what the token does not reach.
    let query = json!({
        "query": "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100) { nodes { isResolved } } } } }",
        "variables": { "owner": "elsewhere", "name": "tool", "number": 1 },
    });
    let answer: Value = reqwest::Client::new()
        .post(format!("{}/api/graphql", fake.base_url()))
        .bearer_auth(&token)
        .json(&query)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND", "{answer}");

    let asked = json!({ "repositories": ["tool"] });
    let (status, body) = mint(&fake, INSTALLATION, &jwt(), asked).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let asked = json!({ "permissions": { "administration": "write" } });
    let (status, _) = mint(&fake, INSTALLATION, &jwt(), asked).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_selected_installation_reaches_the_chosen_repositories_by_name_or_id() {
    let fake = github().await;
    let web_id = get(&fake, "/repos/org/web", PAT).await.1["id"].to_string();
    fake.with_installation(INSTALLATION, "org", &["org/api"], false);
    fake.with_installation(79, "org", &[web_id.as_str()], false);

    let token = token(&fake).await;
    let (_, listed) = get(&fake, "/installation/repositories", &token).await;
    assert_eq!(
        (&listed["total_count"], names(&listed["repositories"])),
        (&json!(1), vec!["org/api"])
    );
    assert_eq!(listed["repository_selection"], "selected");
    assert_eq!(
        get(&fake, "/repos/org/web", &token).await.0,
        StatusCode::NOT_FOUND
    );

    let (status, minted) = mint(
        &fake,
        79,
        &jwt(),
        json!({ "repository_ids": [web_id.parse::<u64>().unwrap()] }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{minted}");
    let by_id = minted["token"].as_str().unwrap();
    assert_eq!(get(&fake, "/repos/org/web", by_id).await.0, StatusCode::OK);
    assert_eq!(
        fake.mints()[1].repositories,
        Some(vec!["org/web".to_owned()])
    );
}

#[tokio::test]
async fn a_suspended_installation_gets_no_token_and_an_unknown_one_is_not_found() {
    let fake = github().await;
    let token = token(&fake).await;
    fake.with_installation(INSTALLATION, "org", &[], true);

    let (status, body) = mint(&fake, INSTALLATION, &jwt(), json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["message"], "This installation has been suspended");
    assert_eq!(
        get(&fake, "/repos/org/api", &token).await.0,
        StatusCode::FORBIDDEN
    );
    let (status, _) = mint(&fake, 999, &jwt(), json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    fake.with_installation(INSTALLATION, "org", &[], false);
    assert_eq!(get(&fake, "/repos/org/api", &token).await.0, StatusCode::OK);
    fake.remove_installation(INSTALLATION);
    assert_eq!(
        get(&fake, "/repos/org/api", &token).await.0,
        StatusCode::UNAUTHORIZED
    );
}
