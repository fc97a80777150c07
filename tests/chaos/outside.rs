//! The outside world, in-process: a fake GitLab with one project of N merge
//! requests (behind the slow-comment proxy), and a fake OpenAI-compatible AI of
//! fixed latency that answers one comment per file.

use crate::proxy::SlowProxy;
use crate::repository::Repository;
use reviewd_domain::ports::ProjectRef;
use reviewd_testkit::FakeGitlab;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;
use wiremock::MockServer;

/// Files changed by each MR: one AI call and one line comment each.
pub const FILES: usize = 3;
pub const TOKEN: &str = "glpat-chaos";
pub const WEBHOOK_SECRET: &str = "chaos-hook-secret";

/// Adds line 2 (the only line GitLab takes a comment on in this diff).
const DIFF: &str = "@@ -1,3 +1,4 @@\n fn main() {\n+    let x = foo().unwrap();\n     run();\n }\n";

pub struct Outside {
    pub gitlab: FakeGitlab,
    pub project: ProjectRef,
    /// Where the server is told GitLab is.
    pub proxy: SlowProxy,
    pub ai: MockServer,
    /// The head commit of MR `iid`, at index `iid - 1`.
    heads: Vec<String>,
}

/// A made-up head commit for MR `iid`, when no repository backs the MRs.
fn made_up_head(iid: i64) -> String {
    format!("{:040x}", 0xc4a0_5000_u64 + iid.unsigned_abs())
}

/// Each MR's files are its own (`src/mr<iid>/f<k>.rs`), so an AI call says which MR
/// it reviews.
pub fn files_of(iid: i64) -> Vec<String> {
    (1..=FILES)
        .map(|k| format!("src/mr{iid}/f{k}.rs"))
        .collect()
}

impl Outside {
    /// GitLab's MRs at made-up commits, or at `repository`'s real ones (for runners,
    /// which clone them).
    pub async fn start(
        mrs: i64,
        ai_latency: Duration,
        post_delay: Duration,
        repository: Option<&Repository>,
    ) -> Outside {
        let gitlab = FakeGitlab::start(TOKEN).await;
        let mut fixture = ProjectFixture::new("chaos/svc").member(3, "dev");
        let heads: Vec<String> = match repository {
            Some(r) => r.heads.clone(),
            None => (1..=mrs).map(made_up_head).collect(),
        };
        for (iid, head) in (1..=mrs).zip(&heads) {
            let mut mr = MrFixture::new(iid).head(head);
            if let Some(r) = repository {
                mr = mr.base(&r.base).start(&r.base);
            }
            for path in files_of(iid) {
                mr = mr.file(&path, DIFF);
            }
            fixture = fixture.mr(mr);
        }
        let project = gitlab.add_project(&fixture).await;
        let proxy = SlowProxy::start(&gitlab.base_url(), post_delay).await;
        Outside {
            gitlab,
            project,
            proxy,
            ai: fake_ai(ai_latency).await,
            heads,
        }
    }

    /// The head commit of MR `iid`.
    pub fn head(&self, iid: i64) -> &str {
        usize::try_from(iid - 1)
            .ok()
            .and_then(|i| self.heads.get(i))
            .map_or("", String::as_str)
    }

    /// GitLab's `merge_request` webhook opening MR `iid` at its head.
    pub fn webhook(&self, iid: i64) -> Value {
        let file = format!(
            "{}/fixtures/webhooks/hostA/merge_request.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut body: Value =
            serde_json::from_str(&std::fs::read_to_string(file).expect("the fixture"))
                .expect("the fixture is JSON");
        let project_id: u64 = self.project.id.parse().expect("a GitLab project id");
        body["project"]["id"] = json!(project_id);
        body["object_attributes"]["iid"] = json!(iid);
        body["object_attributes"]["action"] = json!("open");
        body["object_attributes"]["last_commit"]["id"] = json!(self.head(iid));
        body
    }

    /// What GitLab accepted on MR `iid`, oldest first.
    pub fn posted(&self, iid: i64) -> Vec<Posted> {
        self.gitlab.posted(&self.project, iid)
    }

    /// AI calls made so far about files, by the MR whose file they reviewed (a
    /// round's summary call is not one).
    pub async fn ai_calls(&self) -> HashMap<i64, usize> {
        let mut calls = HashMap::new();
        for request in self.ai.received_requests().await.unwrap_or_default() {
            if reviewd_testkit::is_summary_call(&request) {
                continue;
            }
            let text = String::from_utf8_lossy(&request.body);
            let iid = text.split("src/mr").nth(1).and_then(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            });
            *calls.entry(iid.unwrap_or(0)).or_default() += 1;
        }
        calls
    }
}

/// Answers every completion after `latency` with one warning on line 2.
async fn fake_ai(latency: Duration) -> MockServer {
    reviewd_testkit::fake_openai(latency, |_| {
        json!({
            "summary": "Adds an unwrap.",
            "comments": [{ "line": 2, "severity": "warning", "message": "unwrap() panics when foo fails; return the error instead." }],
        })
    })
    .await
}
