//! A project's monthly AI budget end to end, on the stateful fake GitLab and a
//! priced fake AI: once the month's calls cost the budget, pushes queue no review,
//! the MR gets one note and the team one notification, while a review command and
//! the manual trigger still review.

use super::{app_with_ai, fake_ai, review_answer, wait_for};
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const HEAD_1: &str = "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1";
const DIFF: &str = "@@ -1,3 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n     run();\n }\n";

/// A hostA webhook; returns the answer's `data`.
async fn deliver(app: &TestApp, body: &Value) -> Value {
    let r = reqwest::Client::new()
        .post(app.url("/api/webhook/hostA"))
        .header("X-Gitlab-Token", "hook-secret-a")
        .json(body)
        .send()
        .await
        .unwrap();
    json(r, StatusCode::OK).await["data"].clone()
}

fn push(gitlab_id: &str, iid: i64, head: &str) -> Value {
    let mut hook = super::push(gitlab_id, iid, head);
    hook["object_attributes"]["action"] = json!("update");
    hook
}

fn review_command(gitlab_id: &str) -> Value {
    let file = format!(
        "{}/fixtures/webhooks/hostA/note_merge_request.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut note: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    note["project"]["id"] = json!(gitlab_id.parse::<u64>().unwrap());
    note["merge_request"]["iid"] = json!(1);
    note["merge_request"]["last_commit"]["id"] = json!(HEAD_1);
    note["object_attributes"]["note"] = json!("/review");
    note
}

fn budget_notes(posted: &[Posted]) -> Vec<String> {
    posted
        .iter()
        .filter_map(|p| match p {
            Posted::Comment { body, .. } if body.contains("<!-- reviewd:budget-spent:") => {
                Some(body.clone())
            }
            _ => None,
        })
        .collect()
}

/// Polls `what` until it holds `n` items (the note and the notification are sent
/// after the webhook's answer), then reads it again a moment later, so that a
/// duplicate arriving late is counted.
async fn eventually<F, Fut>(n: usize, what: F) -> Vec<Value>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Vec<Value>>,
{
    for _ in 0..100 {
        if what().await.len() >= n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Settled: a second note or message would have come by now.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    what().await
}

async fn delivered(receiver: &MockServer) -> Vec<Value> {
    receiver
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn a_spent_budget_stops_automatic_reviews_and_not_manual_ones() {
    let gitlab = FakeGitlab::start("glpat-budget").await;
    let project = gitlab
        .add_project(
            &ProjectFixture::new("group/budget")
                .mr(MrFixture::new(1).head(HEAD_1).file("src/app.rs", DIFF))
                .mr(MrFixture::new(2).head(HEAD_1).file("src/app.rs", DIFF)),
        )
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(
        &ai,
        &[
            ("PROVIDERA_INPUT_PRICE_PER_MTOK", "2.5".to_owned()),
            ("PROVIDERA_OUTPUT_PRICE_PER_MTOK", "10".to_owned()),
        ],
    )
    .await;
    let config = create_gitlab_config(&app, &gitlab).await;
    super::sync_projects(&app, &config).await;
    let root = app.root().await;
    let id = json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let hooks = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&hooks)
        .await;
    json(
        root.patch(
            "/api/notifications/config",
            json!({ "webhookEnabled": true, "webhookUrls": [format!("{}/alerts", hooks.uri())],
                    "notifyOnReviewCompleted": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;

    // Bad budgets change nothing.
    for (bad, code) in [
        (json!(-1), "VALIDATION_FAILED"),
        (json!(1e12), "VALIDATION_FAILED"),
        (json!("ten"), "INVALID_BODY"),
    ] {
        expect_error(
            root.patch(
                &format!("/api/projects/{id}"),
                json!({ "monthlyBudget": bad }),
            )
            .await,
            StatusCode::BAD_REQUEST,
            code,
        )
        .await;
    }
    // A budget one review's calls will spend.
    let set = json(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "monthlyBudget": 0.000_001 }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(set["data"]["project"]["monthlyBudget"], json!(0.000_001));
    let resolved = json(
        root.get(&format!("/api/projects/{id}/config")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        resolved["data"]["config"]["monthlyBudget"],
        json!(0.000_001)
    );

    let first = deliver(&app, &push(&project.id, 1, HEAD_1)).await;
    assert_eq!(first["status"], "queued", "under budget: {first}");
    let task = wait_for(&app, first["taskId"].as_str().unwrap()).await;
    assert_eq!(task["status"], "completed", "{task}");
    let calls_after_first = ai.received_requests().await.unwrap().len();

    // Spent: pushes to MR 1 (twice) and MR 2 queue nothing.
    let head_2 = "c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2";
    for (iid, head) in [(1, head_2), (1, head_2), (2, HEAD_1)] {
        let stopped = deliver(&app, &push(&project.id, iid, head)).await;
        assert_eq!(stopped["status"], "ignored", "{stopped}");
        assert_eq!(stopped["taskId"], Value::Null);
        let why = stopped["message"].as_str().unwrap();
        assert!(
            why.contains("monthly AI budget") && why.contains("of $0.000001 in "),
            "{why}"
        );
    }
    let notes = eventually(1, || async {
        budget_notes(&gitlab.posted(&project, 1))
            .into_iter()
            .map(Value::from)
            .collect()
    })
    .await;
    assert_eq!(notes.len(), 1, "one note on MR 1: {notes:?}");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.contains("automatic review paused") && note.contains("comment `/review`"),
        "{note}"
    );
    assert_eq!(
        eventually(1, || async {
            budget_notes(&gitlab.posted(&project, 2))
                .into_iter()
                .map(Value::from)
                .collect()
        })
        .await
        .len(),
        1,
        "and one on MR 2"
    );
    let alerts = eventually(1, || delivered(&hooks)).await;
    assert_eq!(alerts.len(), 1, "one notification this month: {alerts:?}");
    assert_eq!(alerts[0]["event"], "review_failed", "{}", alerts[0]);
    assert!(
        alerts[0]["title"]
            .as_str()
            .unwrap()
            .contains("AI budget spent: budget"),
        "{}",
        alerts[0]
    );
    let history = json(root.get("/api/notifications").await, StatusCode::OK).await;
    let records = history["data"]["items"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{history}");
    assert_eq!(records[0]["notificationType"], "review_failed");
    assert_eq!(records[0]["reviewId"], Value::Null);
    assert_eq!(
        ai.received_requests().await.unwrap().len(),
        calls_after_first,
        "no AI call past the budget"
    );

    // A review command and the manual trigger still review.
    let command = deliver(&app, &review_command(&project.id)).await;
    assert_eq!(command["status"], "queued", "{command}");
    let by_command = wait_for(&app, command["taskId"].as_str().unwrap()).await;
    assert_eq!(by_command["status"], "completed", "{by_command}");
    let manual = json(
        root.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": id, "mrIid": 2 }),
        )
        .await,
        StatusCode::ACCEPTED,
    )
    .await;
    let manual = wait_for(&app, manual["data"]["task"]["id"].as_str().unwrap()).await;
    assert_eq!(manual["status"], "completed", "{manual}");
    assert!(ai.received_requests().await.unwrap().len() > calls_after_first);

    // Removing the budget lets pushes queue again.
    json(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "monthlyBudget": null }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let head_3 = "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3";
    let resumed = deliver(&app, &push(&project.id, 1, head_3)).await;
    assert_eq!(resumed["status"], "queued", "{resumed}");
}
