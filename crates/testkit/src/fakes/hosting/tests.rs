//! What the contract does not cover: the scripting a domain test relies on.

use super::*;
use reviewd_domain::model::diff::DiffRefs;
use reviewd_domain::model::{AuthType, PlatformConnection, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformClients};

const DIFF: &str = "@@ -1,2 +1,3 @@\n a\n+b\n c\n";

fn with_mr(platform_type: PlatformType) -> (ScriptedPlatform, ProjectRef, DiffRefs) {
    let platform = ScriptedPlatform::new(platform_type);
    let mr = MrFixture::new(1).file("a.rs", DIFF);
    let refs = mr.refs(platform_type);
    let project = platform.add_project(ProjectFixture::new("group/app").mr(mr));
    (platform, project, refs)
}

fn comment(line: u32) -> InlineComment {
    InlineComment {
        file_path: "a.rs".into(),
        old_path: None,
        line,
        body: format!("on {line}"),
        suggestion: None,
    }
}

#[tokio::test]
async fn injected_failures_are_spent_in_order_then_calls_succeed() {
    let (platform, project, _) = with_mr(PlatformType::Gitlab);
    platform.fail_times(
        Op::GetMergeRequest,
        2,
        PlatformError::Unavailable("down".into()),
    );
    for _ in 0..2 {
        assert!(matches!(
            platform.get_merge_request(&project, 1).await,
            Err(PlatformError::Unavailable(_))
        ));
    }
    platform.get_merge_request(&project, 1).await.unwrap();
    assert_eq!(platform.calls(), [Op::GetMergeRequest; 3]);
}

#[tokio::test]
async fn hosta_keeps_the_comments_before_a_refused_one_and_hostb_none() {
    for (platform_type, kept) in [(PlatformType::Gitlab, 1), (PlatformType::Github, 0)] {
        let (platform, project, refs) = with_mr(platform_type);
        let result = platform
            .post_inline_comments(&project, 1, &refs, &[comment(2), comment(40)])
            .await;
        assert!(matches!(result, Err(PlatformError::Rejected(_))));
        assert_eq!(platform.inline_comments().len(), kept, "{platform_type}");
    }
}

#[tokio::test]
async fn context_lines_take_comments_on_hostb_only() {
    for (platform_type, taken) in [(PlatformType::Gitlab, false), (PlatformType::Github, true)] {
        let (platform, project, refs) = with_mr(platform_type);
        let result = platform
            .post_inline_comments(&project, 1, &refs, &[comment(3)])
            .await;
        assert_eq!(result.is_ok(), taken, "{platform_type}");
    }
}

#[tokio::test]
async fn a_new_push_replaces_the_merge_request() {
    let (platform, project, _) = with_mr(PlatformType::Gitlab);
    platform.put_merge_request(&project, MrFixture::new(1).head("h2"));
    let diff = platform.merge_request_diff(&project, 1).await.unwrap();
    assert_eq!(diff.refs.head_sha, "h2");
    assert!(diff.files.is_empty());
}

#[tokio::test]
async fn clients_hand_out_the_platform_and_remember_connections() {
    let (platform, project, _) = with_mr(PlatformType::Gitlab);
    let clients = ScriptedClients::new(platform);
    let connection = PlatformConnection {
        platform_type: PlatformType::Gitlab,
        base_url: "https://gitlab.example.com".into(),
        auth_type: AuthType::Token,
        token: SecretString::new("t"),
        app: None,
    };
    let client = clients.client(&connection);
    client.get_merge_request(&project, 1).await.unwrap();
    assert_eq!(
        clients.connections()[0].base_url,
        "https://gitlab.example.com"
    );
    assert!(clients.oauth(PlatformType::Gitlab).is_some());
    assert!(clients.oauth(PlatformType::Github).is_none());
}
