//! The dashboard over plain HTTP: who gets a page, what hostile text looks like on it,
//! unknown pages, and the assets.

use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn pages_need_a_session_and_send_visitors_to_the_login_page_then_back() {
    let app = TestApp::spawn().await;
    let anonymous = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for page in ["/", "/reviews?status=failed", "/settings"] {
        let r = anonymous.get(app.url(page)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{page}");
        let to = r.headers()["location"].to_str().unwrap().to_owned();
        assert!(to.starts_with("/login?next=/"), "{page} -> {to}");
    }
    // An API key is for the API: a page with only a key still asks for a login.
    let root = app.root().await;
    let key = json(
        root.post("/api/api-keys", json!({ "name": "k" })).await,
        StatusCode::CREATED,
    )
    .await["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = anonymous
        .get(app.url("/"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);

    // A wrong password shows the form again with the reason, and sets no cookie.
    let r = anonymous
        .post(app.url("/login"))
        .form(&[
            ("email", crate::helpers::ROOT_EMAIL),
            ("password", "wrong"),
            ("next", "/reviews"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert!(
        r.headers()
            .get_all("set-cookie")
            .iter()
            .all(|c| !c.to_str().unwrap().starts_with("reviewd_session=")),
        "a failed login set a session cookie"
    );
    assert!(r.text().await.unwrap().contains("do not match"));
    // The right one goes back where the visitor was going, never to another site.
    for (next, expected) in [("/reviews", "/reviews"), ("//evil.example/x", "/")] {
        let r = anonymous
            .post(app.url("/login"))
            .form(&[
                ("email", crate::helpers::ROOT_EMAIL),
                ("password", crate::helpers::ROOT_PASSWORD),
                ("next", next),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
        assert_eq!(r.headers()["location"], expected);
    }
}

#[tokio::test]
async fn hostile_text_is_shown_as_text_and_pages_forbid_framing_and_foreign_scripts() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>";
    json(
        root.post(
            "/api/users",
            json!({ "email": "hostile@reviewd.test", "name": hostile, "password": "a-good-password", "role": "viewer" }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let r = root.get("/settings").await;
    assert_eq!(r.status(), StatusCode::OK);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    let html = r.text().await.unwrap();
    assert!(
        !html.contains("<script>alert"),
        "unescaped script on the page"
    );
    assert!(!html.contains("<img src=x"), "unescaped tag on the page");
    // askama writes numeric entities.
    assert!(
        html.contains("&#60;script&#62;alert(&#39;x&#39;)"),
        "the name is not shown"
    );
}

#[tokio::test]
async fn unknown_pages_are_html_404s_unknown_api_paths_stay_json_and_assets_are_cached() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let page = root.get("/no/such/page").await;
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let api = root.get("/api/no/such/thing").await;
    assert_eq!(api.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"]["code"], "NOT_FOUND");
    let unknown_review = root
        .get(&format!("/reviews/{}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!(unknown_review.status(), StatusCode::NOT_FOUND);
    let not_a_uuid = root.get("/reviews/%00%3Cx%3E").await;
    assert!(
        not_a_uuid.status().is_client_error(),
        "{}",
        not_a_uuid.status()
    );

    let css = reqwest::get(app.url("/static/app.css?v=1")).await.unwrap();
    assert_eq!(css.status(), StatusCode::OK);
    assert!(
        css.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    let etag = css.headers()["etag"].clone();
    let again = reqwest::Client::new()
        .get(app.url("/static/app.css"))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let worker = reqwest::get(app.url("/sw.js")).await.unwrap();
    assert!(
        worker.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
}

#[tokio::test]
async fn a_viewer_is_refused_every_admin_form_and_nothing_changes() {
    let app = TestApp::spawn().await;
    let viewer = app.user_with_role("viewer").await;
    // The form token is on the viewer's own page.
    let html = viewer.get("/settings").await.text().await.unwrap();
    let token = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .to_owned();
    let before = app.sql("SELECT count(*) FROM users");
    for (path, fields) in [
        (
            "/settings/users",
            vec![
                ("email", "x@reviewd.test"),
                ("name", "x"),
                ("password", "a-good-password"),
                ("role", "admin"),
            ],
        ),
        (
            "/platforms/new",
            vec![
                ("name", "x"),
                ("platform_type", "hostA"),
                ("base_url", "https://gitlab.example.com"),
            ],
        ),
        ("/notifications/vapid", vec![]),
    ] {
        let mut form: Vec<(&str, &str)> = fields;
        form.push(("csrf", &token));
        let r = viewer
            .request(reqwest::Method::POST, path)
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(app.sql("SELECT count(*) FROM users"), before);
    assert_eq!(app.sql("SELECT count(*) FROM platform_configs"), "0");
}

/// The form token of a signed-in session, as its pages carry it.
async fn form_token(session: &crate::helpers::Session) -> String {
    let html = session.get("/settings").await.text().await.unwrap();
    html.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .to_owned()
}

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

/// Posts a page form as `session` (with its token), without following redirects.
async fn post_form(
    app: &TestApp,
    session: &crate::helpers::Session,
    path: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let token = form_token(session).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", &token));
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url(path))
        .header("cookie", session.cookie_header(&app.base_url))
        .form(&form)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_stored_token_is_never_sent_to_an_address_typed_in_the_test_form() {
    use wiremock::MockServer;
    let app = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-stored-secret").await;
    gitlab.with_projects(1, "svc").await;
    let id = crate::helpers::create_host_a_config(&app, &gitlab).await;
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
    let id = crate::helpers::create_host_a_config(&app, &gitlab).await;
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
async fn templates_and_rules_are_for_admins_as_in_the_api() {
    let app = TestApp::spawn().await;
    let maintainer = app.user_with_role("maintainer").await;
    let r = post_form(
        &app,
        &maintainer,
        "/catalog/templates",
        &[("name", "t"), ("content", "Review it.")],
    )
    .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = post_form(
        &app,
        &maintainer,
        "/catalog/rules",
        &[("rule_name", "r"), ("instructions", "Check it.")],
    )
    .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.sql("SELECT count(*) FROM review_templates"), "0");
    let page = maintainer.get("/catalog").await.text().await.unwrap();
    assert!(
        !page.contains("New template"),
        "a maintainer is offered the form"
    );
    let root = app.root().await;
    let r = post_form(
        &app,
        &root,
        "/catalog/templates",
        &[("name", "t"), ("content", "Review it.")],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(app.sql("SELECT count(*) FROM review_templates"), "1");
}

#[tokio::test]
async fn login_redirects_never_leave_the_site_and_foreign_pages_cannot_log_a_visitor_in() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for next in [
        "/\t/evil.example",
        "/\n/evil.example",
        "/\\evil.example",
        "https://evil.example",
    ] {
        let r = client
            .post(app.url("/login"))
            .form(&[
                ("email", crate::helpers::ROOT_EMAIL),
                ("password", crate::helpers::ROOT_PASSWORD),
                ("next", next),
            ])
            .send()
            .await
            .unwrap();
        let status = r.status();
        let to = r.headers().get("location").cloned();
        assert_eq!(
            to.as_ref().map(|l| l.to_str().unwrap()),
            Some("/"),
            "{next:?}: {status}, {}",
            r.text().await.unwrap()
        );
    }
    // A signed-in visitor sent to the login page with a hostile `next` stays here too: a
    // tab in a query is refused before the page runs, a backslash sends home.
    let root = app.root().await;
    let to = |path: &'static str| {
        client
            .get(app.url(path))
            .header("cookie", root.cookie_header(&app.base_url))
            .send()
    };
    let tab = to("/login?next=/%09/evil.example").await.unwrap();
    assert_eq!(tab.status(), StatusCode::BAD_REQUEST);
    assert!(tab.headers().get("location").is_none());
    let backslash = to("/login?next=/%5Cevil.example").await.unwrap();
    assert_eq!(backslash.headers()["location"], "/");
    // Login CSRF: another site's form cannot sign the visitor into an account.
    for path in ["/login", "/api/auth/login"] {
        let r = client
            .post(app.url(path))
            .header("Origin", "https://evil.example")
            .form(&[
                ("email", crate::helpers::ROOT_EMAIL),
                ("password", crate::helpers::ROOT_PASSWORD),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
        assert!(r.headers().get("set-cookie").is_none());
    }
}

#[tokio::test]
async fn refused_notification_settings_are_shown_again_as_typed() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let r = post_form(
        &app,
        &root,
        "/notifications",
        &[
            ("webhook_enabled", "on"),
            ("webhook_urls", "https://hooks.example.com/a\nnot a url"),
            ("smtp_host", "mail.example.com"),
            ("rating_threshold", "70"),
            ("notification_frequency", "immediate"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let page = r.text().await.unwrap();
    assert!(page.contains("role=\"alert\""), "no reason shown");
    assert!(
        page.contains("https://hooks.example.com/a") && page.contains("mail.example.com"),
        "the edits are lost"
    );
    // Nothing was stored.
    let stored = json(root.get("/api/notifications/config").await, StatusCode::OK).await;
    assert_eq!(
        stored["data"]["config"]["smtpHost"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn the_reviews_page_takes_the_apis_dates_and_says_what_is_wrong_with_a_bad_one() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    for good in [
        "startDate=2026-01-01&endDate=2026-12-31",
        "startDate=2026-01-01T00:00:00Z",
    ] {
        let r = root.get(&format!("/reviews?{good}")).await;
        assert_eq!(r.status(), StatusCode::OK);
        assert!(
            !r.text().await.unwrap().contains("role=\"alert\""),
            "{good}"
        );
    }
    let r = root.get("/reviews?startDate=31.01.2026").await;
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "a bad filter still shows the list"
    );
    let page = r.text().await.unwrap();
    assert!(
        page.contains("From must be a date"),
        "the problem is not named"
    );
}

#[tokio::test]
async fn the_reviews_page_searches_projects_by_name_with_wildcards_taken_literally() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT (SELECT id FROM platform_configs), 'hostA', n, n, 'g/' || n, 'https://gitlab.example.com/g/' || n \
         FROM unnest(ARRAY['billing_api', 'billingXapi', 'payments']) n",
    );
    app.sql(
        "INSERT INTO reviews (project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch, \
                              ai_provider, ai_model, triggered_by, head_commit_sha) \
         SELECT id, name, 1, 'Change of ' || name, 'https://x/1', 'a', 'main', 'p', 'm', 'auto', 'abc' FROM projects",
    );
    let root = app.root().await;
    let page = root
        .get("/reviews?project=BILLING_")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Change of billing_api"),
        "no match for the name"
    );
    assert!(
        !page.contains("Change of billingXapi"),
        "`_` was a wildcard"
    );
    assert!(!page.contains("Change of payments"));
    // The filter is a search box, not a list of every project (thousands at scale).
    let all = root.get("/reviews").await.text().await.unwrap();
    assert!(all.contains("name=\"project\"") && !all.contains("<select id=\"projectId\""));
    assert!(all.contains("Change of payments"));
}

#[tokio::test]
async fn manual_review_finds_its_project_by_name_among_many() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url, enabled) \
         SELECT (SELECT id FROM platform_configs), 'hostA', g::text, 'svc-' || g, 'group/svc-' || g, 'https://x/' || g, g <> 7 \
         FROM generate_series(1, 40) g",
    );
    let root = app.root().await;
    let first = root.get("/manual").await.text().await.unwrap();
    assert_eq!(
        first.matches("data-project=").count(),
        25,
        "a page of projects, not all"
    );
    assert!(
        first.contains("25 of 39 projects shown"),
        "the others are not announced"
    );
    let found = root
        .get("/manual?project=svc-3")
        .await
        .text()
        .await
        .unwrap();
    // svc-3 and svc-30..svc-39.
    assert_eq!(found.matches("data-project=").count(), 11);
    let disabled = root
        .get("/manual?project=svc-7")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !disabled.contains("data-project=\"group/svc-7\""),
        "a disabled project is offered"
    );
    let none = root
        .get("/manual?project=nothing-like-it")
        .await
        .text()
        .await
        .unwrap();
    assert!(none.contains("No enabled project matches"));
}
