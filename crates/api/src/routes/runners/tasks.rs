//! A runner's work on its tasks: claiming queued ones, reporting their phase and
//! appending to their logs.

use super::{admin_api_key, api_key};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::diff::ChangeType;
use reviewd_domain::model::runner as domain;
use reviewd_runner_protocol as protocol;
use uuid::Uuid;

/// Claims up to `limit` queued tasks for the runner, each with what reviewing it takes.
///
/// Needs an admin's API key, the one the runner registered with. A task is claimed
/// once, never two of one merge request at a time, and only by a runner with the tags
/// it requires; an empty list means nothing is waiting.
#[utoipa::path(
    security(("bearer" = []), ("apiKey" = [])),
    params(protocol::PendingTasksQuery),
    responses((status = 200, body = Data<Vec<protocol::ClaimedTask>>))
)]
#[get("/tasks/pending")]
pub(super) async fn claim_pending_tasks(
    state: web::Data<AppState>,
    user: AuthUser,
    q: web::Query<protocol::PendingTasksQuery>,
) -> Result<HttpResponse, ApiError> {
    let key = admin_api_key(&user)?;
    let runner_id = q
        .runner_id
        .as_deref()
        .filter(|r| !r.is_empty())
        .ok_or_else(|| ApiError::bad_request(ErrorCode::InvalidQuery, "runnerId is required"))?;
    let limit = match q.limit.as_deref() {
        None => 1,
        Some(v) => v
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::InvalidQuery,
                    "limit must be a positive whole number",
                )
            })?,
    };
    let tasks = state.runners.claim(key, runner_id, limit).await?;
    state.preparer_wake.runner_online();
    Ok(envelope::ok(
        tasks.into_iter().map(claimed_task_dto).collect::<Vec<_>>(),
    ))
}

/// Reports the phase a claimed task is in; it also keeps the task's lease alive.
///
/// Needs the API key the holding runner registered with; a task no runner holds is
/// refused (409).
#[utoipa::path(
    security(("bearer" = []), ("apiKey" = [])),
    request_body = protocol::PhaseUpdate,
    responses((status = 200, body = Data<protocol::PhaseAck>))
)]
#[post("/tasks/{task_id}/status")]
pub(super) async fn report_task_phase(
    state: web::Data<AppState>,
    user: AuthUser,
    task_id: web::Path<Uuid>,
    body: web::Json<protocol::PhaseUpdate>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    let phase = domain::RunnerPhase::parse(&body.status).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "status must be preparing, cloning, reviewing or submitting",
        )
    })?;
    state.runners.set_phase(key, *task_id, phase).await?;
    Ok(envelope::ok(protocol::PhaseAck {
        acknowledged: true,
        status: phase_dto(phase),
    }))
}

/// Appends lines to a claimed task's log.
///
/// Needs the API key the holding runner registered with; a task no runner holds is
/// refused (409).
#[utoipa::path(
    security(("bearer" = []), ("apiKey" = [])),
    request_body = protocol::LogBatch,
    responses((status = 200, body = Data<protocol::LogsAck>))
)]
#[post("/tasks/{task_id}/logs")]
pub(super) async fn append_task_logs(
    state: web::Data<AppState>,
    user: AuthUser,
    task_id: web::Path<Uuid>,
    body: web::Json<protocol::LogBatch>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    let total = state.runners.append_logs(key, *task_id, &body.logs).await?;
    Ok(envelope::ok(protocol::LogsAck {
        acknowledged: true,
        appended: body.logs.len(),
        total,
    }))
}

fn phase_dto(p: domain::RunnerPhase) -> protocol::RunnerPhase {
    match p {
        domain::RunnerPhase::Preparing => protocol::RunnerPhase::Preparing,
        domain::RunnerPhase::Cloning => protocol::RunnerPhase::Cloning,
        domain::RunnerPhase::Reviewing => protocol::RunnerPhase::Reviewing,
        domain::RunnerPhase::Submitting => protocol::RunnerPhase::Submitting,
    }
}

fn change_type_dto(c: ChangeType) -> protocol::ChangeType {
    match c {
        ChangeType::New => protocol::ChangeType::New,
        ChangeType::Modified => protocol::ChangeType::Modified,
        ChangeType::Deleted => protocol::ChangeType::Deleted,
        ChangeType::Renamed => protocol::ChangeType::Renamed,
    }
}

fn claimed_task_dto(t: domain::ClaimedTask) -> protocol::ClaimedTask {
    protocol::ClaimedTask {
        id: t.id,
        review_id: t.review_id.into(),
        project_id: t.project_id.into(),
        project_path: t.project_path,
        mr_iid: t.mr_iid,
        mr_title: t.mr_title,
        mr_description: t.mr_description,
        repository_url: t.repository_url,
        clone_credentials: t.clone_credentials.map(|c| protocol::CloneCredentials {
            username: c.username,
            password: c.password,
        }),
        source_branch: t.source_branch,
        target_branch: t.target_branch,
        base_sha: t.base_sha,
        commit_sha: t.commit_sha,
        files: t
            .files
            .into_iter()
            .map(|f| protocol::AssignedFile {
                file_id: f.file_id.into(),
                file_path: f.file_path,
                old_path: f.old_path,
                change_type: change_type_dto(f.change_type),
            })
            .collect(),
        system_prompt: t.system_prompt,
        rules: t
            .rules
            .into_iter()
            .map(|r| protocol::RunnerRule {
                id: r.id,
                rule_name: r.rule_name,
                instructions: r.instructions,
                file_type_patterns: r.file_type_patterns,
                file_path_patterns: r.file_path_patterns,
                priority: r.priority,
            })
            .collect(),
        ai: protocol::RunnerAiConfig {
            provider: t.ai.provider,
            endpoint: t.ai.endpoint,
            api_key: t.ai.api_key,
            model: t.ai.model,
            max_tokens: t.ai.max_tokens,
            temperature: t.ai.temperature,
            max_diff_chars: t.ai.max_diff_chars,
            timeout_secs: t.ai.timeout_secs,
            max_concurrency: t.ai.max_concurrency,
        },
        attempt: t.attempt,
        timeout_ms: t.timeout_ms,
        context: Some(super::context::settings_dto(t.context)),
        tools: Some(super::context::tools_dto(t.tools)),
    }
}
