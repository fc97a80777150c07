//! Who may read and write AI configurations: any signed-in user reads, `config:*`
//! writes (maintainers and admins).

use super::{config, create};
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn only_maintainers_and_admins_write_and_anonymous_callers_nothing() {
    let app = TestApp::spawn().await;
    let body = config("B", "https://b.example.com/v1", "sk-b", "model-b");
    let stored = create(&app.root().await, body.clone()).await;
    let id = stored["id"].as_str().unwrap().to_owned();
    let one = format!("/api/ai-configs/{id}");
    let default = format!("{one}/default");
    let trial = json!({ "endpoint": "http://127.0.0.1:9/v1" });

    for role in ["viewer", "developer"] {
        let user = app.user_with_role(role).await;
        let listed = json(user.get("/api/ai-configs").await, StatusCode::OK).await;
        assert_eq!(listed["data"]["items"][0]["apiKey"], "***", "{role} reads");
        for response in [
            user.post("/api/ai-configs", body.clone()).await,
            user.patch(&one, json!({ "name": "C" })).await,
            user.post(&default, json!({})).await,
            user.post("/api/ai-configs/test", trial.clone()).await,
            user.delete(&one).await,
        ] {
            expect_error(response, StatusCode::FORBIDDEN, "FORBIDDEN").await;
        }
    }
    let unchanged = json(app.root().await.get(&one).await, StatusCode::OK).await;
    assert_eq!(
        (
            unchanged["data"]["config"]["name"].clone(),
            unchanged["data"]["config"]["isDefault"].clone()
        ),
        (json!("B"), json!(false)),
        "the refused writes changed nothing"
    );
    let anonymous = app.client();
    for response in [
        anonymous.get("/api/ai-configs").await,
        anonymous.get(&one).await,
        anonymous.post("/api/ai-configs", body.clone()).await,
        anonymous.delete(&one).await,
    ] {
        expect_error(response, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    }

    let maintainer = app.user_with_role("maintainer").await;
    let own = create(&maintainer, body).await;
    json(
        maintainer.patch(&one, json!({ "name": "C" })).await,
        StatusCode::OK,
    )
    .await;
    json(maintainer.post(&default, json!({})).await, StatusCode::OK).await;
    let own_id = own["id"].as_str().unwrap();
    json(
        maintainer
            .delete(&format!("/api/ai-configs/{own_id}"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        json(app.root().await.get(&one).await, StatusCode::OK).await["data"]["config"]["name"],
        "C",
        "the maintainer's did"
    );
}
