//! The merge gate on the in-memory platform: running then the policy's verdict,
//! a standing error failing it until its thread is settled, a grade bar, a
//! project that turns it off, `pending` for a queued task (and what a worker came
//! to, when it was faster), and a failed review never left green.

use super::*;
use reviewd_domain::model::gate::GateState::{self, Errored, Failed, Passed, Pending, Running};
use reviewd_domain::model::grade::Rating;
use reviewd_domain::review::markers::comment_fingerprint;

/// A world whose model finds `findings` (line, severity, message) in `src/lib.rs`
/// and nothing elsewhere.
async fn world(
    findings: &'static [(u32, &'static str, &'static str)],
) -> (World, reviewd_domain::model::Project) {
    let world = World::new();
    world.ai.answer_with(move |req| {
        Ok(if is_summary(req) {
            summary_answer(req, "Adds values.")
        } else if prompt_file(req) == "src/lib.rs" {
            answer("Adds values.", findings)
        } else {
            answer("Fine.", &[])
        })
    });
    let (project, _) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(mr_with_files(1, "h1", &["src/lib.rs"]))
                .mr(mr_with_files(2, "h1", &["src/lib.rs"])),
        )
        .await;
    (world, project)
}

async fn reviewed(world: &World, project: &reviewd_domain::model::Project, iid: i64, head: &str) {
    let task = world.enqueue(project, iid, head).await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
}

fn states(world: &World, sha: &str) -> Vec<GateState> {
    world.platform.gates(sha)
}

#[tokio::test]
async fn an_open_error_fails_the_gate_until_its_thread_is_settled() {
    let (world, project) = world(&[(2, "error", "b is never used")]).await;
    reviewed(&world, &project, 1, "h1").await;
    assert_eq!(states(&world, "h1"), [Running, Failed]);
    let gate = world.platform.last_gate("h1").unwrap();
    assert!(
        gate.description.starts_with("1 error is open"),
        "{}",
        gate.description
    );
    assert!(gate.target_url.is_none(), "no APP_URL in this world");

    // A 👎 (the MR's author, say) does not settle it: the next push still fails.
    let fp = world
        .platform
        .inline_comments()
        .iter()
        .find_map(|c| comment_fingerprint(&c.body).map(str::to_owned))
        .unwrap();
    assert!(world.platform.react(&fp, "thumbsdown", "author"));
    world.feedback.collect(project.id, 1).await.unwrap();
    let push = |head: &str| {
        world.platform.put_merge_request(
            &project.platform_ref(),
            mr_with_files(1, head, &["src/lib.rs", "src/other.rs"]),
        );
    };
    push("h2");
    reviewed(&world, &project, 1, "h2").await;
    assert_eq!(states(&world, "h2"), [Running, Failed]);

    // The thread resolved and read back: nothing stands on the next push.
    assert!(world.platform.resolve(&fp, Some("ana")));
    world.feedback.collect(project.id, 1).await.unwrap();
    push("h3");
    reviewed(&world, &project, 1, "h3").await;
    assert_eq!(
        states(&world, "h3"),
        [Running, Passed],
        "the same error is not posted twice, and it was settled"
    );
}

#[tokio::test]
async fn a_round_that_left_a_file_unreviewed_does_not_pass() {
    let world = World::new();
    world.ai.answer_with(|req| {
        if is_summary(req) {
            return Ok(summary_answer(req, "Adds values."));
        }
        match prompt_file(req).as_str() {
            "src/lib.rs" => Err(AiError::Rejected("content policy".into())),
            _ => Ok(answer("Fine.", &[])),
        }
    });
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(mr_with_files(
            1,
            "h1",
            &["src/lib.rs", "src/other.rs"],
        )))
        .await;
    reviewed(&world, &project, 1, "h1").await;
    let gate = world.platform.last_gate("h1").unwrap();
    assert_eq!(gate.state, Errored);
    assert_eq!(gate.description, "1 of 2 file(s) could not be reviewed");
}

#[tokio::test]
async fn warnings_pass_by_default_and_a_grade_bar_fails_them() {
    let findings: &[(u32, &str, &str)] = &[
        (1, "warning", "a could be a constant"),
        (2, "warning", "b could be a constant"),
        (3, "warning", "c could be a constant"),
        (3, "warning", "c is shadowed later"),
    ];
    let (world, project) = world(findings).await;
    reviewed(&world, &project, 1, "h1").await;
    assert_eq!(states(&world, "h1"), [Running, Passed]);

    world
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                gate_min_rating: Some(Some(Rating::A)),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    reviewed(&world, &project, 2, "h1").await;
    let gate = world.platform.last_gate("h1").unwrap();
    assert_eq!(gate.state, Failed);
    assert!(
        gate.description.contains("is below A"),
        "{}",
        gate.description
    );
}

#[tokio::test]
async fn a_project_that_turns_the_gate_off_gets_no_status() {
    let (world, project) = world(&[(2, "error", "b is never used")]).await;
    world
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                gate_enabled: Some(false),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    reviewed(&world, &project, 1, "h1").await;
    assert!(states(&world, "h1").is_empty());
    let task = world.enqueue(&project, 2, "h1").await;
    world.engine.gate_queued(task.id).await;
    assert!(states(&world, "h1").is_empty());
}

#[tokio::test]
async fn a_queued_task_is_pending_and_a_late_pending_never_stands_over_the_verdict() {
    let (world, project) = world(&[(2, "error", "b is never used")]).await;
    let task = world.enqueue(&project, 1, "h1").await;
    world.engine.gate_queued(task.id).await;
    assert_eq!(states(&world, "h1"), [Pending]);
    world.run(&task).await;
    assert_eq!(states(&world, "h1"), [Pending, Running, Failed]);
    // The webhook's follow-up arriving after the worker finished: the verdict is
    // posted again after nothing (the task is no longer queued).
    world.engine.gate_queued(task.id).await;
    assert_eq!(world.platform.last_gate("h1").unwrap().state, Failed);
}

#[tokio::test]
async fn a_failed_review_is_errored_and_one_queued_again_is_pending() {
    let (world, project) = world(&[]).await;
    world
        .ai
        .set_outage(Some(AiError::Unavailable("503".into())));
    let task = world.enqueue(&project, 1, "h1").await;
    assert!(matches!(world.run(&task).await, RunOutcome::Retry { .. }));
    assert_eq!(states(&world, "h1"), [Running, Pending]);
    let again = world.task(&task).await;
    assert!(matches!(world.run(&again).await, RunOutcome::Retry { .. }));
    let last = world.task(&task).await;
    assert!(matches!(world.run(&last).await, RunOutcome::Failed { .. }));
    let gate = world.platform.last_gate("h1").unwrap();
    assert_eq!(gate.state, Errored, "never green: {gate:?}");
    assert_eq!(
        gate.description, "the review did not finish: see the review's page",
        "the reason (a provider's error) stays off the public status"
    );
}
