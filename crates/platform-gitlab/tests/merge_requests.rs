//! The GitLab adapter's wire behaviour for the review path: diffs, positioned
//! discussions, notes, assignment.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::diff::{ChangeType, DiffRefs, InlineComment, Suggestion};
use reviewd_domain::model::{AuthType, PlatformConnection, SecretString};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn platform(server: &MockServer, auth_type: AuthType) -> GitlabPlatform {
    let connection = PlatformConnection {
        platform_type: reviewd_domain::model::PlatformType::Gitlab,
        base_url: server.uri(),
        auth_type,
        token: SecretString::new("tok"),
        app: None,
    };
    GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn project() -> ProjectRef {
    ProjectRef {
        id: "42".into(),
        full_path: "group/app".into(),
    }
}

fn mr_json() -> Value {
    json!({
        "id": 900, "iid": 7, "title": "Add parser", "description": "d", "state": "opened",
        "web_url": "https://gitlab.example.com/group/app/-/merge_requests/7",
        "source_branch": "parser", "target_branch": "main",
        "author": { "id": 3, "username": "dev", "name": "Dev" }, "sha": "head1", "draft": false,
        "diff_refs": { "base_sha": "base1", "head_sha": "head1", "start_sha": "start1" },
        "created_at": "2026-11-20T10:00:00.000Z", "updated_at": "2026-11-21T10:00:00.000Z"
    })
}

#[tokio::test]
async fn reads_the_diff_across_pages_with_change_types_and_refs() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7"))
        .and(header("PRIVATE-TOKEN", "tok"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr_json()))
        .mount(&server)
        .await;
    let file = |old: &str, new: &str, flags: (bool, bool, bool), diff: &str| {
        json!({
        "old_path": old, "new_path": new, "a_mode": "100644", "b_mode": "100644",
        "new_file": flags.0, "renamed_file": flags.1, "deleted_file": flags.2, "diff": diff })
    };
    // A full page of 100 means another one is read; the short one after it is the last.
    let mut first_page = vec![
        file(
            "src/a.rs",
            "src/a.rs",
            (false, false, false),
            "@@ -1,2 +1,3 @@\n a\n+b\n c\n",
        ),
        file(
            "src/new.rs",
            "src/new.rs",
            (true, false, false),
            "@@ -0,0 +1 @@\n+x\n",
        ),
    ];
    first_page.extend((2..100).map(|i| {
        let name = format!("docs/{i}.md");
        file(&name, &name, (false, false, false), "@@ -1 +1 @@\n-a\n+b\n")
    }));
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7/diffs"))
        .and(query_param("page", "1"))
        .and(query_param("per_page", "100"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(first_page)
                .insert_header("x-next-page", "2"),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7/diffs"))
        .and(query_param("page", "2"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([
                    file("old/name.rs", "new/name.rs", (false, true, false), ""),
                    file(
                        "gone.rs",
                        "gone.rs",
                        (false, false, true),
                        "@@ -1 +0,0 @@\n-y\n"
                    ),
                ]))
                .insert_header("x-next-page", ""),
        )
        .mount(&server)
        .await;

    let diff = platform(&server, AuthType::Token)
        .merge_request_diff(&project(), 7)
        .await
        .unwrap();
    assert_eq!(
        diff.refs,
        DiffRefs {
            base_sha: "base1".into(),
            start_sha: "start1".into(),
            head_sha: "head1".into()
        }
    );
    assert_eq!(diff.files.len(), 102);
    let kinds: Vec<_> = [0, 1, 100, 101]
        .map(|i| &diff.files[i])
        .iter()
        .map(|f| (f.new_path.as_str(), f.change_type))
        .collect();
    assert_eq!(
        kinds,
        [
            ("src/a.rs", ChangeType::Modified),
            ("src/new.rs", ChangeType::New),
            ("new/name.rs", ChangeType::Renamed),
            ("gone.rs", ChangeType::Deleted)
        ]
    );
    assert_eq!(diff.files[100].old_path.as_deref(), Some("old/name.rs"));
    assert!(diff.files[100].diff.is_none(), "a pure rename has no patch");
}

#[tokio::test]
async fn falls_back_to_changes_on_older_gitlab() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr_json()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/merge_requests/7/diffs"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({ "error": "404 Not Found" })))
        .mount(&server)
        .await;
    Mock::given(method("GET")).and(path("/api/v4/projects/42/merge_requests/7/changes"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "changes": [
            { "old_path": "a.rs", "new_path": "a.rs", "new_file": false, "renamed_file": false, "deleted_file": false, "diff": "@@ -1 +1 @@\n-a\n+b\n" }
        ] }))).mount(&server).await;
    let diff = platform(&server, AuthType::Token)
        .merge_request_diff(&project(), 7)
        .await
        .unwrap();
    assert_eq!(diff.files.len(), 1);
}

#[tokio::test]
async fn posts_one_positioned_discussion_per_comment_and_edits_notes() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/api/v4/projects/42/merge_requests/7/discussions"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": "6a9c1750b37d513a43987b574953fceb50b03ce7", "individual_note": false, "notes": [{ "id": 1126 }] })))
        .mount(&server).await;
    Mock::given(method("POST"))
        .and(path("/api/v4/projects/42/merge_requests/7/notes"))
        .respond_with(
            ResponseTemplate::new(201).set_body_json(json!({ "id": 301, "body": "summary" })),
        )
        .mount(&server)
        .await;
    Mock::given(method("PUT"))
        .and(path("/api/v4/projects/42/merge_requests/7/notes/301"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": 301 })))
        .mount(&server)
        .await;
    let gitlab = platform(&server, AuthType::OAuth);
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "s".into(),
        head_sha: "h".into(),
    };
    let comments = [
        InlineComment {
            file_path: "src/a.rs".into(),
            old_path: None,
            line: 12,
            body: "unwrap may panic".into(),
            suggestion: None,
        },
        InlineComment {
            file_path: "new/name.rs".into(),
            old_path: Some("old/name.rs".into()),
            line: 3,
            body: "naming".into(),
            suggestion: Some(Suggestion {
                start_line: 2,
                end_line: 3,
                code: "let name = 1;\nuse_it(name);".into(),
            }),
        },
    ];
    let ids = gitlab
        .post_inline_comments(&project(), 7, &refs, &comments)
        .await
        .unwrap();
    assert_eq!(
        ids,
        vec![Some("6a9c1750b37d513a43987b574953fceb50b03ce7".to_owned()); 2]
    );
    let requests = server.received_requests().await.unwrap();
    // Form bodies (`position[new_line]=12`), read back as GitLab types them.
    let sent: Vec<Value> = requests
        .iter()
        .filter(|r| r.url.path().ends_with("/discussions"))
        .map(FakeGitlab::params)
        .collect();
    assert_eq!(
        sent[0]["position"],
        json!({ "position_type": "text", "base_sha": "b", "start_sha": "s", "head_sha": "h",
                                            "old_path": "src/a.rs", "new_path": "src/a.rs", "new_line": 12 })
    );
    assert_eq!(sent[0]["body"], "unwrap may panic");
    assert_eq!(sent[1]["position"]["old_path"], "old/name.rs");
    assert_eq!(
        (&sent[1]["position"]["new_line"], &sent[1]["body"]),
        (
            &json!(3),
            &json!("naming\n\n```suggestion:-1+0\nlet name = 1;\nuse_it(name);\n```")
        ),
        "the comment stays on its line; the block reaches one line above it"
    );
    assert!(
        requests.iter().all(
            |r| r.headers.get("authorization").map(|v| v.to_str().unwrap()) == Some("Bearer tok")
        ),
        "OAuth tokens go as bearer"
    );

    assert_eq!(
        gitlab.post_comment(&project(), 7, "summary").await.unwrap(),
        "301"
    );
    gitlab
        .edit_comment(&project(), 7, "301", "summary v2")
        .await
        .unwrap();
}

#[tokio::test]
async fn a_position_outside_the_diff_is_rejected_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v4/projects/42/merge_requests/7/discussions"))
        .respond_with(ResponseTemplate::new(400).set_body_json(
            json!({ "message": "400 Bad request - Note {:line_code=>[\"can't be blank\"]}" }),
        ))
        .mount(&server)
        .await;
    let refs = DiffRefs {
        base_sha: "b".into(),
        start_sha: "s".into(),
        head_sha: "h".into(),
    };
    let comment = InlineComment {
        file_path: "a.rs".into(),
        old_path: None,
        line: 999,
        body: "x".into(),
        suggestion: None,
    };
    let err = platform(&server, AuthType::Token)
        .post_inline_comments(&project(), 7, &refs, &[comment])
        .await
        .unwrap_err();
    assert!(
        matches!(err, PlatformError::Rejected(ref m) if m.contains("line_code")),
        "{err:?}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn assigns_by_numeric_ids_and_refuses_others() {
    let server = MockServer::start().await;
    Mock::given(method("PUT"))
        .and(path("/api/v4/projects/42/merge_requests/7"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr_json()))
        .mount(&server)
        .await;
    let gitlab = platform(&server, AuthType::Token);
    gitlab
        .assign(&project(), 7, &["3".into()], &["12".into(), "13".into()])
        .await
        .unwrap();
    let sent = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        std::str::from_utf8(&sent.body).unwrap(),
        "assignee_ids%5B%5D=3&reviewer_ids%5B%5D=12&reviewer_ids%5B%5D=13",
        "lists as GitLab takes them in a form, even of one id"
    );
    assert_eq!(
        FakeGitlab::params(sent),
        json!({ "assignee_ids": [3], "reviewer_ids": [12, 13] })
    );
    assert!(matches!(
        gitlab.assign(&project(), 7, &["alice".into()], &[]).await,
        Err(PlatformError::Rejected(_))
    ));
}
