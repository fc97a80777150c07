//! Who gets a page: sessions, login redirects that stay on the site, viewers refused admin forms.

use super::post_form;
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
