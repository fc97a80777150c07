//! The merge gate's routes of the fake GitHub: commit statuses and check runs,
//! checked as GitHub's REST description has them and recorded as received.

use super::FakeGithub;
use crate::fakes::hosted::HostedFake;
use serde_json::{Value, json};
use wiremock::matchers::{path, path_regex};
use wiremock::{Request, ResponseTemplate};

/// GitHub's 422 for a body its description refuses.
fn unprocessable(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(422).set_body_json(json!({
        "message": "Validation Failed", "errors": [{ "resource": "Status", "code": "custom", "message": message }],
        "documentation_url": "https://docs.github.com/rest/commits/statuses#create-a-commit-status", "status": "422",
    }))
}

impl FakeGithub {
    /// `POST /statuses/{sha}` (a `state` of the four; `description` checked as
    /// sent) and `POST /check-runs` (`name` and `head_sha` required, a
    /// `conclusion` when `completed`, and only for an App's installation token:
    /// a personal token gets GitHub's 403), as the REST description has them.
    pub(super) async fn serve_gates(&self, base: &str, repo: &str) {
        let (hosted, name) = (self.hosted.clone(), repo.to_owned());
        let route = path_regex(format!("^{base}/statuses/[0-9A-Za-z]+$"));
        self.serve("POST", route, move |r: &Request| {
            let sha = r.url.path().rsplit('/').next().unwrap_or_default().to_owned();
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let state = body["state"].as_str().unwrap_or_default();
            if !["error", "failure", "pending", "success"].contains(&state) {
                return unprocessable("state is not one of error, failure, pending, success");
            }
            let mut hosted = hosted.lock().unwrap();
            let id = hosted.next_id();
            hosted.gate(&name, &sha, body.clone());
            ResponseTemplate::new(201).set_body_json(json!({
                "id": id, "node_id": format!("SC_{id}"), "state": state, "context": body["context"].as_str().unwrap_or("default"),
                "description": body["description"], "target_url": body["target_url"],
                "created_at": "2026-11-28T12:00:00Z", "updated_at": "2026-11-28T12:00:00Z",
            }))
        })
        .await;
        let (hosted, name, token) = (self.hosted.clone(), repo.to_owned(), self.token.clone());
        self.serve("POST", path(format!("{base}/check-runs")), move |r: &Request| {
            let personal = r.headers.get("authorization").and_then(|v| v.to_str().ok())
                == Some(format!("Bearer {token}").as_str());
            if personal {
                return ResponseTemplate::new(403).set_body_json(json!({
                    "message": "You must authenticate via a GitHub App.", "status": "403",
                    "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run",
                }));
            }
            let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let (Some(_), Some(sha)) = (body["name"].as_str(), body["head_sha"].as_str()) else {
                return unprocessable("name and head_sha are required");
            };
            if body["status"] == "completed" && body["conclusion"].as_str().is_none() {
                return unprocessable("conclusion is required when status is completed");
            }
            let mut hosted = hosted.lock().unwrap();
            let id = hosted.next_id();
            hosted.gate(&name, sha, body.clone());
            ResponseTemplate::new(201).set_body_json(json!({
                "id": id, "head_sha": sha, "name": body["name"], "status": body["status"].as_str().unwrap_or("queued"),
                "conclusion": body["conclusion"], "details_url": body["details_url"], "output": body["output"],
            }))
        })
        .await;
    }

    /// What `POST /statuses/{sha}` and `POST /check-runs` received for `sha`,
    /// oldest first, as sent.
    #[must_use]
    pub fn gates(&self, sha: &str) -> Vec<Value> {
        self.hosted.lock().unwrap().gates(sha)
    }
}
