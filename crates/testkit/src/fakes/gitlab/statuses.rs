//! The merge gate's route of the fake GitLab: commit statuses, refused as GitLab
//! refuses them (an unknown state, a status moved to the state it has) and
//! recorded as received.

use super::FakeGitlab;
use super::hosted::OWNER;
use crate::fakes::hosted::HostedFake;
use serde_json::{Value, json};
use wiremock::matchers::path_regex;
use wiremock::{Request, ResponseTemplate};

impl FakeGitlab {
    /// `POST /statuses/:sha` as GitLab answers it: a known state or 400, and 400
    /// for a status asked to move to the state it is in ("Cannot transition").
    pub(super) async fn serve_statuses(&self, base: &str, project: &str) {
        let (hosted, project) = (self.hosted().clone(), project.to_owned());
        let route = path_regex(format!("^{base}/statuses/[0-9A-Za-z]+$"));
        self.serve("POST", route, move |r: &Request| {
            let sha = r
                .url
                .path()
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            let params = FakeGitlab::params(r);
            let state = params["state"].as_str().unwrap_or_default().to_owned();
            let known = [
                "pending", "running", "success", "failed", "canceled", "skipped",
            ];
            if !known.contains(&state.as_str()) {
                return ResponseTemplate::new(400)
                    .set_body_json(json!({ "error": "state does not have a valid value" }));
            }
            let name = params["name"].as_str().unwrap_or("default").to_owned();
            let mut hosted = hosted.lock().unwrap();
            let same = hosted
                .gates(&sha)
                .iter()
                .rev()
                .find(|g| g["name"] == name.as_str())
                .is_some_and(|g| g["state"] == state.as_str());
            if same {
                return ResponseTemplate::new(400).set_body_json(json!({
                    "message": format!("Cannot transition status via :{state} from :{state}")
                }));
            }
            let id = hosted.next_id();
            hosted.gate(&project, &sha, params.clone());
            ResponseTemplate::new(201).set_body_json(json!({
                "id": id, "sha": sha, "ref": null, "status": state, "name": name,
                "target_url": params["target_url"], "description": params["description"],
                "created_at": "2026-11-28T12:00:00Z", "started_at": null, "finished_at": null,
                "allow_failure": false, "coverage": null,
                "author": { "id": OWNER.0, "username": OWNER.1, "name": OWNER.2 },
            }))
        })
        .await;
    }

    /// What `POST /statuses/:sha` received for `sha`, oldest first: each status's
    /// parameters (`state`, `name`, `description`, `target_url`).
    #[must_use]
    pub fn statuses(&self, sha: &str) -> Vec<Value> {
        self.hosted().lock().unwrap().gates(sha)
    }
}
