//! The review engine on the in-memory adapters: what a round posts and records,
//! across rounds, with rules, ignore globs, failures and supersedes.

use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::model::{ProjectSettingsChanges, TaskStatus};
use reviewd_domain::ports::{AiError, AttemptStart, RuleChanges};
use reviewd_domain::services::{EngineSettings, RunOutcome};
use reviewd_testkit::fakes::ai::ScriptedAi;
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::world::{World, added_lines, answer, is_summary, prompt_file, summary_answer};

fn mr_with_files(iid: i64, head: &str, files: &[&str]) -> MrFixture {
    files
        .iter()
        .fold(MrFixture::new(iid).head(head), |mr, path| {
            mr.file(
                path,
                &added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]),
            )
        })
}

#[tokio::test]
async fn a_round_posts_its_comments_and_summary_and_completes_the_review() {
    let world = World::new();
    world.ai.answer_with(|req| {
        if is_summary(req) {
            return Ok(summary_answer(req, "Adds the value a to the library."));
        }
        Ok(match prompt_file(req).as_str() {
            "src/lib.rs" => answer("Adds a.", &[(2, "error", "a is never used")]),
            _ => answer("Fine.", &[]),
        })
    });
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(
            7,
            "h1",
            &["src/lib.rs", "README.md"],
        )))
        .await;

    let task = world.enqueue(&project, 7, "h1").await;
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the round did not complete");
    };

    let posted = world.platform.posted(&on_platform, 7);
    let inline: Vec<_> = posted
        .iter()
        .filter_map(|p| match p {
            Posted::Inline { comment, .. } => Some(comment.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(inline.len(), 1, "one line comment: {posted:?}");
    assert_eq!(
        (inline[0].file_path.as_str(), inline[0].line),
        ("src/lib.rs", 2)
    );
    assert!(inline[0].body.contains("a is never used"));
    let note = posted
        .iter()
        .find_map(|p| match p {
            Posted::Comment { body, .. } => Some(body.clone()),
            _ => None,
        })
        .expect("a summary note");
    assert!(
        note.contains("Adds the value a to the library.")
            && note.contains("| `src/lib.rs` | changed |")
            && note.contains("| `README.md` | changed |"),
        "the note is written for the MR, with a table of its files: {note}"
    );
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(
        (review.status, review.comment_count),
        (ReviewStatus::Completed, 1)
    );
    assert_eq!(world.task(&task).await.status, TaskStatus::Completed);
    assert_eq!(
        world.observer.finished(),
        vec![(review_id, ReviewStatus::Completed)]
    );
    let calls = world
        .stores
        .review_queries
        .ai_logs(review_id, None, None, 50, 0)
        .await
        .unwrap();
    let per_file = calls
        .0
        .iter()
        .filter(|c| c.file_path.as_deref() != Some("(summary)"))
        .count();
    assert_eq!(
        (per_file, calls.1),
        (2, 3),
        "one AI call per file is logged, and the summary's"
    );
}

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

#[tokio::test]
async fn a_comment_on_a_line_outside_the_diff_is_not_posted_there() {
    let world = World::new();
    // Line 40 is not in the diff of the file (lines 1-4).
    world.ai.answer_with(|_| {
        Ok(answer(
            "x",
            &[(40, "error", "far away"), (3, "info", "close")],
        ))
    });
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(5, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 5, "h1").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let lines: Vec<_> = world
        .platform
        .inline_comments()
        .iter()
        .map(|c| c.line)
        .collect();
    assert!(
        !lines.contains(&40),
        "nothing posted on a line the diff lacks: {lines:?}"
    );
    assert!(lines.contains(&3));
}

#[tokio::test]
async fn an_ai_outage_is_retried_then_fails_the_review_after_its_attempts() {
    let world = World::new();
    world
        .ai
        .set_outage(Some(AiError::Unavailable("503".into())));
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(6, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 6, "h1").await;

    let mut outcomes = Vec::new();
    for _ in 0..task.max_attempts {
        outcomes.push(world.run(&task).await);
    }
    assert!(
        matches!(outcomes[0], RunOutcome::Retry { .. }),
        "a provider outage is transient: {outcomes:?}"
    );
    assert!(
        matches!(outcomes.last(), Some(RunOutcome::Failed { .. })),
        "the last attempt gives up: {outcomes:?}"
    );
    assert_eq!(world.task(&task).await.status, TaskStatus::Failed);
    assert!(
        matches!(world.run(&task).await, RunOutcome::Skipped),
        "a failed task is not run again"
    );
    let finished = world.observer.finished();
    assert_eq!(
        finished.len(),
        1,
        "observers hear of the failure once: {finished:?}"
    );
    assert_eq!(finished[0].1, ReviewStatus::Failed);
}

#[tokio::test]
async fn a_newer_head_supersedes_a_queued_task_which_is_then_skipped() {
    let world = World::new();
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(8, "h1", &["a.rs"])))
        .await;
    let old = world.enqueue(&project, 8, "h1").await;
    world
        .platform
        .put_merge_request(&on_platform, mr_with_files(8, "h2", &["a.rs"]));
    let new = world.enqueue(&project, 8, "h2").await;

    assert_eq!(world.task(&old).await.status, TaskStatus::Superseded);
    assert!(matches!(world.run(&old).await, RunOutcome::Skipped));
    assert!(
        world.ai.requests().is_empty(),
        "a superseded task costs no AI call"
    );
    assert!(matches!(
        world.run(&new).await,
        RunOutcome::Completed { .. }
    ));
}

#[tokio::test]
async fn another_worker_waits_while_the_heartbeat_is_live_then_takes_over() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(9, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 9, "h1").await;
    let lease = EngineSettings::default().attempt_lease;
    // Another worker began the attempt and beats while it works.
    let other = world.stores.tasks.clone();
    other
        .begin_attempt(task.id, "worker-b", lease)
        .await
        .unwrap();
    for _ in 0..4 {
        world.clock.advance(lease * 3 / 4);
        assert!(other.renew_attempt(task.id, "worker-b").await.unwrap());
        assert!(
            matches!(world.run(&task).await, RunOutcome::Busy),
            "a live attempt is never robbed, however long it runs"
        );
    }
    // It went silent: one lease after its last beat the task is taken over.
    world
        .clock
        .advance(lease + std::time::Duration::from_secs(1));
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert!(
        !other.renew_attempt(task.id, "worker-b").await.unwrap(),
        "the silent worker learns the task is no longer its"
    );
}

#[tokio::test]
async fn a_restarted_worker_resumes_its_own_attempt_at_once() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(11, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 11, "h1").await;
    // This worker's previous life began the attempt and died a moment later.
    let lease = EngineSettings::default().attempt_lease;
    world
        .stores
        .tasks
        .begin_attempt(task.id, reviewd_testkit::world::WORKER, lease)
        .await
        .unwrap();
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let stored = world.task(&task).await;
    assert_eq!(stored.attempts, 2, "the resumed attempt counts");
    assert_eq!(
        world.platform.posts().len(),
        1,
        "one summary note, posted once"
    );
}

#[tokio::test]
async fn a_worker_taken_over_while_the_model_worked_posts_nothing_and_records_nothing() {
    let lease = EngineSettings::default().attempt_lease;
    // The model takes longer than the lease, and this worker beats no heartbeat
    // meanwhile (it is frozen): another worker takes the task over.
    let world = World::with(
        ScriptedAi::default().with_latency(lease + std::time::Duration::from_secs(1)),
        EngineSettings::default(),
    );
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(12, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 12, "h1").await;
    let frozen = tokio::spawn({
        let engine = world.engine.clone();
        async move { engine.run(task.id, "worker-frozen").await.unwrap() }
    });
    while world.clock.slept().is_empty() {
        tokio::task::yield_now().await;
    }
    let taken = world
        .stores
        .tasks
        .begin_attempt(task.id, reviewd_testkit::world::WORKER, lease)
        .await
        .unwrap();
    assert!(matches!(taken, AttemptStart::Started(_)), "{taken:?}");

    assert_eq!(frozen.await.unwrap(), RunOutcome::TakenOver);
    assert!(
        world.platform.posts().is_empty(),
        "nothing posted by the frozen worker"
    );
    let stored = world.task(&task).await;
    assert_eq!(
        stored.status,
        TaskStatus::Processing,
        "still the other worker's"
    );
    assert_eq!(
        stored.worker_id.as_deref(),
        Some(reviewd_testkit::world::WORKER)
    );
}

#[tokio::test]
async fn a_timed_out_review_is_closed_as_failed_with_the_reason() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(10, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 10, "h1").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    let again = world.enqueue(&project, 10, "h2").await;
    let lease = EngineSettings::default().attempt_lease;
    world
        .stores
        .tasks
        .begin_attempt(again.id, reviewd_testkit::world::WORKER, lease)
        .await
        .unwrap();
    assert!(
        world
            .engine
            .time_out(
                again.id,
                reviewd_testkit::world::WORKER,
                std::time::Duration::from_secs(600)
            )
            .await
            .unwrap()
    );
    let stored = world.task(&again).await;
    assert_eq!(stored.status, TaskStatus::Failed);
    assert!(stored.error_message.unwrap_or_default().contains("600 s"));
}

#[tokio::test]
async fn a_frozen_worker_timing_out_after_a_takeover_fails_nothing() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(13, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 13, "h1").await;
    let lease = EngineSettings::default().attempt_lease;
    // Frozen (SIGSTOP) right after it began; another worker takes over and finishes.
    world
        .stores
        .tasks
        .begin_attempt(task.id, "worker-frozen", lease)
        .await
        .unwrap();
    world
        .clock
        .advance(lease + std::time::Duration::from_secs(1));
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the other worker completes the review");
    };
    // Resumed, the frozen worker's own timeout fires.
    let failed = world
        .engine
        .time_out(
            task.id,
            "worker-frozen",
            std::time::Duration::from_secs(600),
        )
        .await
        .unwrap();
    assert!(!failed, "not its attempt any more");
    assert_eq!(world.task(&task).await.status, TaskStatus::Completed);
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(
        review.status,
        ReviewStatus::Completed,
        "the review stays completed"
    );
}

#[tokio::test]
async fn a_round_retried_after_posting_was_cut_off_posts_nothing_twice() {
    let world = World::new();
    world.ai.answer_with(|_| {
        Ok(answer(
            "Three remarks.",
            &[
                (2, "warning", "first remark"),
                (3, "error", "second remark"),
                (4, "info", "third remark"),
            ],
        ))
    });
    let (project, on_platform) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(14, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 14, "h1").await;
    // The platform goes down after two of the three discussions are posted.
    world.platform.cut_next_inline(
        2,
        reviewd_domain::ports::PlatformError::Unavailable("502 from the load balancer".into()),
    );
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    assert_eq!(world.platform.inline_comments().len(), 2);

    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the retried round completes");
    };
    let inline = world.platform.inline_comments();
    let mut remarks: Vec<&str> = inline
        .iter()
        .map(|c| c.body.split("**: ").nth(1).unwrap().lines().next().unwrap())
        .collect();
    remarks.sort_unstable();
    assert_eq!(
        remarks,
        ["first remark", "second remark", "third remark"],
        "each remark posted once: {inline:?}"
    );
    let summaries = world
        .platform
        .posted(&on_platform, 14)
        .into_iter()
        .filter(|p| matches!(p, Posted::Comment { .. }))
        .count();
    assert_eq!(summaries, 1, "one summary note");
    let review = world.stores.reviews.get(review_id).await.unwrap();
    assert_eq!(review.comment_count, 3);
}

#[tokio::test]
async fn a_retry_that_cannot_read_the_mr_comments_waits_rather_than_post_twice() {
    use reviewd_domain::ports::PlatformError;
    use reviewd_testkit::fakes::hosting::Op;
    let world = World::new();
    world.ai.answer_with(|_| {
        Ok(answer(
            "Two remarks.",
            &[
                (2, "warning", "first remark"),
                (3, "error", "second remark"),
            ],
        ))
    });
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(16, "h1", &["a.rs"])))
        .await;
    let task = world.enqueue(&project, 16, "h1").await;
    world
        .platform
        .cut_next_inline(1, PlatformError::Unavailable("502".into()));
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    // The platform cannot list what is already there: nothing is posted blind.
    world.platform.fail_next(
        Op::ListComments,
        PlatformError::Unavailable("503 on the notes".into()),
    );
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    assert_eq!(world.platform.inline_comments().len(), 1);

    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    assert_eq!(
        world.platform.inline_comments().len(),
        2,
        "each remark once"
    );
}
