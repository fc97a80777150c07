//! The adapter as a GitHub App against the fake GitHub: the App signs its own
//! calls with its JWT, each repository is reached through its installation's
//! token (minted once, minted again when it expires), runners get tokens of their
//! own, narrowed to one repository and read-only.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::diff::InlineComment;
use reviewd_domain::model::{
    AppCredentials, AuthType, PlatformConnection, PlatformType, SecretString,
};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_marker;
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use reviewd_testkit::FakeGithub;
use reviewd_testkit::contract::hosting::FakeServer;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use serde_json::json;
use std::time::Duration;

const PAT: &str = "ghp_app_adapter";
const APP_ID: u64 = 4242;
const INSTALLATION: u64 = 77;
const DIFF: &str = "@@ -1,2 +1,6 @@\n a\n+b\n+c\n+d\n+e\n f\n";
const NOT_A_KEY: &str = "the GitHub App's private key is not a valid RSA key in PEM";

/// `org/api` (PR #1) and `org/web` in installation 77 (all of `org`),
/// `elsewhere/tool` in no installation.
async fn github() -> (FakeGithub, ProjectRef) {
    let fake = FakeGithub::start(PAT).await;
    fake.app(APP_ID, FakeGithub::APP_PUBLIC_KEY).await;
    let pull = MrFixture::new(1).file("src/lib.rs", DIFF);
    let api = fake
        .add_project(&ProjectFixture::new("org/api").mr(pull))
        .await;
    for repo in ["org/web", "elsewhere/tool"] {
        fake.add_project(&ProjectFixture::new(repo)).await;
    }
    fake.with_installation(INSTALLATION, "org", &[], false);
    (fake, api)
}

fn connection(fake: &FakeGithub, key: &str, installation_id: Option<u64>) -> PlatformConnection {
    PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: fake.base_url(),
        auth_type: AuthType::App,
        token: SecretString::new(""),
        app: Some(AppCredentials {
            app_id: APP_ID,
            private_key: SecretString::new(key),
            installation_id,
        }),
    }
}

fn platform_with(connection: &PlatformConnection) -> GithubPlatform {
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), connection)
}

fn app(fake: &FakeGithub) -> GithubPlatform {
    platform_with(&connection(fake, FakeGithub::APP_PRIVATE_KEY, None))
}

fn remark(line: u32) -> InlineComment {
    InlineComment {
        file_path: "src/lib.rs".into(),
        old_path: None,
        line,
        body: format!(
            "remark on line {line}\n\n{}",
            comment_marker(&format!("fp{line}"))
        ),
        suggestion: None,
    }
}

fn full_paths(projects: &[reviewd_domain::model::PlatformProject]) -> Vec<&str> {
    let mut paths: Vec<&str> = projects.iter().map(|p| p.full_path.as_str()).collect();
    paths.sort_unstable();
    paths
}

/// The bearer tokens the fake received on paths under `prefix`.
async fn bearers_on(fake: &FakeGithub, prefix: &str) -> Vec<String> {
    fake.requests()
        .await
        .iter()
        .filter(|r| r.url.path().starts_with(prefix))
        .filter_map(|r| {
            let value = r.headers.get("authorization")?.to_str().ok()?;
            value.strip_prefix("Bearer ").map(str::to_owned)
        })
        .collect()
}

#[tokio::test]
async fn the_app_is_who_the_config_acts_as() {
    let (fake, _) = github().await;

    let identity = app(&fake).token_identity().await.unwrap();

    assert_eq!(identity.username, "reviewd-app");
    assert_eq!(identity.user_id, APP_ID.to_string());
    assert_eq!(identity.name.as_deref(), Some("Reviewd App"));
    assert_eq!(identity.scopes, None);
    assert_eq!(fake.mint_count(), 0, "the App's own calls need no token");
}

#[tokio::test]
async fn projects_of_every_installation_not_suspended_each_once() {
    let (fake, _) = github().await;
    for repo in ["other-org/one", "shared/one", "shared/two"] {
        fake.add_project(&ProjectFixture::new(repo)).await;
    }
    fake.with_installation(78, "other-org", &[], true);
    fake.with_installation(79, "shared", &["shared/one"], false);
    // `org/api` again, through a second installation.
    fake.with_installation(80, "org", &["org/api"], false);

    let projects = app(&fake).list_projects().await.unwrap();

    assert_eq!(full_paths(&projects), ["org/api", "org/web", "shared/one"]);
    let minted: Vec<u64> = fake.mints().iter().map(|m| m.installation_id).collect();
    assert_eq!(minted, [INSTALLATION, 79, 80], "none for the suspended one");

    // A config limited to one installation lists that one's only.
    let only = platform_with(&connection(&fake, FakeGithub::APP_PRIVATE_KEY, Some(79)));
    let before = fake.requests().await.len();
    let projects = only.list_projects().await.unwrap();
    assert_eq!(full_paths(&projects), ["shared/one"]);
    let listed_installations = fake.requests().await[before..]
        .iter()
        .any(|r| r.url.path() == "/api/v3/app/installations");
    assert!(!listed_installations);
}

/// One installation failing (suspended or removed since GitHub listed it) does
/// not keep the others' repositories from being listed; every one failing does.
#[tokio::test]
async fn a_failing_installation_is_skipped_and_the_others_listed() {
    let (fake, _) = github().await;
    fake.add_project(&ProjectFixture::new("shared/one")).await;
    fake.with_installation(79, "shared", &[], false);
    let suspended = "This installation has been suspended";
    let refuse = |id: u64, status: u16, message: &'static str| {
        let route = format!("^/api/v3/app/installations/{id}/access_tokens$");
        let fake = &fake;
        async move { fake.fail("POST", &route, status, message, 1).await }
    };

    refuse(INSTALLATION, 403, suspended).await;
    let projects = app(&fake).list_projects().await.unwrap();
    assert_eq!(full_paths(&projects), ["shared/one"]);

    refuse(INSTALLATION, 403, suspended).await;
    refuse(79, 404, "Not Found").await;
    let err = app(&fake).list_projects().await.unwrap_err();
    assert_eq!(
        err,
        PlatformError::Forbidden(suspended.into()),
        "the first failure"
    );

    // A config limited to the failing installation fails.
    refuse(79, 404, "Not Found").await;
    let only = platform_with(&connection(&fake, FakeGithub::APP_PRIVATE_KEY, Some(79)));
    let err = only.list_projects().await.unwrap_err();
    assert!(matches!(err, PlatformError::NotFound(_)), "{err:?}");
}

/// The App's comments show its bot, `{slug}[bot]`: those are the threads that
/// are reviewd's, not a person's thread with a copied marker.
#[tokio::test]
async fn the_apps_threads_are_its_bots_and_a_copied_marker_is_not_one() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    let diff = platform.merge_request_diff(&api, 1).await.unwrap();
    let ours = remark(2);
    platform
        .post_inline_comments(&api, 1, &diff.refs, std::slice::from_ref(&ours))
        .await
        .unwrap();
    platform.post_comment(&api, 1, "A summary.").await.unwrap();
    let posted = fake.review_comments("org/api", 1)[0].0;
    fake.react_as("org/api", posted, "+1", "alice").unwrap();
    let copy = fake.comment_as("org/api", 1, "src/lib.rs", 3, &ours.body, "mallory");
    fake.react_as("org/api", copy, "-1", "mallory").unwrap();
    fake.reply_as("org/api", copy, "Won't fix.", "mallory")
        .unwrap();
    assert!(fake.resolve_as("org/api", copy, Some("mallory")));

    for _ in 0..2 {
        let threads = platform.comment_threads(&api, 1).await.unwrap();
        assert_eq!(threads.len(), 1, "{threads:?}");
        assert_eq!(threads[0].body, ours.body);
        assert_eq!(threads[0].reactions.len(), 1);
        assert_eq!(threads[0].reactions[0].username, "alice");
        assert!(threads[0].replies.is_empty() && threads[0].resolved.is_none());
    }
    let app_reads = fake
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path() == "/api/v3/app")
        .count();
    assert_eq!(app_reads, 1, "the App's slug is read once and kept");

    // As the fake shows them, to anyone: the App's comments are its bot's, a
    // person's their own.
    let client = reqwest::Client::new();
    let list = |route: &str| {
        let request = client
            .get(format!("{}/api/v3/repos/org/api{route}", fake.base_url()))
            .bearer_auth(PAT)
            .send();
        async move {
            request
                .await
                .unwrap()
                .json::<serde_json::Value>()
                .await
                .unwrap()
        }
    };
    let review_comments = list("/pulls/1/comments").await;
    assert_eq!(review_comments[0]["user"]["login"], "reviewd-app[bot]");
    assert_eq!(review_comments[0]["user"]["type"], "Bot");
    assert_eq!(review_comments[1]["user"]["login"], "mallory");
    assert_eq!(review_comments[1]["user"]["type"], "User");
    let general = list("/issues/1/comments").await;
    assert_eq!(general[0]["user"]["login"], "reviewd-app[bot]");
}

#[tokio::test]
async fn a_pull_request_is_read_and_reviewed_with_one_installation_token() {
    let (fake, api) = github().await;
    let platform = app(&fake);

    let diff = platform.merge_request_diff(&api, 1).await.unwrap();
    assert_eq!(diff.files.len(), 1);
    platform
        .post_inline_comments(&api, 1, &diff.refs, &[remark(2), remark(3)])
        .await
        .unwrap();
    let threads = platform.comment_threads(&api, 1).await.unwrap();
    assert_eq!(threads.len(), 2);
    assert!(threads.iter().all(|t| t.resolved.is_none()));
    let listed = platform.list_comments(&api, 1).await.unwrap();
    assert_eq!(listed.len(), 2);

    let posted = fake.posted(&api, 1);
    assert_eq!(posted.len(), 2, "{posted:?}");
    assert!(matches!(&posted[0], Posted::Inline { comment, .. } if comment.line == 2));
    let mints = fake.mints();
    assert_eq!(mints.len(), 1, "one token, kept across the calls");
    assert_eq!(mints[0].installation_id, INSTALLATION);
    assert_eq!(mints[0].repositories, None);
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls").await;
    assert!(used.len() >= 4, "{used:?}");
    assert!(used.iter().all(|t| *t == mints[0].token), "{used:?}");
    // GraphQL goes through the installation too.
    assert_eq!(
        bearers_on(&fake, "/api/graphql").await,
        [mints[0].token.clone()]
    );
    // The repository's installation is asked for once.
    let lookups = fake
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path() == "/api/v3/repos/org/api/installation")
        .count();
    assert_eq!(lookups, 1);
}

#[tokio::test]
async fn an_expired_installation_token_is_minted_again_and_the_call_succeeds() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    platform.get_merge_request(&api, 1).await.unwrap();

    fake.expire_all_tokens();
    let pull = platform.get_merge_request(&api, 1).await.unwrap();

    assert_eq!(pull.iid, 1);
    let mints = fake.mints();
    assert_eq!(mints.len(), 2);
    assert_ne!(mints[0].token, mints[1].token);
    // Octocrab sent the expired token, was refused, and sent the call again once
    // with the new one.
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls/1").await;
    assert_eq!(
        used,
        [
            mints[0].token.clone(),
            mints[0].token.clone(),
            mints[1].token.clone()
        ]
    );
    platform.get_merge_request(&api, 1).await.unwrap();
    assert_eq!(fake.mint_count(), 2, "the new token is kept");
}

#[tokio::test]
async fn a_token_about_to_expire_is_replaced_before_it_is_used() {
    let (fake, api) = github().await;
    // Less than the 30 s octocrab keeps in hand.
    fake.token_ttl(Duration::from_secs(20));
    let platform = app(&fake);

    platform.get_merge_request(&api, 1).await.unwrap();
    platform.get_merge_request(&api, 1).await.unwrap();

    let mints = fake.mints();
    assert_eq!(mints.len(), 2);
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls/1").await;
    assert_eq!(used, [mints[0].token.clone(), mints[1].token.clone()]);
}

#[tokio::test]
async fn a_key_that_is_not_the_apps_is_unauthorized() {
    let (fake, api) = github().await;
    let other = platform_with(&connection(&fake, FakeGithub::OTHER_PRIVATE_KEY, None));

    let identity = other.token_identity().await;
    assert!(
        matches!(identity, Err(PlatformError::Unauthorized(_))),
        "{identity:?}"
    );
    let pull = other.get_merge_request(&api, 1).await;
    assert!(
        matches!(pull, Err(PlatformError::Unauthorized(_))),
        "{pull:?}"
    );
    let projects = other.list_projects().await;
    assert!(
        matches!(projects, Err(PlatformError::Unauthorized(_))),
        "{projects:?}"
    );
    // Limited to one installation: the mint itself is refused.
    let one = platform_with(&connection(
        &fake,
        FakeGithub::OTHER_PRIVATE_KEY,
        Some(INSTALLATION),
    ));
    let pull = one.get_merge_request(&api, 1).await;
    assert!(
        matches!(pull, Err(PlatformError::Unauthorized(_))),
        "{pull:?}"
    );
    assert_eq!(fake.mint_count(), 0);
}

#[tokio::test]
async fn a_key_that_is_no_pem_is_unauthorized_without_a_call() {
    let (fake, api) = github().await;
    let garbage = platform_with(&connection(&fake, "-----BEGIN NOTHING-----\nxyz", None));
    let unauthorized = PlatformError::Unauthorized(NOT_A_KEY.into());

    assert_eq!(garbage.token_identity().await.unwrap_err(), unauthorized);
    assert_eq!(garbage.list_projects().await.unwrap_err(), unauthorized);
    assert_eq!(
        garbage.get_merge_request(&api, 1).await.unwrap_err(),
        unauthorized
    );
    assert_eq!(garbage.runner_token(&api).await.unwrap_err(), unauthorized);
    let app_calls = fake
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path().contains("/app") || r.url.path().contains("/pulls"))
        .count();
    assert_eq!(app_calls, 0);
}

#[tokio::test]
async fn a_runner_gets_a_token_of_its_own_for_the_repository_read_only() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    platform.get_merge_request(&api, 1).await.unwrap();

    let runner = platform.runner_token(&api).await.unwrap().unwrap();

    let mints = fake.mints();
    assert_eq!(mints.len(), 2);
    let (adapter, minted) = (&mints[0], &mints[1]);
    assert_eq!(minted.token, runner.token.expose());
    assert_ne!(runner.token.expose(), adapter.token);
    assert_eq!(minted.installation_id, INSTALLATION);
    assert_eq!(minted.repositories, Some(vec!["org/api".to_owned()]));
    assert_eq!(
        minted.permissions,
        json!({ "contents": "read", "metadata": "read" })
    );
    assert_eq!(runner.expires_at.timestamp(), minted.expires_at.timestamp());
    // The adapter keeps its own token.
    platform.get_merge_request(&api, 1).await.unwrap();
    assert_eq!(fake.mint_count(), 2);
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls/1").await;
    assert!(used.iter().all(|t| *t == adapter.token), "{used:?}");

    // What the runner's token reaches: that repository, to read.
    let client = reqwest::Client::new();
    let status = |route: &str| {
        let request = client
            .get(format!("{}/api/v3{route}", fake.base_url()))
            .bearer_auth(runner.token.expose())
            .send();
        async move { request.await.unwrap().status().as_u16() }
    };
    assert_eq!(status("/repos/org/api").await, 200);
    assert_eq!(status("/repos/org/web").await, 404);
}

#[tokio::test]
async fn token_configs_give_runners_no_token_of_their_own() {
    let (fake, api) = github().await;
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: fake.base_url(),
        auth_type: AuthType::Token,
        token: SecretString::new(PAT),
        app: None,
    };

    let runner = platform_with(&connection).runner_token(&api).await.unwrap();

    assert!(runner.is_none());
    assert_eq!(fake.mint_count(), 0);
}

#[tokio::test]
async fn webhooks_are_set_in_the_apps_settings() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    let unsupported =
        PlatformError::Unsupported("hostB App: its webhook is set in the App's settings");

    assert_eq!(platform.list_webhooks(&api).await.unwrap_err(), unsupported);
    assert_eq!(
        platform
            .create_webhook(
                &api,
                "https://reviewd.example.com/api/webhooks/hostb",
                Some("s")
            )
            .await
            .unwrap_err(),
        unsupported
    );
    assert_eq!(
        platform.delete_webhook(&api, "1").await.unwrap_err(),
        unsupported
    );
    assert!(
        bearers_on(&fake, "/api/v3/repos/org/api/hooks")
            .await
            .is_empty()
    );
}
