//! A claimed task's result, converted from the protocol's shape to the domain's.

use super::api_key;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use reviewd_domain::model::diff::Suggestion;
use reviewd_domain::model::{TaskStatus, runner as domain};
use reviewd_domain::review::rating::Severity;
use reviewd_runner_protocol as protocol;
use uuid::Uuid;

/// Submits a claimed task's result; the review is concluded with it.
///
/// Needs the API key the holding runner registered with. Accepted once, from the
/// runner holding the task (anything else is 409); the body may be up to 16 MiB. A
/// `failed` result gives the task another attempt while it has some.
#[utoipa::path(
    security(("bearer" = []), ("apiKey" = [])),
    params(("task_id" = Uuid, Path, description = "The claimed task.")),
    request_body = protocol::RunnerResult,
    responses((status = 200, body = Data<protocol::ResultAck>))
)]
#[post("")]
pub(super) async fn submit_task_result(
    state: web::Data<AppState>,
    user: AuthUser,
    task_id: web::Path<Uuid>,
    body: web::Json<protocol::RunnerResult>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    let result = runner_result(body.into_inner());
    state.runners.submit_result(key, *task_id, &result).await?;
    let task = state.tasks.get(*task_id).await?;
    Ok(envelope::ok(protocol::ResultAck {
        acknowledged: true,
        review_id: task.review_id.map(Uuid::from),
        task_status: task_status_dto(task.status),
    }))
}

fn task_status_dto(s: TaskStatus) -> protocol::TaskStatus {
    match s {
        TaskStatus::Queued => protocol::TaskStatus::Queued,
        TaskStatus::Processing => protocol::TaskStatus::Processing,
        TaskStatus::Completed => protocol::TaskStatus::Completed,
        TaskStatus::Failed => protocol::TaskStatus::Failed,
        TaskStatus::Superseded => protocol::TaskStatus::Superseded,
        TaskStatus::Cancelled => protocol::TaskStatus::Cancelled,
    }
}

fn outcome(o: protocol::RunnerOutcome) -> domain::RunnerOutcome {
    match o {
        protocol::RunnerOutcome::Success => domain::RunnerOutcome::Success,
        protocol::RunnerOutcome::Failed => domain::RunnerOutcome::Failed,
    }
}

fn severity(s: protocol::Severity) -> Severity {
    match s {
        protocol::Severity::Info => Severity::Info,
        protocol::Severity::Warning => Severity::Warning,
        protocol::Severity::Error => Severity::Error,
    }
}

/// A runner's suggestion as the domain holds one; the engine checks it. A line that
/// is no line number becomes 0, which that check refuses.
fn suggestion(s: protocol::RunnerSuggestion) -> Suggestion {
    Suggestion {
        start_line: u32::try_from(s.start_line).unwrap_or(0),
        end_line: u32::try_from(s.end_line).unwrap_or(0),
        code: s.code,
    }
}

fn runner_result(r: protocol::RunnerResult) -> domain::RunnerResult {
    domain::RunnerResult {
        runner_id: r.runner_id,
        status: outcome(r.status),
        files: r
            .files
            .into_iter()
            .map(|f| domain::RunnerFileResult {
                file_path: f.file_path,
                status: outcome(f.status),
                comments: f
                    .comments
                    .into_iter()
                    .map(|c| domain::RunnerComment {
                        line: c.line,
                        severity: severity(c.severity),
                        message: c.message,
                        suggestion: c.suggestion.map(suggestion),
                    })
                    .collect(),
                summary: f.summary,
                error: f.error,
                context: f.context.map(super::context::report),
            })
            .collect(),
        total_comments: r.total_comments,
        rating: r.rating,
        metrics: domain::RunnerMetrics {
            duration_ms: r.metrics.duration_ms,
            container_prepare_ms: r.metrics.container_prepare_ms,
            clone_ms: r.metrics.clone_ms,
            review_ms: r.metrics.review_ms,
            submit_ms: r.metrics.submit_ms,
            tokens_used: r.metrics.tokens_used,
            prompt_tokens: r.metrics.prompt_tokens,
            completion_tokens: r.metrics.completion_tokens,
            cached_tokens: r.metrics.cached_tokens,
        },
        error: r.error,
        logs: r.logs,
        summary: r.summary.map(super::context::summary),
        context: r.context.map(super::context::stats),
    }
}
