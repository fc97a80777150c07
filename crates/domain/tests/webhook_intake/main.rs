//! Webhook intake and the task queue on the in-memory adapters: which events queue
//! a review, redeliveries processed once, and a queue outage never acknowledged as
//! queued.

mod queue_failures;
mod queueing;

use reviewd_domain::model::{
    CommentEvent, MergeRequestEvent, MrAction, PlatformType, Project, ProjectSettingsChanges,
    TaskStatus, WebhookEvent,
};
use reviewd_domain::ports::TaskQueue;
use reviewd_domain::services::{DeliveryRef, IntakeOutcome, WebhookIntake};
use reviewd_testkit::fakes::hosting::{MrFixture, ProjectFixture};
use reviewd_testkit::world::World;
use std::time::Duration;

fn intake(world: &World) -> WebhookIntake {
    WebhookIntake::new(
        world.stores.projects.clone(),
        world.stores.settings.clone(),
        world.tasks.clone(),
        world.queue.clone(),
    )
}

fn opened(project: &Project, iid: i64, head: &str) -> WebhookEvent {
    WebhookEvent::MergeRequest(MergeRequestEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid,
        action: MrAction::Opened,
        head_sha: Some(head.into()),
        author_id: Some("21".into()),
    })
}

async fn setup() -> (World, Project) {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(MrFixture::new(1)))
        .await;
    (world, project)
}
