//! Platform connections through the pages: OAuth, the test form, renaming while the
//! platform is down.

use super::{form_token, post_form};
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn gitlab_oauth_connects_through_the_pages_and_refuses_a_forged_state() {
    use wiremock::matchers::{body_string_contains, method, path};
    use wiremock::{Mock, ResponseTemplate};
    let app = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("unused").await;
    let root = app.root().await;
    let id = json(
        root.post("/api/platform-configs", json!({ "name": "OAuth GitLab", "platformType": "hostA", "baseUrl": gitlab.base_url(),
                                                    "authType": "oauth", "appId": "app-123", "appSecret": "app-secret-xyz" })).await,
        StatusCode::OK,
    )
    .await["data"]["config"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .and(body_string_contains("code=the-code"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": "oauth-access-1", "token_type": "Bearer", "expires_in": 7200,
            "refresh_token": "oauth-refresh-1", "created_at": 1_800_000_000, "scope": "api",
        })))
        .mount(&gitlab.server)
        .await;
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let cookie = root.cookie_header(&app.base_url);
    let token = form_token(&root).await;
    let started = no_redirects
        .post(app.url(&format!("/platforms/{id}/oauth")))
        .header("cookie", &cookie)
        .form(&[("csrf", token.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), StatusCode::SEE_OTHER);
    let to = url::Url::parse(started.headers()["location"].to_str().unwrap()).unwrap();
    assert!(
        to.as_str()
            .starts_with(&format!("{}/oauth/authorize?", gitlab.base_url()))
    );
    let query: std::collections::HashMap<_, _> = to.query_pairs().into_owned().collect();
    assert_eq!(
        query["redirect_uri"],
        format!("http://reviewd.test/platforms/{id}/oauth/callback")
    );
    let callback = |state: &str| {
        no_redirects
            .get(app.url(&format!(
                "/platforms/{id}/oauth/callback?code=the-code&state={state}"
            )))
            .header("cookie", &cookie)
            .send()
    };
    // A state the server did not issue, or none, is refused, and nothing is stored.
    let forged = callback("forged").await.unwrap();
    assert_eq!(forged.headers()["location"], format!("/platforms/{id}"));
    let stateless = no_redirects
        .get(app.url(&format!("/platforms/{id}/oauth/callback?code=the-code")))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(stateless.headers()["location"], format!("/platforms/{id}"));
    assert_eq!(
        app.sql(&format!(
            "SELECT access_token_enc IS NULL FROM platform_configs WHERE id = '{id}'"
        )),
        "t"
    );
    // GitLab's answer with the issued state stores the (encrypted) token.
    let done = callback(&query["state"]).await.unwrap();
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    assert_eq!(done.headers()["location"], "/platforms");
    assert_eq!(
        app.sql(&format!(
            "SELECT access_token_enc IS NOT NULL FROM platform_configs WHERE id = '{id}'"
        )),
        "t"
    );
    let page = root.get("/platforms").await.text().await.unwrap();
    assert!(page.contains("token ***") && !page.contains("oauth-access-1"));
}

#[tokio::test]
async fn a_stored_token_is_never_sent_to_an_address_typed_in_the_test_form() {
    use wiremock::MockServer;
    let app = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-stored-secret").await;
    gitlab.with_projects(1, "svc").await;
    let id = crate::helpers::create_gitlab_config(&app, &gitlab).await;
    let maintainer = app.user_with_role("maintainer").await;
    let elsewhere = MockServer::start().await;
    let r = post_form(
        &app,
        &maintainer,
        "/platforms/test",
        &[
            ("id", &id),
            ("name", "GitLab"),
            ("platform_type", "hostA"),
            ("base_url", &elsewhere.uri()),
            ("auth_type", "token"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.text().await.unwrap().contains("type the token again"));
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the token left for another host"
    );
    // Against its own address, the stored token is used.
    let r = post_form(
        &app,
        &maintainer,
        "/platforms/test",
        &[
            ("id", &id),
            ("name", "GitLab"),
            ("platform_type", "hostA"),
            ("base_url", &gitlab.base_url()),
            ("auth_type", "token"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let page = r.text().await.unwrap();
    assert!(page.contains("Connection works"), "{page}");
}

#[tokio::test]
async fn a_connection_is_renamed_while_its_platform_is_down() {
    let app = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-rename").await;
    let id = crate::helpers::create_gitlab_config(&app, &gitlab).await;
    gitlab.fail("GET", ".*", 503, &[], 100).await;
    let root = app.root().await;
    let r = post_form(
        &app,
        &root,
        &format!("/platforms/{id}"),
        &[
            ("name", "Renamed"),
            ("platform_type", "hostA"),
            ("base_url", &format!("{}/", gitlab.base_url())),
            ("auth_type", "token"),
            ("enabled", "on"),
            ("is_default", "on"),
        ],
    )
    .await;
    assert_eq!(
        r.status(),
        StatusCode::SEE_OTHER,
        "{}",
        r.text().await.unwrap()
    );
    assert_eq!(
        app.sql(&format!(
            "SELECT name FROM platform_configs WHERE id = '{id}'"
        )),
        "Renamed"
    );
}

#[tokio::test]
async fn a_github_app_is_connected_through_the_form_and_its_key_stays_home() {
    use reviewd_testkit::FakeGithub;
    use wiremock::MockServer;
    let app = TestApp::spawn().await;
    let github = FakeGithub::start("ghp_unused").await;
    github.app(4242, FakeGithub::APP_PUBLIC_KEY).await;
    {
        use reviewd_testkit::contract::hosting::FakeServer;
        github
            .add_project(&reviewd_testkit::fakes::hosting::ProjectFixture::new(
                "octo/one",
            ))
            .await;
    }
    github.with_installation(11, "octo", &[], false);
    let root = app.root().await;
    let app_form = |key: &'static str, base: String| {
        vec![
            ("name", "GitHub App".to_owned()),
            ("platform_type", "hostB".to_owned()),
            ("base_url", base),
            ("auth_type", "app".to_owned()),
            ("gh_app_id", "4242".to_owned()),
            ("private_key", key.to_owned()),
            ("installation_id", String::new()),
            ("enabled", "on".to_owned()),
        ]
    };
    let send = |fields: Vec<(&'static str, String)>, path: &'static str| {
        let (app, root) = (&app, &root);
        async move {
            let borrowed: Vec<(&str, &str)> =
                fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            post_form(app, root, path, &borrowed).await
        }
    };
    // Not a key: the form says so beside the field, nothing is stored.
    let r = send(app_form("not a key", github.base_url()), "/platforms/new").await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.text().await.unwrap().contains("must be the App"));
    let r = send(
        app_form(FakeGithub::APP_PRIVATE_KEY, github.base_url()),
        "/platforms/new",
    )
    .await;
    assert_eq!(
        r.status(),
        StatusCode::SEE_OTHER,
        "{}",
        r.text().await.unwrap()
    );
    let configs = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    let config = &configs["data"]["items"][0];
    assert_eq!(config["authType"], "app", "{configs}");
    assert_eq!(
        (config["appId"].as_str(), config["privateKey"].as_str()),
        (Some("4242"), Some("***"))
    );
    let id = config["id"].as_str().unwrap().to_owned();

    // Testing the stored App without the key: only against its own address.
    let elsewhere = MockServer::start().await;
    let mut stored = app_form("", elsewhere.uri());
    stored.push(("id", id.clone()));
    let r = send(stored, "/platforms/test").await;
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "a JWT signed with the stored key left for another host"
    );
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let mut home = app_form("", github.base_url());
    home.push(("id", id));
    let r = send(home, "/platforms/test").await;
    assert_eq!(r.status(), StatusCode::OK);
    let page = r.text().await.unwrap();
    assert!(page.contains("Connection works"), "{page}");
    assert!(page.contains("Signed in as reviewd-app"));
}
