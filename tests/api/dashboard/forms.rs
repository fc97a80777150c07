//! Roles and forgery in the browser: a viewer sees no admin control and is refused
//! the admin pages; a page of another origin cannot make the browser act for its user.

use super::browser::Browser;
use super::flows::log_in;
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn a_viewer_sees_no_admin_controls_and_a_forged_cross_site_post_is_refused() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let email = format!("viewer-{}@reviewd.test", uuid::Uuid::new_v4().simple());
    json(
        root.post(
            "/api/users",
            serde_json::json!({ "email": email, "name": "Vera Viewer", "password": "a-good-password", "role": "viewer" }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;

    let browser = Browser::start(&app.base_url).await;
    log_in(&browser, &email, "a-good-password").await;
    assert_eq!(browser.text("[data-role]").await, "viewer");
    // No control that the role does not allow.
    assert!(!browser.exists("nav a[href='/manual']").await);
    browser.goto("/platforms").await;
    browser.find("main h1").await;
    assert!(!browser.exists("#connect-platform").await);
    browser.goto("/settings").await;
    browser.find("#api-keys").await;
    assert!(
        !browser.exists("#users").await,
        "a viewer sees the user list"
    );
    browser.goto("/notifications").await;
    browser.find("#notification-settings").await;
    assert!(!browser.exists("#save-notifications").await);
    assert!(!browser.exists("#test-webhook").await);
    // Typing the address of an admin page is refused, not shown.
    browser.goto("/platforms/new").await;
    let refused = browser.text("main").await;
    assert!(refused.contains("Not allowed"), "{refused}");
    // The 403 page itself logs a failed resource load: look only at what follows.
    let _ = browser.console().await;

    // A page of another origin that posts a form to the app as soon as it loads.
    let keys_before = app.sql("SELECT count(*) FROM api_keys");
    let evil = MockServer::start().await;
    let page = format!(
        r##"<!doctype html><html><body>
        <form id="f" method="post" action="{}/settings/api-keys"><input name="name" value="stolen"></form>
        <form id="g" method="post" enctype="text/plain" action="{}/api/api-keys"><input name='{{"name":"stolen2","x":"' value='"}}'></form>
        <script>document.getElementById(location.hash === "#api" ? "g" : "f").submit();</script>
        </body></html>"##,
        app.base_url, app.base_url
    );
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(page, "text/html"))
        .mount(&evil)
        .await;
    for target in ["#form", "#api"] {
        browser
            .client
            .goto(&format!("{}/{target}", evil.uri()))
            .await
            .unwrap();
        browser.wait_text("body", "CSRF_ORIGIN_MISMATCH", 15).await;
    }
    assert_eq!(app.sql("SELECT count(*) FROM api_keys"), keys_before);
    let _ = browser.console().await;

    // The same browser, on the app's own page, still works.
    browser.goto("/settings").await;
    browser.fill("#key-name", "mine").await;
    browser.click("#create-api-key").await;
    browser.find("#new-api-key").await;
    browser.close().await;
}
