//! What reviews cost: each AI call's tokens times the prices of the configuration
//! that served it, summed per review, over the review list (and per day of it), per
//! project this month and in `/api/metrics`.

use super::{bind, create};
use crate::helpers::{TestApp, json};
use crate::review_pipeline::{
    APP_DIFF_1, app_with_ai, fake_ai, file, fixture, gitlab_with_one_mr, mount_mr, review_answer,
    send_webhook, setup_project, wait_for,
};
use reqwest::StatusCode;
use reviewd_testkit::USAGE;
use serde_json::{Value, json};

/// The fake AI's tokens at `input` / `output` USD per million tokens: one call's cost.
fn call_cost(input: f64, output: f64) -> f64 {
    (USAGE.0 as f64 * input + USAGE.1 as f64 * output) / 1e6
}

fn assert_usd(actual: &Value, expected: f64, what: &str) {
    let got = actual
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {actual}"));
    assert!((got - expected).abs() < 1e-9, "{what}: {got} != {expected}");
}

/// The review's AI calls as `/ai-logs` lists them, newest first, each checked to
/// carry the fake's usage.
async fn calls(app: &TestApp, review_id: &str) -> Vec<Value> {
    let logs = json(
        app.root()
            .await
            .get(&format!("/api/reviews/{review_id}/ai-logs"))
            .await,
        StatusCode::OK,
    )
    .await;
    let items = logs["data"]["items"].as_array().unwrap().clone();
    assert!(!items.is_empty(), "{logs}");
    for call in &items {
        assert_eq!(
            (
                call["promptTokens"].clone(),
                call["completionTokens"].clone()
            ),
            (json!(USAGE.0), json!(USAGE.1))
        );
    }
    items
}

/// Asserts every call is priced at `cost` and returns how many there are.
fn priced_at(calls: &[Value], cost: f64) -> usize {
    for call in calls {
        assert_usd(&call["costUsd"], cost, "a call's costUsd");
    }
    calls.len()
}

/// How many chat completions a fake AI server answered.
async fn completions(server: &wiremock::MockServer) -> usize {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/chat/completions")
        .count()
}

async fn review(app: &TestApp, id: &str) -> Value {
    json(
        app.root().await.get(&format!("/api/reviews/{id}")).await,
        StatusCode::OK,
    )
    .await["data"]["review"]
        .clone()
}

#[tokio::test]
async fn costs_are_the_fake_s_tokens_times_the_prices_per_review_project_list_and_metrics() {
    let gitlab = gitlab_with_one_mr().await;
    let (server_a, server_b) = (fake_ai(review_answer).await, fake_ai(review_answer).await);
    // PROVIDERA_* starts without prices: its calls have no known cost.
    let app = app_with_ai(&server_a, &[]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    let mut priced = super::config(
        "Priced",
        &format!("{}/v1", server_b.uri()),
        "sk-b",
        "model-priced",
    );
    priced["inputPricePerMTok"] = json!(2.5);
    priced["outputPricePerMTok"] = json!(10);
    let priced = create(&root, priced).await;
    let project = app.sql("SELECT id FROM projects LIMIT 1");
    bind(&root, &project, priced["id"].clone()).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let first = task["reviewId"].as_str().unwrap().to_owned();
    let per_call = call_cost(2.5, 10.0);
    let n = priced_at(&calls(&app, &first).await, per_call);
    assert_eq!(
        n,
        completions(&server_b).await,
        "one logged call per request"
    );
    let spent = n as f64 * per_call;
    assert_usd(
        &review(&app, &first).await["costUsd"],
        spent,
        "review costUsd",
    );

    // A second round on PROVIDERA_*, unpriced: its calls have no cost and add nothing.
    bind(&root, &project, Value::Null).await;
    let head = "5555555555555555555555555555555555555555";
    mount_mr(&gitlab, head, json!([file("src/app.rs", APP_DIFF_1)]), 4).await;
    let mut body = fixture();
    body["object_attributes"]["action"] = json!("update");
    body["object_attributes"]["last_commit"]["id"] = json!(head);
    let task = wait_for(&app, &send_webhook(&app, &body).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        task["reviewId"],
        first.as_str(),
        "one review per MR, a new round"
    );
    let all = calls(&app, &first).await;
    let unpriced: Vec<_> = all.iter().filter(|c| c["costUsd"].is_null()).collect();
    assert_eq!(
        unpriced.len(),
        completions(&server_a).await,
        "exactly the new round's calls are unpriced"
    );
    assert_eq!(all.len(), n + unpriced.len());
    assert!(
        unpriced.iter().all(|c| c["provider"] == "providerA"),
        "{all:?}"
    );
    assert!(all.len() > n, "the second round called the AI");
    assert_usd(
        &review(&app, &first).await["costUsd"],
        spent,
        "review costUsd after round 2",
    );

    let list = json(root.get("/api/reviews").await, StatusCode::OK).await;
    assert_usd(
        &list["data"]["stats"]["totalCostUsd"],
        spent,
        "list totalCostUsd",
    );
    // Per UTC day of the calls: all of them made today, so today's is the total.
    let days = list["data"]["stats"]["costByDay"].as_array().unwrap();
    let call_days: Vec<&str> = all
        .iter()
        .filter(|c| !c["costUsd"].is_null())
        .map(|c| &c["createdAt"].as_str().unwrap()[..10])
        .collect();
    let today = chrono::Utc::now().date_naive().to_string();
    assert!(call_days.iter().all(|d| *d == today), "{call_days:?}");
    assert_eq!(days.len(), 1, "{days:?}");
    assert_eq!(days[0]["date"], today.as_str());
    assert_usd(&days[0]["costUsd"], spent, "costByDay of today");
    let filtered = json(root.get("/api/reviews?status=failed").await, StatusCode::OK).await;
    assert_usd(
        &filtered["data"]["stats"]["totalCostUsd"],
        0.0,
        "the filter applies to the cost",
    );
    assert_eq!(
        filtered["data"]["stats"]["costByDay"],
        json!([]),
        "and to the days"
    );
    let stats = json(root.get("/api/projects/stats").await, StatusCode::OK).await;
    let stats = &stats["data"]["stats"];
    assert_usd(&stats["costUsdTotal"], spent, "costUsdTotal");
    assert_usd(&stats["costUsdThisMonth"], spent, "costUsdThisMonth");
    assert_eq!(
        stats["costByProject"].as_array().unwrap().len(),
        1,
        "{stats}"
    );
    assert_eq!(stats["costByProject"][0]["projectId"], project.as_str());
    assert_usd(
        &stats["costByProject"][0]["costUsd"],
        spent,
        "costByProject",
    );

    let metrics = reqwest::get(app.url("/api/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = metrics
        .lines()
        .find(|l| {
            l.starts_with("reviewd_ai_cost_usd{")
                && l.contains(r#"provider="Priced""#)
                && l.contains(r#"model="model-priced""#)
        })
        .unwrap_or_else(|| panic!("no cost line in:\n{metrics}"));
    let value: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!((value - spent).abs() < 1e-9, "{line} != {spent}");
    // The calls themselves, from the same log: what a provider-errors alert divides.
    let calls_line = metrics
        .lines()
        .find(|l| {
            l.starts_with("reviewd_ai_calls_total{")
                && l.contains(r#"provider="Priced""#)
                && l.contains(r#"status="success""#)
        })
        .unwrap_or_else(|| panic!("no AI calls line in:\n{metrics}"));
    assert!(
        calls_line.ends_with(&format!(" {n}")),
        "{calls_line}: {n} calls"
    );
    assert!(
        metrics.contains("# TYPE reviewd_ai_calls_total counter")
            && metrics.contains("# TYPE reviewd_ai_cost_usd gauge"),
        "{metrics}"
    );
}

#[tokio::test]
async fn the_builtin_configuration_is_priced_by_its_variables() {
    let gitlab = gitlab_with_one_mr().await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(
        &ai,
        &[
            ("PROVIDERA_INPUT_PRICE_PER_MTOK", "1.25".to_owned()),
            ("PROVIDERA_OUTPUT_PRICE_PER_MTOK", "5".to_owned()),
        ],
    )
    .await;
    setup_project(&app, &gitlab).await;
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let id = task["reviewId"].as_str().unwrap().to_owned();
    let per_call = call_cost(1.25, 5.0);
    let n = priced_at(&calls(&app, &id).await, per_call);
    assert_usd(
        &review(&app, &id).await["costUsd"],
        n as f64 * per_call,
        "review costUsd",
    );
}
