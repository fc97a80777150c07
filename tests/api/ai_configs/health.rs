//! The `ai_provider` health check: one result per configuration, and `providerA`
//! while it is set or in use.

use super::{config, create, models_server};
use crate::helpers::{TestApp, json};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn every_configuration_is_checked_with_its_own_key() {
    let server = models_server("sk-good").await;
    let endpoint = format!("{}/v1", server.uri());
    let app = TestApp::spawn_with(&[
        ("PROVIDERA_ENDPOINT", endpoint.clone()),
        ("PROVIDERA_API_KEY", "sk-good".to_owned()),
    ])
    .await;
    let root = app.root().await;
    let good = create(&root, config("good", &endpoint, "sk-good", "model-b")).await;
    let revoked = create(&root, config("revoked", &endpoint, "sk-revoked", "model-b")).await;
    json(
        root.post(
            &format!("/api/ai-configs/{}/default", good["id"].as_str().unwrap()),
            json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;

    let body = json(root.get("/api/health/ai-providers").await, StatusCode::OK).await;
    let checks = body["data"]["checks"].as_array().unwrap();
    let by_name = |name: &str| -> &Value {
        checks
            .iter()
            .find(|c| c["checkName"] == name)
            .unwrap_or_else(|| panic!("no check of {name}: {body}"))
    };
    assert_eq!(checks.len(), 3, "{body}");
    assert!(checks.iter().all(|c| c["checkType"] == "ai_provider"));
    let good_check = by_name("good");
    assert_eq!(good_check["status"], "healthy");
    assert_eq!(
        good_check["details"],
        json!({ "aiConfigId": good["id"], "endpoint": endpoint, "model": "model-b",
                "isDefault": true, "message": "reachable, key accepted" })
    );
    let revoked_check = by_name("revoked");
    assert_eq!(revoked_check["status"], "unhealthy");
    assert_eq!(revoked_check["details"]["aiConfigId"], revoked["id"]);
    assert!(
        revoked_check["details"]["error"]
            .as_str()
            .unwrap()
            .contains("rejected the API key"),
        "{revoked_check}"
    );
    let builtin = by_name("providerA");
    assert_eq!(builtin["status"], "healthy");
    assert_eq!(
        (
            builtin["details"]["aiConfigId"].clone(),
            builtin["details"]["isDefault"].clone()
        ),
        (Value::Null, json!(false))
    );
    assert_eq!(body["data"]["overall"], "unhealthy", "the worst check");
    assert!(!body.to_string().contains("sk-"), "no key in the report");
    let history = json(
        root.get("/api/health/history?checkType=ai_provider").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        history["data"]["checks"].as_array().unwrap().len(),
        3,
        "stored"
    );
}

/// A configuration whose endpoint never answers (its `timeoutSecs` an hour) is
/// reported unhealthy after the probe's 5 s, and the health check answers: the
/// monitoring that polls it is not left hanging (found by schemathesis, whose
/// generated configurations pointed at hosts that drop packets).
#[tokio::test]
async fn an_endpoint_that_never_answers_is_unhealthy_within_the_probe_limit() {
    let silent = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(120)),
        )
        .mount(&silent)
        .await;
    let app = TestApp::spawn_with(&[]).await;
    let root = app.root().await;
    let mut body = config("silent", &format!("{}/v1", silent.uri()), "sk-x", "m");
    body["timeoutSecs"] = json!(3600);
    create(&root, body).await;

    let started = std::time::Instant::now();
    let body = json(root.get("/api/health/ai-providers").await, StatusCode::OK).await;
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(15),
        "the check waited {took:?}"
    );
    let check = body["data"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["checkName"] == "silent")
        .cloned()
        .unwrap_or_else(|| panic!("no check of the silent configuration: {body}"));
    assert_eq!(check["status"], "unhealthy", "{check}");
    assert_eq!(
        silent.received_requests().await.unwrap().len(),
        1,
        "one attempt, not the outbound retries"
    );
}
