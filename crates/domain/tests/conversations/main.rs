//! Conversations with reviewd in merge requests, on the in-memory adapters: a
//! reply in one of its threads is answered once, with the finding's code in the
//! prompt; a rebuttal the model accepts resolves the thread and is recorded; the
//! commands do what they say; outsiders are refused once and bots never answered;
//! what people write stays data in the prompt.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod asking;
mod commands;
mod guarded;
mod injections;
mod limits;
mod rebuttals;
mod threads;

use reviewd_domain::model::conversation::{CommentAuthor, Conversation};
use reviewd_domain::model::{CommentEvent, NoteRef, PlatformType, Project, WebhookEvent};
use reviewd_domain::ports::{AiRequest, HostingPlatform, ProjectRef};
use reviewd_domain::review::answer::SYSTEM;
use reviewd_domain::review::markers::comment_fingerprint;
use reviewd_domain::review::standing::Standing;
use reviewd_domain::services::{IntakeOutcome, RunOutcome, WebhookIntake};
use reviewd_testkit::fakes::hosting::{MrFixture, Posted, ProjectFixture};
use reviewd_testkit::world::{WORKER, World, added_lines, answer, is_summary, prompt_file};

/// The model's reply to an answer's prompt: `text`, the finding standing or not.
fn said(text: &str, stands: Option<bool>, lesson: Option<&str>) -> String {
    serde_json::json!({"answer": text, "finding_stands": stands, "lesson": lesson}).to_string()
}

fn is_answer(request: &AiRequest) -> bool {
    request.system == SYSTEM
}

/// A world whose model finds one error on line 2 of `src/a.rs` and answers
/// questions with `reply`; MR 1 reviewed, `ana` a developer.
async fn world(reply: &'static str) -> (World, Project, ProjectRef) {
    let world = World::new();
    world.ai.answer_with(move |r| {
        Ok(if is_answer(r) {
            reply.to_owned()
        } else {
            answer("Adds a.", &[(2, "error", "b is never used")])
        })
    });
    let mr = MrFixture::new(1)
        .head("h1")
        .description("Adds the numbers.")
        .file(
            "src/a.rs",
            &added_lines(&["let a = 1;", "let b = 2;", "let c = 3;"]),
        );
    let (project, on_platform) = world
        .project(
            ProjectFixture::new("g/app")
                .mr(mr)
                .mr(MrFixture::new(2).head("h2")),
        )
        .await;
    world.platform.grant("ana", Standing::Developer);
    (world, project, on_platform)
}

/// Reviews MR 1; the thread id of its line comment.
async fn reviewed(world: &World, project: &Project, on_platform: &ProjectRef) -> String {
    let task = world.enqueue(project, 1, "h1").await;
    assert!(matches!(
        world.run(&task).await,
        RunOutcome::Completed { .. }
    ));
    world
        .platform
        .list_comments(on_platform, 1)
        .await
        .unwrap()
        .into_iter()
        .find(|c| comment_fingerprint(&c.body).is_some())
        .and_then(|c| c.thread_id)
        .unwrap()
}

fn intake(world: &World) -> WebhookIntake {
    WebhookIntake::new(
        world.stores.projects.clone(),
        world.stores.settings.clone(),
        world.tasks.clone(),
        world.queue.clone(),
    )
    .with_feedback(world.feedback.clone())
    .with_conversations(world.talk.clone())
}

/// A comment event as the hostA receiver reads it.
fn comment(
    project: &Project,
    iid: i64,
    (note, thread): (&str, Option<&str>),
    author: &str,
    body: &str,
) -> WebhookEvent {
    WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id: project.platform_project_id.clone(),
        iid,
        body: body.into(),
        head_sha: None,
        in_thread: thread.is_some(),
        may_command: true,
        note: Some(NoteRef {
            id: note.into(),
            thread_id: thread.map(str::to_owned),
            author: CommentAuthor {
                id: None,
                username: author.into(),
                is_bot: author.ends_with("[bot]"),
            },
        }),
    })
}

/// Delivers the event and runs the task it queued, if any, to its end.
async fn deliver(world: &World, project: &Project, event: WebhookEvent) -> IntakeOutcome {
    let (outcome, _) = intake(world)
        .handle(&[project.platform_config_id], None, event)
        .await
        .unwrap();
    if let IntakeOutcome::Queued { task_id }
    | IntakeOutcome::Answering { task_id }
    | IntakeOutcome::AlreadyQueued { task_id } = outcome
    {
        world.engine.run(task_id, WORKER).await.unwrap();
    }
    outcome
}

/// What reviewd said on the MR: general comments and thread replies, in order.
fn said_on(world: &World, on_platform: &ProjectRef, iid: i64) -> Vec<String> {
    world
        .platform
        .posted(on_platform, iid)
        .into_iter()
        .filter_map(|p| match p {
            Posted::Comment { body, .. } | Posted::Reply { body, .. } => Some(body),
            _ => None,
        })
        .collect()
}

async fn conversations(world: &World, project: &Project, iid: i64) -> Vec<Conversation> {
    world.talk.for_mr(project.id, iid).await.unwrap()
}

/// The answer prompts the model was sent.
fn answer_prompts(world: &World) -> Vec<String> {
    world
        .ai
        .requests()
        .into_iter()
        .filter(is_answer)
        .map(|r| r.user)
        .collect()
}
