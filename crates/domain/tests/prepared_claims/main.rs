//! Rounds prepared ahead of runners' claims, on the in-memory adapters: a prepared
//! round is handed out without a platform call, an idle claim still prepares
//! inline, a superseded task's prepared round is ended, and the preparer racing
//! claims never gives one task to two runners.

mod handing_out;
mod races;
mod supersedes;

use reviewd_domain::model::TaskStatus;
use reviewd_domain::model::runner::{
    RunnerFileResult, RunnerMetrics, RunnerOutcome, RunnerRegistration, RunnerResult,
};
use reviewd_testkit::fakes::hosting::{MrFixture, Op, ProjectFixture};
use reviewd_testkit::world::{World, added_lines};
use uuid::Uuid;

fn registration(id: &str, key: Uuid, capacity: i32) -> RunnerRegistration {
    RunnerRegistration {
        id: id.into(),
        name: format!("runner {id}"),
        version: "1.0.0".into(),
        max_concurrent_jobs: capacity,
        tags: vec![],
        api_key_id: Some(key),
    }
}

fn success(runner_id: &str) -> RunnerResult {
    RunnerResult {
        runner_id: runner_id.into(),
        status: RunnerOutcome::Success,
        files: vec![RunnerFileResult {
            file_path: "a.rs".into(),
            status: RunnerOutcome::Success,
            comments: vec![],
            summary: Some("Fine.".into()),
            error: None,
            context: None,
        }],
        total_comments: 0,
        rating: Some("A".into()),
        metrics: RunnerMetrics {
            duration_ms: 10,
            container_prepare_ms: 1,
            clone_ms: 1,
            review_ms: 7,
            submit_ms: 1,
            tokens_used: None,
            prompt_tokens: None,
            completion_tokens: None,
            cached_tokens: None,
        },
        error: None,
        logs: None,
        summary: None,
        context: None,
    }
}

fn mr(iid: i64, head: &str) -> MrFixture {
    MrFixture::new(iid)
        .head(head)
        .title(&format!("MR {iid}"))
        .file("a.rs", &added_lines(&["x"]))
}

async fn world_with_tasks(n: i64) -> (World, Vec<reviewd_domain::model::ReviewTask>) {
    let world = World::new();
    let fixture = (1..=n).fold(ProjectFixture::new("g/app"), |p, iid| {
        p.mr(mr(iid, &format!("h{iid}")))
    });
    let (project, _) = world.project(fixture).await;
    let mut tasks = Vec::new();
    for iid in 1..=n {
        tasks.push(world.enqueue(&project, iid, &format!("h{iid}")).await);
    }
    (world, tasks)
}
