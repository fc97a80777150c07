//! Fallback models end to end, through the real OpenAI adapter: a stored default
//! whose server answers 503 to every completion hands each call to its fallback; the
//! AI log shows both models, and the configuration shows its list.

use super::{config, create};
use crate::helpers::json;
use crate::review_pipeline::{
    app_with_ai, fake_ai, fixture, gitlab_with_one_mr, review_answer, send_webhook, setup_project,
    wait_for,
};
use reqwest::StatusCode;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn a_primary_answering_503_hands_the_review_to_its_fallback() {
    let gitlab = gitlab_with_one_mr().await;
    let down = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(503).set_body_string("upstream overloaded"))
        .mount(&down)
        .await;
    let fallback = fake_ai(review_answer).await;
    // PROVIDERA_* points at the fallback's server too, but a stored default wins.
    let app = app_with_ai(&fallback, &[]).await;
    setup_project(&app, &gitlab).await;
    let root = app.root().await;
    let small = create(
        &root,
        config(
            "small",
            &format!("{}/v1", fallback.uri()),
            "sk-small",
            "model-small",
        ),
    )
    .await;
    let small_id = small["id"].as_str().unwrap();
    let mut big = config("big", &format!("{}/v1", down.uri()), "sk-big", "model-big");
    big["isDefault"] = json!(true);
    big["fallbackIds"] = json!([small_id]);
    let big = create(&root, big).await;
    assert_eq!(big["fallbackIds"], json!([small_id]));

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}");
    let review_id = task["reviewId"].as_str().unwrap();
    let logs = json(
        root.get(&format!("/api/reviews/{review_id}/ai-logs?limit=100"))
            .await,
        StatusCode::OK,
    )
    .await;
    let rows: Vec<(String, String, String)> = logs["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["filePath"] == "src/app.rs")
        .map(|l| {
            let text = |k: &str| l[k].as_str().unwrap_or_default().to_owned();
            (text("provider"), text("model"), text("status"))
        })
        .collect();
    let expected = |p: &str, m: &str, s: &str| (p.to_owned(), m.to_owned(), s.to_owned());
    assert!(
        rows.contains(&expected("big", "model-big", "failed")),
        "{logs}"
    );
    assert!(
        rows.contains(&expected("small", "model-small", "success")),
        "{logs}"
    );
    let review = json(
        root.get(&format!("/api/reviews/{review_id}/comments"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(
        review.to_string().contains("unwrap() panics"),
        "the fallback's findings are the review's: {review}"
    );
    let asked_down = down.received_requests().await.unwrap();
    assert!(
        asked_down
            .iter()
            .all(|r| r.headers.get("authorization").unwrap() == "Bearer sk-big"),
        "each server gets its own key"
    );

    // A list naming no stored configuration is refused and changes nothing.
    let refused = root
        .patch(
            &format!("/api/ai-configs/{}", big["id"].as_str().unwrap()),
            json!({ "fallbackIds": [big["id"]] }),
        )
        .await;
    let body = json(refused, StatusCode::BAD_REQUEST).await;
    assert!(body.to_string().contains("fallbackIds"), "{body}");
    let again = json(
        root.get(&format!("/api/ai-configs/{}", big["id"].as_str().unwrap()))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(again["data"]["config"]["fallbackIds"], json!([small_id]));
}
