//! Feedback on reviewd's line comments read back from GitHub: the threads they
//! started, with reactions, replies and resolution, against the fake GitHub where
//! other people react, reply and resolve.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod calls;
mod graphql;
mod reactions;
mod threads;

use reviewd_domain::model::diff::{
    CommentThread, InlineComment, Resolution, ThreadReaction, ThreadReply,
};
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_marker;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const TOKEN: &str = "ghp_feedback";
const REPO: &str = "octo/feedback";
const DIFF: &str = "@@ -1,2 +1,6 @@\n a\n+b\n+c\n+d\n+e\n f\n";

fn platform(base_url: &str) -> GithubPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: base_url.to_owned(),
        auth_type: AuthType::Token,
        token: SecretString::new(TOKEN),
        app: None,
    };
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn reviewd_comment(line: u32, fingerprint: &str) -> InlineComment {
    InlineComment {
        file_path: "src/lib.rs".into(),
        old_path: None,
        line,
        body: format!(
            "**warning**: remark {fingerprint}\n\n{}",
            comment_marker(fingerprint)
        ),
        suggestion: None,
    }
}

/// A repository with PR #5 on the fake, and reviewd's comments posted on it
/// through the adapter: their ids, in the order given.
async fn reviewed(fake: &FakeGithub, comments: &[InlineComment]) -> (ProjectRef, Vec<u64>) {
    let mr = MrFixture::new(5).file("src/lib.rs", DIFF);
    let refs = mr.refs(PlatformType::Github);
    let project = fake.add_project(&ProjectFixture::new(REPO).mr(mr)).await;
    platform(&fake.base_url())
        .post_inline_comments(&project, 5, &refs, comments)
        .await
        .unwrap();
    let ids = fake
        .review_comments(REPO, 5)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    (project, ids)
}

fn reaction(name: &str, username: &str) -> ThreadReaction {
    ThreadReaction {
        name: name.into(),
        username: username.into(),
    }
}

async fn requested_paths(fake: &FakeGithub) -> Vec<String> {
    fake.requests()
        .await
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect()
}

/// `GET /user` on `server`: the token is `reviewd-bot`'s.
async fn token_user(server: &MockServer) {
    Mock::given(method("GET"))
        .and(path("/api/v3/user"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "login": "reviewd-bot", "id": 42, "node_id": "U_42", "type": "User", "site_admin": false,
            "name": "Reviewd Bot",
        })))
        .mount(server)
        .await;
}
