//! Reading an MR's diff across pages, and the fallback of older GitLab.

use super::*;

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
