//! A broken file is noted once per head, and the project's settings apply.

use super::*;

#[tokio::test]
async fn a_broken_file_is_noted_once_per_head_and_the_project_settings_apply() {
    let gitlab = FakeGitlab::start("glpat-repo-broken").await;
    let project = gitlab
        .add_project(&ProjectFixture::new("group/broken").mr(mr(1, HEAD_A, BROKEN_FILE)))
        .await;
    let ai = fake_ai(review_answer).await;
    let app = app_with_ai(&ai, &[]).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    let project_id = sync_project(&app, &config).await;

    let task = wait_for(
        &app,
        &super::super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
    )
    .await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        reviewed_files(&prompts(&ai).await),
        vec!["docs/guide.md", "src/app.rs", "src/db/pool.rs"],
        "the project's *.lock applies, nothing of the file does"
    );
    let notes = notes_about_the_file(&gitlab.posted(&project, 1));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("`.reviewd.yml` was not applied"),
        "{}",
        notes[0]
    );
    assert!(
        notes[0].contains("ignored"),
        "the note names the bad key: {}",
        notes[0]
    );
    assert!(notes[0].contains(&problem_marker(HEAD_A)));

    // The same head again: the same push, and a person asking for a new round.
    let again = wait_for(
        &app,
        &super::super::send_webhook(&app, &push(&project.id, HEAD_A)).await,
    )
    .await;
    assert_eq!(again["status"], "completed", "{again}");
    let manual = json(
        app.root()
            .await
            .post(
                "/api/reviews/trigger-manual-review",
                json!({ "projectId": project_id, "mrIid": 1 }),
            )
            .await,
        StatusCode::ACCEPTED,
    )
    .await;
    let manual = wait_for(&app, manual["data"]["task"]["id"].as_str().unwrap()).await;
    assert_eq!(manual["status"], "completed", "{manual}");
    assert_eq!(
        notes_about_the_file(&gitlab.posted(&project, 1)).len(),
        1,
        "one note per head"
    );

    // A new head with the same broken file: a note for it.
    move_head(&gitlab, &project.id, HEAD_B, BROKEN_FILE).await;
    let moved = wait_for(
        &app,
        &super::super::send_webhook(&app, &push(&project.id, HEAD_B)).await,
    )
    .await;
    assert_eq!(moved["status"], "completed", "{moved}");
    let notes = notes_about_the_file(&gitlab.posted(&project, 1));
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[1].contains(&problem_marker(HEAD_B)));
}

/// MR 1 of the stateful fake, now at `head` with `config` there: the MR's answer
/// with the new SHAs and the file at the new commit, mounted above the fixture's.
async fn move_head(gitlab: &FakeGitlab, project_id: &str, head: &str, config: &str) {
    let base = format!("/api/v4/projects/{project_id}/merge_requests/1");
    let current: Value = reqwest::Client::new()
        .get(format!("{}{base}", gitlab.server.uri()))
        .header("PRIVATE-TOKEN", "glpat-repo-broken")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut moved = current.clone();
    moved["sha"] = json!(head);
    moved["diff_refs"]["head_sha"] = json!(head);
    Mock::given(method("GET"))
        .and(path(base))
        .respond_with(ResponseTemplate::new(200).set_body_json(moved))
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/api/v4/projects/{project_id}/repository/files/.reviewd.yml/raw"
        )))
        .and(query_param("ref", head))
        .respond_with(ResponseTemplate::new(200).set_body_string(config))
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
}
