//! Positioned discussions, edited notes, and a position outside the diff.

use super::*;

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
