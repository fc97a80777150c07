//! What a new team does first, in the browser: log in, connect GitLab, sync, enable a
//! project with auto-review, review a merge request by hand and read its comments by
//! file, create an API key and use it, set up a webhook notification and test it.

use super::browser::Browser;
use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD};
use crate::review_pipeline::{HEAD_1, fake_ai, gitlab_with_one_mr, mr, review_answer};
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub async fn log_in(browser: &Browser, email: &str, password: &str) {
    browser.goto("/").await;
    // A visitor without a session lands on the login page, sent back afterwards.
    browser.find("form[action='/login']").await;
    assert!(browser.path().await.starts_with("/login?next=/"));
    browser.fill("#email", email).await;
    browser.fill("#password", password).await;
    browser
        .click("form[action='/login'] button[type=submit]")
        .await;
    browser.find("nav.side").await;
}

#[tokio::test]
async fn a_new_team_connects_gitlab_reviews_a_merge_request_and_creates_an_api_key() {
    let gitlab = gitlab_with_one_mr().await;
    // The open merge requests the manual review page searches.
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([mr(HEAD_1)]))
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
    // Its members (default reviewers) and hooks.
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/members/all"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([{ "id": 51, "username": "dev", "name": "Dana Dev", "state": "active",
                                         "avatar_url": "", "web_url": "https://gitlab.example.com/dev" }]))
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
    gitlab.with_hooks(1, json!([])).await;
    // The repository at the MR's head (one archive) and base, for the review's context.
    let head_files = [
        ("src/app.rs", "fn main() {\n    let x = foo().unwrap();\n    run();\n}\n"),
        ("src/foo.rs", "/// The setting, or None when it is not set.\npub fn foo() -> Option<u32> {\n    None\n}\n"),
        ("AGENTS.md", "Library code never unwraps: it returns the error.\n"),
    ]
    .map(|(p, t)| (p.to_owned(), t.to_owned()));
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/repository/archive.tar.gz"))
        .and(query_param("sha", HEAD_1))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_bytes(reviewd_testkit::repository::tar_gz("svc-main", &head_files)),
        )
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/repository/files/src%2Fapp.rs/raw"))
        .and(query_param("ref", "base0"))
        .respond_with(ResponseTemplate::new(200).set_body_string("fn main() {\n    run();\n}\n"))
        .mount(&gitlab.server)
        .await;
    let ai = fake_ai(review_answer).await;
    let app = crate::review_pipeline::app_with_ai(&ai, &[]).await;
    let browser = Browser::start(&app.base_url).await;

    browser.goto("/login").await;
    browser.screenshot("login").await;
    log_in(&browser, ROOT_EMAIL, ROOT_PASSWORD).await;
    // First run: nothing connected, and the page says what to do.
    let hint = browser.text("#first-run").await;
    assert!(hint.contains("No platform is connected"), "{hint}");
    browser.screenshot("overview-first-run").await;

    // Connect GitLab: test the connection, then save.
    browser.click("#first-run a[href='/platforms/new']").await;
    browser.fill("#name", "Company GitLab").await;
    browser.fill("#base_url", &gitlab.base_url()).await;
    browser.fill("#access_token", &gitlab.token).await;
    browser.fill("#webhook_secret", "hook-secret-a").await;
    browser.click("#test-platform").await;
    browser
        .wait_text("#test-result", "Connection works", 15)
        .await;
    browser.screenshot("platform-form").await;
    // The token is never sent back to the browser: type it again to save.
    let echoed = browser
        .find("#access_token")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(echoed.as_deref(), Some(""));
    browser.fill("#access_token", &gitlab.token).await;
    browser.fill("#webhook_secret", "hook-secret-a").await;
    browser.click("#save-platform").await;
    browser
        .wait_text(".flash", "Connected “Company GitLab”", 15)
        .await;
    let row = browser.text("tr[data-config='Company GitLab']").await;
    assert!(row.contains("token ***"), "{row}");
    assert!(!row.contains(&gitlab.token), "the token is shown: {row}");

    // Sync its projects.
    browser
        .click_text("tr[data-config='Company GitLab']", "Sync projects")
        .await;
    browser
        .wait_text(".flash", "Synced 1 of 1 project(s)", 20)
        .await;
    browser.find("tr[data-project='group/svc-1']").await;

    // Synced projects start enabled: switch it off and on, then turn auto-review on.
    browser
        .click_text("tr[data-project='group/svc-1']", "Disable")
        .await;
    browser
        .wait_text(".flash", "group/svc-1 disabled", 15)
        .await;
    assert_eq!(
        app.sql("SELECT enabled FROM projects WHERE full_path = 'group/svc-1'"),
        "f"
    );
    browser
        .click_text("tr[data-project='group/svc-1']", "Enable")
        .await;
    browser.wait_text(".flash", "group/svc-1 enabled", 15).await;
    browser
        .click_text("tr[data-project='group/svc-1']", "Turn on")
        .await;
    browser
        .wait_text(".flash", "set to review automatically", 15)
        .await;
    let row = browser.text("tr[data-project='group/svc-1']").await;
    assert!(row.contains("enabled") && row.contains("on"), "{row}");
    assert_eq!(
        app.sql("SELECT enabled, auto_review FROM projects WHERE full_path = 'group/svc-1'"),
        "t|t"
    );
    // Its webhook, created from the list.
    browser
        .click("tr[data-project='group/svc-1'] input[name=project_id]")
        .await;
    browser.click("button[name=action][value=create]").await;
    browser
        .wait_text(".flash", "Webhooks created for 1 project(s)", 15)
        .await;
    let row = browser.text("tr[data-project='group/svc-1']").await;
    assert!(row.contains("active"), "{row}");
    browser.screenshot("projects").await;

    // Its settings: a default reviewer picked from the platform's members, an ignore list.
    browser.click("tr[data-project='group/svc-1'] a").await;
    browser.click("input[name=reviewer][value='51']").await;
    browser.click("input[name=inherit_ignore]").await;
    browser.fill("#ignore_patterns", "*.lock\ndocs/**").await;
    browser.fill("#monthly_budget", "50").await;
    browser.fill("#context_budget", "8000").await;
    browser.click("#save-project").await;
    browser.wait_text(".flash", "Settings saved", 15).await;
    assert_eq!(
        app.sql("SELECT default_reviewer_ids, file_ignore_patterns, monthly_budget_usd, context_budget_tokens FROM projects WHERE full_path = 'group/svc-1'"),
        "{51}|{*.lock,docs/**}|50|8000"
    );
    browser.screenshot("project").await;

    // A manual review, followed from the queue to the finished review.
    browser.click("nav a[href='/manual']").await;
    browser.fill("#project", "svc").await;
    browser.click("#find-projects").await;
    browser
        .click_text("tr[data-project='group/svc-1']", "Open merge requests")
        .await;
    let project_id = app.sql("SELECT id FROM projects WHERE full_path = 'group/svc-1'");
    browser.find("#find-mrs").await;
    assert_eq!(
        browser.path().await,
        format!("/manual?projectId={project_id}")
    );
    browser.screenshot("manual-review").await;
    browser.click_text("tr[data-mr='1']", "Review").await;
    browser.wait_text("#review-status", "completed", 60).await;
    assert!(browser.path().await.starts_with("/reviews/"));
    let comments = browser.text("#comments").await;
    assert!(comments.contains("src/app.rs"), "{comments}");
    assert!(
        comments.contains("unwrap() panics when foo fails"),
        "{comments}"
    );
    // The comment on a line outside the diff was dropped, as on GitLab.
    assert!(
        !comments.contains("A line that does not exist"),
        "{comments}"
    );
    let files = browser.text("#files").await;
    assert!(
        files.contains("src/app.rs") && files.contains("completed"),
        "{files}"
    );
    // What the file's review was given besides its diff, piece by piece.
    browser.click("#files .file-context summary").await;
    let context = browser.text("#files .file-context").await;
    assert!(
        context.contains("definition")
            && context.contains("src/foo.rs")
            && context.contains("enclosing")
            && context.contains("AGENTS.md"),
        "{context}"
    );
    let rounds = browser.text(".round-context").await;
    assert!(
        rounds.contains("from hostA API") && rounds.contains("AGENTS.md"),
        "{rounds}"
    );
    browser.screenshot("review").await;
    browser.goto("/reviews").await;
    browser.find("table").await;
    browser.screenshot("reviews").await;

    // An API key, shown once, that works on the API.
    browser.click("nav a[href='/settings']").await;
    browser.fill("#key-name", "ci").await;
    browser.click("#create-api-key").await;
    let key = browser.text("#new-api-key").await;
    assert!(key.len() > 20, "{key}");
    browser.screenshot("settings").await;
    let me: Value = reqwest::Client::new()
        .get(app.url("/api/auth/me"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["data"]["user"]["email"], ROOT_EMAIL, "{me}");
    assert_eq!(me["data"]["authMethod"], "apiKey");
    // Reloaded, the page no longer has the value.
    browser.goto("/settings").await;
    assert!(!browser.exists("#new-api-key").await);

    // A webhook notification, configured and tested.
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&receiver)
        .await;
    browser.click("nav a[href='/notifications']").await;
    let webhook_enabled = browser.find("input[name=webhook_enabled]").await;
    if webhook_enabled.prop("checked").await.unwrap().as_deref() != Some("true") {
        webhook_enabled.click().await.unwrap();
    }
    browser
        .fill("#webhook_urls", &format!("{}/reviewd", receiver.uri()))
        .await;
    browser.fill("#webhook_secret", "a-signing-secret").await;
    browser.click("#save-notifications").await;
    browser
        .wait_text(".flash", "Notification settings saved", 15)
        .await;
    browser.click("#test-webhook").await;
    browser
        .wait_text(".flash", "Test sent through webhook", 20)
        .await;
    let received = receiver.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    assert!(received[0].headers.contains_key("x-reviewd-signature"));
    // The secret is kept, never shown.
    let placeholder = browser
        .find("#webhook_secret")
        .await
        .attr("placeholder")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(placeholder.contains("***"), "{placeholder}");
    browser.screenshot("notifications").await;

    // The overview now counts the review; the other pages render.
    browser.goto("/").await;
    assert_eq!(browser.text("#today-total").await, "1");
    browser.screenshot("overview").await;
    for (page, shot) in [
        ("/platforms", "platforms"),
        ("/runners", "runners"),
        ("/health", "health"),
        ("/catalog", "catalog"),
        (&format!("/projects/{project_id}") as &str, "project"),
    ] {
        browser.goto(page).await;
        browser.find("main h1").await;
        browser.screenshot(shot).await;
    }
    browser.close().await;
}

#[tokio::test]
async fn an_admin_adds_an_ai_model_tests_it_saves_it_and_makes_it_the_default() {
    const KEY: &str = "sk-browser-secret-42";
    let ai = crate::ai_configs::models_server(KEY).await;
    let app = crate::helpers::TestApp::spawn().await;
    let browser = Browser::start(&app.base_url).await;
    log_in(&browser, ROOT_EMAIL, ROOT_PASSWORD).await;

    // Nothing stored: the built-in model is the one reviews use.
    browser.click("nav a[href='/ai-configs']").await;
    browser.find("#builtin-ai").await;
    browser.click("#add-ai-config").await;
    browser.fill("#name", "Team model").await;
    browser.fill("#endpoint", &format!("{}/v1", ai.uri())).await;
    browser.fill("#api_key", KEY).await;
    browser.fill("#model", "model-b").await;
    browser.fill("#input_price_per_mtok", "0.15").await;
    browser.fill("#output_price_per_mtok", "0.6").await;
    browser.click("#test-ai-config").await;
    browser
        .wait_text("#test-result", "The model answers", 15)
        .await;
    browser.screenshot("ai-config-form").await;
    // The key is never sent back to the browser: typed again to save.
    let echoed = browser.find("#api_key").await.prop("value").await.unwrap();
    assert_eq!(echoed.as_deref(), Some(""));
    assert!(!browser.client.source().await.unwrap().contains(KEY));
    browser.fill("#api_key", KEY).await;
    browser.click("#save-ai-config").await;
    browser.wait_text(".flash", "Added “Team model”.", 15).await;

    browser
        .click("tr[data-config='Team model'] form[action$='/default'] button")
        .await;
    browser
        .wait_text(".flash", "“Team model” is now the default", 15)
        .await;
    let row = browser.text("tr[data-config='Team model']").await;
    assert!(row.contains("default") && row.contains("$0.15"), "{row}");
    assert!(
        !browser.exists("#builtin-ai").await,
        "the built-in model is still listed as the default"
    );
    assert!(!browser.client.source().await.unwrap().contains(KEY));
    browser.screenshot("ai-configs").await;
    browser.close().await;
}
