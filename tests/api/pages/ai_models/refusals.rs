//! A refused model is shown again with its reasons, never with its key.

use super::*;

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
