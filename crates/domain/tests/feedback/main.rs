//! Feedback on reviewd's comments, on the in-memory adapters: what readers do in
//! a comment's thread becomes records (and stops being one when taken back),
//! webhooks that announce feedback have the threads read, a pushed fix
//! marks the comment implemented, and a comment rejected twice on a project is
//! not posted there again unless the project says otherwise.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod fixes;
mod rejections;
mod threads;
mod webhooks;

use reviewd_domain::model::ReviewId;
use reviewd_domain::model::{
    CommentEvent, FeedbackEvent, FeedbackEventKind, PlatformType, Project, ProjectSettingsChanges,
    WebhookEvent,
};
use reviewd_domain::ports::{FeedbackScope, PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_fingerprint;
use reviewd_domain::services::{FollowUp, IntakeOutcome, RunOutcome, WebhookIntake};
use reviewd_testkit::fakes::hosting::{MrFixture, Op, Posted, ProjectFixture, modified};
use reviewd_testkit::world::{World, added_lines, answer};
use uuid::Uuid;

fn mr(iid: i64, head: &str) -> MrFixture {
    MrFixture::new(iid).head(head).file(
        "src/a.rs",
        &added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]),
    )
}

/// A world whose model finds one error on line 2 of `src/a.rs`, with a project
/// holding merge requests 1 to 3.
async fn world() -> (World, Project, ProjectRef) {
    let world = World::new();
    world
        .ai
        .answer_with(|_| Ok(answer("Adds a.", &[(2, "error", "b is never used")])));
    let (project, on_platform) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(mr(1, "h1"))
                .mr(mr(2, "h1"))
                .mr(mr(3, "h1")),
        )
        .await;
    (world, project, on_platform)
}

/// Reviews the MR at `head`; the review's id and the fingerprint of the line
/// comment it posted.
async fn review(world: &World, project: &Project, iid: i64, head: &str) -> (ReviewId, String) {
    let task = world.enqueue(project, iid, head).await;
    let RunOutcome::Completed { review_id } = world.run(&task).await else {
        panic!("the round did not complete");
    };
    let fingerprint = world
        .platform
        .inline_comments()
        .iter()
        .rev()
        .find_map(|c| comment_fingerprint(&c.body).map(str::to_owned))
        .unwrap();
    (review_id, fingerprint)
}

/// The review's records as (status, user), sorted.
async fn records(world: &World, review_id: ReviewId) -> Vec<(String, Option<String>)> {
    let mut all: Vec<_> = world
        .stores
        .review_queries
        .feedbacks(review_id)
        .await
        .unwrap()
        .into_iter()
        .map(|f| (f.tracking_status.to_string(), f.username))
        .collect();
    all.sort();
    all
}

fn pair(status: &str, user: Option<&str>) -> (String, Option<String>) {
    (status.to_owned(), user.map(str::to_owned))
}

fn intake(world: &World) -> WebhookIntake {
    WebhookIntake::new(
        world.stores.projects.clone(),
        world.stores.settings.clone(),
        world.tasks.clone(),
        world.queue.clone(),
    )
    .with_feedback(world.feedback.clone())
}
