//! The AI models page (`/ai-configs`): adding, editing (a blank key keeps the stored
//! one), refusals shown beside their fields, deleting one a project uses, the default,
//! the test, who may do what; and a review's AI cost on its page. No page ever shows
//! a key.

use super::{form_token, post_form};
use crate::ai_configs::{config, create, models_server};
use crate::helpers::{Session, TestApp, json};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const KEY: &str = "sk-page-secret-0123456789";

/// Posts a page form as `session` and follows the redirect, as a browser does: the
/// final status and page (with the flash message it carries).
async fn submit(session: &Session, path: &str, fields: &[(&str, &str)]) -> (StatusCode, String) {
    let token = form_token(session).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", &token));
    let r = session
        .request(Method::POST, path)
        .form(&form)
        .send()
        .await
        .unwrap();
    (r.status(), r.text().await.unwrap())
}

async fn page(session: &Session, path: &str) -> String {
    let r = session.get(path).await;
    assert_eq!(r.status(), StatusCode::OK, "{path}");
    r.text().await.unwrap()
}

/// The configurations as the API lists them.
async fn listed(session: &Session) -> Vec<Value> {
    json(session.get("/api/ai-configs").await, StatusCode::OK).await["data"]["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// The fields of the form for a configuration at `endpoint`.
fn fields<'a>(name: &'a str, endpoint: &'a str, key: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", name),
        ("provider", "openai-compatible"),
        ("endpoint", endpoint),
        ("api_key", key),
        ("model", "model-b"),
        ("max_concurrency", "5"),
        ("timeout_secs", "60"),
        ("input_price_per_mtok", "0.15"),
        ("output_price_per_mtok", "0.6"),
    ]
}

#[tokio::test]
async fn a_model_added_on_the_page_is_listed_and_edited_with_a_blank_key_keeping_the_stored_one() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let server = models_server(KEY).await;
    let endpoint = format!("{}/v1", server.uri());

    let (status, list) = submit(
        &root,
        "/ai-configs/new",
        &fields("Team model", &endpoint, KEY),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.contains("Added “Team model”."), "no flash: {list}");
    for shown in [
        "Team model",
        endpoint.as_str(),
        "model-b",
        "$0.15",
        "$0.60",
        "60 s",
        "***",
    ] {
        assert!(list.contains(shown), "{shown} is not listed");
    }
    let stored = listed(&root).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (
            &stored[0]["maxConcurrency"],
            &stored[0]["apiKey"],
            &stored[0]["isDefault"]
        ),
        (&json!(5), &json!("***"), &json!(false))
    );
    let id = stored[0]["id"].as_str().unwrap().to_owned();

    // Renamed, the input price emptied (cleared), the key field left blank (kept).
    let edit = page(&root, &format!("/ai-configs/{id}")).await;
    assert!(edit.contains("stored (***): leave empty to keep it"));
    let mut changed = fields("Renamed model", &endpoint, "");
    changed.retain(|(k, _)| *k != "input_price_per_mtok");
    changed.push(("input_price_per_mtok", ""));
    let (status, list) = submit(&root, &format!("/ai-configs/{id}"), &changed).await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.contains("Saved “Renamed model”."));
    let stored = &listed(&root).await[0];
    assert_eq!(stored["name"], "Renamed model");
    assert_eq!(stored["inputPricePerMTok"], Value::Null);
    assert_eq!(stored["apiKey"], "***", "the blank field removed the key");
    // The kept key is the one typed: the server that takes only it says so.
    let (status, tested) = submit(&root, &format!("/ai-configs/{id}/test"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        tested.contains("“Renamed model” works: reachable, key accepted"),
        "{tested}"
    );
    let sent = server.received_requests().await.unwrap();
    assert!(
        sent.iter()
            .all(|r| r.headers["authorization"] == format!("Bearer {KEY}").as_str()),
        "another key was sent"
    );

    // Removing the key on purpose is a box to tick; then the test is refused by the server.
    let mut cleared = fields("Renamed model", &endpoint, "");
    cleared.push(("clear_api_key", "on"));
    submit(&root, &format!("/ai-configs/{id}"), &cleared).await;
    assert_eq!(listed(&root).await[0]["apiKey"], Value::Null);
    let (_, list) = submit(&root, &format!("/ai-configs/{id}/test"), &[]).await;
    assert!(list.contains("“Renamed model” failed:"), "{list}");

    for path in [
        "/ai-configs",
        &format!("/ai-configs/{id}"),
        "/ai-configs/new",
    ] {
        assert!(
            !page(&root, path).await.contains(KEY),
            "{path} shows the key"
        );
    }
    assert!(!tested.contains(KEY) && !list.contains(KEY));
}

#[tokio::test]
async fn a_refused_model_is_shown_again_with_the_reasons_beside_the_input_and_without_the_key() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    // The domain's complaints: every bad field at once.
    let r = post_form(
        &app,
        &root,
        "/ai-configs/new",
        &[
            ("name", "Kept name"),
            ("endpoint", "ftp://llm.example.com"),
            ("api_key", KEY),
            ("model", " "),
            ("max_concurrency", "500"),
            ("timeout_secs", "90"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let html = r.text().await.unwrap();
    for reason in ["endpoint-error", "model-error", "maxConcurrency-error"] {
        assert!(html.contains(reason), "{reason} is not shown");
    }
    assert!(html.contains("must be from 1 to 64"), "{html}");
    assert!(html.contains("must not be empty"));
    assert!(
        html.contains("value=\"Kept name\"")
            && html.contains("value=\"ftp://llm.example.com\"")
            && html.contains("value=\"90\""),
        "the input is lost"
    );
    assert!(!html.contains(KEY), "the key is sent back");

    // What the API's body refuses before the domain: a price that is not a number, a
    // name of two lines.
    let r = post_form(
        &app,
        &root,
        "/ai-configs/new",
        &[
            ("name", "two\nlines"),
            ("endpoint", "https://llm.example.com/v1"),
            ("model", "m"),
            ("input_price_per_mtok", "cheap"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let html = r.text().await.unwrap();
    assert!(html.contains("must be a number of US dollars per million tokens"));
    assert!(html.contains("must be one line of at most 200 characters"));
    assert!(html.contains("value=\"cheap\""));
    assert_eq!(app.sql("SELECT count(*) FROM ai_configs"), "0");

    // A refused edit keeps the edits too, and changes nothing.
    let id = create(&root, config("A", "https://a.example.com/v1", KEY, "m")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = post_form(
        &app,
        &root,
        &format!("/ai-configs/{id}"),
        &[
            ("name", "New name"),
            ("endpoint", "https://a.example.com/v1"),
            ("model", "m"),
            ("timeout_secs", "0"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let html = r.text().await.unwrap();
    assert!(html.contains("timeoutSecs-error") && html.contains("value=\"New name\""));
    assert!(!html.contains(KEY));
    assert_eq!(listed(&root).await[0]["name"], "A");
}

#[tokio::test]
async fn a_model_a_project_uses_is_not_deleted_and_the_page_names_the_project() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = create(&root, config("Bound", "https://a.example.com/v1", KEY, "m")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(&format!(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url, ai_config_id) \
         SELECT id, 'hostA', '7', 'svc', 'group/svc', 'https://gitlab.example.com/group/svc', '{id}' FROM platform_configs"
    ));
    let (status, list) = submit(&root, &format!("/ai-configs/{id}/delete"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        list.contains("flash error") && list.contains("use this AI configuration: group/svc"),
        "{list}"
    );
    assert!(
        list.contains("data-config=\"Bound\""),
        "it is gone from the list"
    );
    assert_eq!(listed(&root).await.len(), 1);

    app.sql("UPDATE projects SET ai_config_id = NULL");
    let (_, list) = submit(&root, &format!("/ai-configs/{id}/delete"), &[]).await;
    assert!(list.contains("Deleted “Bound”."));
    assert!(listed(&root).await.is_empty());
    // An unknown one is a 404 page, not a flash.
    let r = post_form(&app, &root, &format!("/ai-configs/{id}/delete"), &[]).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn make_default_moves_the_badge_and_the_built_in_model_is_listed_only_while_it_applies() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let first = page(&root, "/ai-configs").await;
    assert!(
        first.contains("id=\"builtin-ai\"") && first.contains("No AI model is configured"),
        "the built-in model is not shown on the first run"
    );
    let a = create(&root, config("A", "https://a.example.com/v1", "sk-a", "m")).await;
    let b = create(&root, config("B", "https://b.example.com/v1", "sk-b", "m")).await;
    let b_id = b["id"].as_str().unwrap();
    let (status, list) = submit(&root, &format!("/ai-configs/{b_id}/default"), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.contains("“B” is now the default"), "{list}");
    assert!(
        !list.contains("id=\"builtin-ai\""),
        "the built-in row is still listed"
    );
    let defaults: Vec<_> = listed(&root)
        .await
        .into_iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["isDefault"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(defaults, [("A".to_owned(), false), ("B".to_owned(), true)]);
    // The default has no "Make default" button; the other one has.
    let a_id = a["id"].as_str().unwrap();
    assert!(list.contains(&format!("/ai-configs/{a_id}/default")));
    assert!(!list.contains(&format!("/ai-configs/{b_id}/default")));

    // Unticked on the default's form, no stored model is the default: the built-in one is back.
    let (_, list) = submit(
        &root,
        &format!("/ai-configs/{b_id}"),
        &[
            ("name", "B"),
            ("endpoint", "https://b.example.com/v1"),
            ("model", "m"),
        ],
    )
    .await;
    assert!(list.contains("id=\"builtin-ai\""));
    assert!(listed(&root).await.iter().all(|c| c["isDefault"] == false));
}

#[tokio::test]
async fn the_test_form_never_sends_a_stored_key_to_an_address_typed_in_it() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let own = models_server(KEY).await;
    let elsewhere = models_server("whatever").await;
    let endpoint = format!("{}/v1", own.uri());
    let id = create(&root, config("A", &endpoint, KEY, "model-b")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = format!("{}/v1", elsewhere.uri());
    let mut typed = fields("A", &other, "");
    typed.push(("id", &id));
    let r = post_form(&app, &root, "/ai-configs/test", &typed).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.text().await.unwrap().contains("type the key again"));
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the key left"
    );
    // Against its own address, the stored key stands behind the empty field.
    let mut typed = fields("A", &endpoint, "");
    typed.push(("id", &id));
    let r = post_form(&app, &root, "/ai-configs/test", &typed).await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("The model answers: reachable, key accepted (model model-b"),
        "{html}"
    );
    assert!(!html.contains(KEY));
    // A new configuration's settings, with a wrong key: the page says so (200, not an error page).
    let r = post_form(
        &app,
        &root,
        "/ai-configs/test",
        &fields("New", &endpoint, "sk-wrong"),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(html.contains("The test failed:"), "{html}");
    assert!(!html.contains("sk-wrong"), "the typed key is sent back");
}

#[tokio::test]
async fn viewers_and_developers_see_the_models_without_controls_and_are_refused_every_change() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = create(&root, config("A", "https://a.example.com/v1", KEY, "m")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for role in ["viewer", "developer"] {
        let user = app.user_with_role(role).await;
        let list = page(&user, "/ai-configs").await;
        assert!(
            list.contains("data-config=\"A\"") && list.contains("***"),
            "{role}"
        );
        assert!(
            list.contains("href=\"/ai-configs\""),
            "no link in the navigation"
        );
        for control in ["add-ai-config", "/delete", "/default", "/test", "Edit</a>"] {
            assert!(!list.contains(control), "{role} is offered {control}");
        }
        for path in ["/ai-configs/new".to_owned(), format!("/ai-configs/{id}")] {
            assert_eq!(
                user.get(&path).await.status(),
                StatusCode::FORBIDDEN,
                "{role} {path}"
            );
        }
        let form = fields("X", "https://x.example.com/v1", "sk-x");
        for path in [
            "/ai-configs/new".to_owned(),
            "/ai-configs/test".to_owned(),
            format!("/ai-configs/{id}"),
            format!("/ai-configs/{id}/default"),
            format!("/ai-configs/{id}/test"),
            format!("/ai-configs/{id}/delete"),
        ] {
            let r = post_form(&app, &user, &path, &form).await;
            assert_eq!(r.status(), StatusCode::FORBIDDEN, "{role} {path}");
        }
    }
    let stored = listed(&root).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (&stored[0]["name"], &stored[0]["isDefault"]),
        (&json!("A"), &json!(false))
    );
    // A maintainer holds `config:*`: the page offers the controls.
    let maintainer = app.user_with_role("maintainer").await;
    assert!(
        page(&maintainer, "/ai-configs")
            .await
            .contains("id=\"add-ai-config\"")
    );
}

#[tokio::test]
async fn a_review_page_shows_what_its_ai_calls_cost_or_a_dash_when_unpriced() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', '1', 'svc', 'g/svc', 'https://gitlab.example.com/g/svc' FROM platform_configs",
    );
    let review = |title: &str| {
        app.sql(&format!(
            "INSERT INTO reviews (project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch, \
                                  ai_provider, ai_model, triggered_by, head_commit_sha) \
             SELECT id, name, 1, '{title}', 'https://x/1', 'a', 'main', 'p', 'm', 'auto', 'abc' FROM projects RETURNING id"
        ))
    };
    let priced = review("Priced");
    let unpriced = review("Unpriced");
    app.sql(&format!(
        "INSERT INTO ai_call_logs (review_id, provider, model, status, prompt_tokens, completion_tokens, total_tokens, cost_usd) \
         VALUES ('{priced}', 'p', 'm', 'success', 1000, 200, 1200, 0.003), ('{priced}', 'p', 'm', 'success', 500, 100, 600, 0.0012), \
                ('{unpriced}', 'p', 'm', 'success', 1000, 200, 1200, NULL)"
    ));
    let root = app.root().await;
    let html = page(&root, &format!("/reviews/{priced}")).await;
    assert!(html.contains("id=\"review-cost\">$0.0042<"), "{html}");
    assert!(
        html.contains("$0.0030") && html.contains("$0.0012"),
        "no cost per call"
    );
    let html = page(&root, &format!("/reviews/{unpriced}")).await;
    assert!(html.contains("id=\"review-cost\">—<"));
    assert!(html.contains("no price set"));
}

/// The project form's fields with this AI choice and budget.
fn settings<'a>(ai: &'a str, budget: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("enabled", "on"),
        ("auto_review", "inherit"),
        ("inherit_ignore", "on"),
        ("ai_config", ai),
        ("monthly_budget", budget),
    ]
}

#[tokio::test]
async fn a_projects_page_binds_it_to_a_model_and_sets_or_removes_its_monthly_budget() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let ai = create(
        &root,
        config("Large", "https://a.example.com/v1", KEY, "big-1"),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    let project = app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', '7', 'svc', 'group/svc', 'https://gitlab.example.com/group/svc' FROM platform_configs RETURNING id",
    );
    let path = format!("/projects/{project}");
    let before = page(&root, &path).await;
    assert!(before.contains("PROVIDERA_*"), "no model bound yet");

    let (_, saved) = submit(&root, &path, &settings(&ai, "$25.5")).await;
    assert!(saved.contains("Settings saved."), "{saved}");
    assert_eq!(
        app.sql(&format!(
            "SELECT ai_config_id, monthly_budget_usd FROM projects WHERE id = '{project}'"
        )),
        format!("{ai}|25.5")
    );
    assert!(saved.contains("Large (big-1)"), "the AI in use is named");
    assert!(
        saved.contains("value=\"25.5\""),
        "the budget is shown in its field"
    );
    assert!(
        saved.contains("Spent this month: $0.00 of $25.5"),
        "{saved}"
    );

    // Refusals: shown as a flash, nothing changed.
    for (budget, says) in [("ten", "a budget is a number of USD"), ("-3", "from 0 to")] {
        let (_, refused) = submit(&root, &path, &settings("inherit", budget)).await;
        assert!(
            refused.contains("flash error") && refused.contains(says),
            "{budget}: {refused}"
        );
    }
    let (_, refused) = submit(&root, &path, &settings("not-an-id", "")).await;
    assert!(
        refused.contains("choose an AI model from the list"),
        "{refused}"
    );
    assert_eq!(
        app.sql(&format!(
            "SELECT ai_config_id, monthly_budget_usd FROM projects WHERE id = '{project}'"
        )),
        format!("{ai}|25.5")
    );

    // Blank: no budget; `inherit`: the default model again.
    let (_, cleared) = submit(&root, &path, &settings("inherit", "")).await;
    assert!(cleared.contains("Settings saved."), "{cleared}");
    assert_eq!(
        app.sql(&format!(
            "SELECT ai_config_id IS NULL, monthly_budget_usd IS NULL FROM projects WHERE id = '{project}'"
        )),
        "t|t"
    );
}
