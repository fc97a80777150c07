//! Rounds after the first: only what changed is reviewed and no comment is posted twice; ignore
//! globs and rules.

use super::*;

#[tokio::test]
async fn a_new_head_reviews_only_what_changed_and_never_repeats_a_comment() {
    let world = World::new();
    world
        .ai
        .answer_with(|_| Ok(answer("Same.", &[(2, "warning", "name b better")])));
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(3, "h1", &["a.rs", "b.rs"])))
        .await;
    let first = world.enqueue(&project, 3, "h1").await;
    assert!(matches!(
        world.run(&first).await,
        RunOutcome::Completed { .. }
    ));
    let after_first = world.platform.inline_comments().len();
    assert_eq!(after_first, 2);

    // A push changes b.rs only; the compare between the heads says so.
    world
        .platform
        .put_merge_request(&on_platform, mr_with_files(3, "h2", &["a.rs", "b.rs"]));
    let changed = reviewd_testkit::fakes::hosting::modified(
        "b.rs",
        &added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]),
    );
    world
        .platform
        .add_compare(&on_platform, "h1", "h2", vec![changed]);
    let requests_before = world.ai.requests().len();
    let second = world.enqueue(&project, 3, "h2").await;
    let RunOutcome::Completed { review_id } = world.run(&second).await else {
        panic!("the second round did not complete");
    };

    let reviewed: Vec<_> = world.ai.requests()[requests_before..]
        .iter()
        .filter(|r| !is_summary(r))
        .map(prompt_file)
        .collect();
    assert_eq!(
        reviewed,
        vec!["b.rs".to_owned()],
        "only the file changed since h1"
    );
    assert_eq!(
        world.platform.inline_comments().len(),
        after_first,
        "the same finding on the same line is not posted again"
    );
    let rounds = world.stores.review_queries.rounds(review_id).await.unwrap();
    assert_eq!(rounds.len(), 2);
    assert!(rounds.iter().any(|r| r.is_differential));
}

#[tokio::test]
async fn ignored_files_are_not_sent_and_rules_reach_only_their_paths() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(
            4,
            "h1",
            &["src/api/users.rs", "src/ui/page.tsx", "vendor/lib.js"],
        )))
        .await;
    world
        .stores
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                file_ignore_patterns: Some(Some(vec!["vendor/**".into()])),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    let rule = world
        .stores
        .catalog
        .create_rule(RuleChanges {
            rule_name: Some("Check authorisation".into()),
            instructions: Some("Every handler checks the caller's role.".into()),
            enabled: Some(true),
            file_path_patterns: Some(vec!["src/api/**".into()]),
            file_type_patterns: Some(vec![]),
            priority: Some(5),
            ..RuleChanges::default()
        })
        .await
        .unwrap();

    let task = world.enqueue(&project, 4, "h1").await;
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("not completed");
    };

    let requests: Vec<_> = world
        .ai
        .requests()
        .into_iter()
        .filter(|r| !is_summary(r))
        .collect();
    let mut files: Vec<_> = requests.iter().map(prompt_file).collect();
    files.sort();
    assert_eq!(files, vec!["src/api/users.rs", "src/ui/page.tsx"]);
    for request in &requests {
        let has_rule = request
            .user
            .contains("Every handler checks the caller's role.");
        assert_eq!(
            has_rule,
            prompt_file(request) == "src/api/users.rs",
            "{}",
            prompt_file(request)
        );
    }
    let detail = world.stores.review_queries.detail(review_id).await.unwrap();
    assert_eq!(detail.applied_rule_ids, vec![rule.id.to_string()]);
}
