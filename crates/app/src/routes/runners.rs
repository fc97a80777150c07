//! `/api/runners`: the runner protocol. Its bodies are `reviewd-runner-protocol`'s
//! types, the same the runner agent sends and reads; this module converts them from
//! and to the domain's.
//!
//! Register, heartbeat, claim, phase, logs and result need an API key
//! (`Authorization: Bearer` or `x-api-key`; a session is refused with 403), register
//! and claim an admin's (claimed tasks carry the platform's token and the AI key), and
//! a runner's calls must come with the key it registered with. List and get accept a
//! session too; delete accepts any authenticated caller. List, get and register answer
//! the record or array directly as `data`.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, RESULT_LIMIT_BYTES, json_config_limited};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::diff::ChangeType;
use reviewd_domain::model::runner as domain;
use reviewd_domain::model::{AuthMethod, TaskStatus};
use reviewd_domain::review::rating::Severity;
use reviewd_domain::services::FieldError;
use reviewd_runner_protocol::{self as protocol, headers};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/runners")
            .service(list_runners)
            .service(register_runner)
            .service(claim_pending_tasks)
            .service(report_task_phase)
            .service(append_task_logs)
            .service(
                scope("/tasks/{task_id}/result")
                    .app_data(json_config_limited(RESULT_LIMIT_BYTES))
                    .service(submit_task_result),
            )
            .service(get_runner)
            .service(deregister_runner)
            .service(runner_heartbeat),
    );
}

/// The API key the caller authenticated with; sessions are refused (403).
fn api_key(user: &AuthUser) -> Result<Uuid, ApiError> {
    match user.0.method {
        AuthMethod::ApiKey { key_id } => Ok(key_id),
        AuthMethod::Session { .. } => Err(ApiError::forbidden(
            "runner endpoints need an API key (Authorization: Bearer or x-api-key)",
        )),
    }
}

/// Registering and claiming hand out the platform token and the AI key with each
/// task: only an admin's API key may do it (the contract shows raw tokens to admins
/// only).
fn admin_api_key(user: &AuthUser) -> Result<Uuid, ApiError> {
    let key = api_key(user)?;
    if !user.0.is_admin() {
        return Err(ApiError::forbidden(
            "runners must use an admin's API key: claimed tasks carry the platform's access token",
        ));
    }
    Ok(key)
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Result<Option<&'a str>, ApiError> {
    match req.headers().get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim()).filter(|s| !s.is_empty()))
            .map_err(|_| {
                ApiError::bad_request(ErrorCode::InvalidHeader, format!("{name} is not text"))
            }),
    }
}

/// The registered runners.
#[utoipa::path(responses((status = 200, body = Data<Vec<protocol::Runner>>)))]
#[get("")]
async fn list_runners(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let runners = state.runners.list().await?;
    Ok(envelope::ok(
        runners.into_iter().map(runner_dto).collect::<Vec<_>>(),
    ))
}

/// Registers the calling runner, described by its `x-runner-*` headers.
///
/// Needs an admin's API key. Registering again updates the record and gives back to
/// the queue whatever the id still held; an id registered with another key is refused
/// (409) until that runner is offline. Header values are trimmed, and an empty one
/// counts as absent. Answers the runner's record.
#[utoipa::path(
    security(("bearer" = []), ("apiKey" = [])),
    params(
        ("x-runner-id" = String, Header,
            description = "The runner's id, 1 to 200 characters once trimmed.",
            pattern = r"^[\t ]*[!-~]([\t -~]{0,198}[!-~])?[\t ]*$"),
        ("x-runner-name" = Option<String>, Header,
            description = "A display name; the id when absent.",
            pattern = r"^[\t -~]*$"),
        ("x-runner-version" = Option<String>, Header,
            description = "The agent's version; `unknown` when absent.",
            pattern = r"^[\t -~]*$"),
        ("x-runner-max-concurrency" = Option<i32>, Header, nullable = false,
            description = "How many tasks the runner runs at once; 5 when absent.",
            minimum = 1, maximum = 1000),
        ("x-runner-tags" = Option<String>, Header,
            description = "Comma-separated tags; a task requiring tags goes only to a \
                runner that has them.",
            pattern = r"^[\t -~]*$"),
    ),
    responses((status = 200, body = Data<protocol::Runner>))
)]
#[post("/register")]
async fn register_runner(
    state: web::Data<AppState>,
    user: AuthUser,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key_id = admin_api_key(&user)?;
    let id = header(&req, headers::RUNNER_ID)?.ok_or_else(|| {
        ApiError::bad_request(ErrorCode::MissingHeader, "x-runner-id is required")
    })?;
    if id.len() > protocol::MAX_RUNNER_ID_LEN {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidHeader,
            "x-runner-id is longer than 200 characters",
        ));
    }
    let max = match header(&req, headers::RUNNER_MAX_CONCURRENCY)? {
        None => protocol::DEFAULT_CONCURRENCY,
        Some(v) => v
            .parse::<i32>()
            .ok()
            .filter(|n| (protocol::MIN_CONCURRENCY..=protocol::MAX_CONCURRENCY).contains(n))
            .ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::InvalidHeader,
                    "x-runner-max-concurrency must be a whole number from 1 to 1000",
                )
            })?,
    };
    let mut tags: Vec<String> = header(&req, headers::RUNNER_TAGS)?
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    tags.sort();
    tags.dedup();
    let registration = domain::RunnerRegistration {
        id: id.to_owned(),
        name: header(&req, headers::RUNNER_NAME)?.unwrap_or(id).to_owned(),
        version: header(&req, headers::RUNNER_VERSION)?
            .unwrap_or("unknown")
            .to_owned(),
        max_concurrent_jobs: max,
        tags,
        api_key_id: Some(key_id),
    };
    let runner = state.runners.register(&registration).await?;
    Ok(envelope::ok(runner_dto(runner)))
}

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
async fn claim_pending_tasks(
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
async fn report_task_phase(
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
async fn append_task_logs(
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
async fn submit_task_result(
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
        review_id: task.review_id,
        task_status: task_status_dto(task.status),
    }))
}

/// One runner.
#[utoipa::path(responses((status = 200, body = Data<protocol::Runner>)))]
#[get("/{runner_id}")]
async fn get_runner(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(runner_dto(state.runners.get(&id).await?)))
}

/// Marks a runner offline; the tasks it held go back to the queue at once.
#[utoipa::path(responses((status = 200, body = Data<protocol::RunnerDeregistered>)))]
#[delete("/{runner_id}")]
async fn deregister_runner(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let runner = state.runners.deregister(&id).await?;
    Ok(envelope::ok(protocol::RunnerDeregistered {
        runner: runner_dto(runner),
        status: protocol::RunnerStatus::Offline,
    }))
}

/// Records a runner's heartbeat: its status and how many tasks it runs.
///
/// Needs the API key the runner registered with. A runner silent for longer than the
/// heartbeat timeout is marked offline and its tasks are given to others.
#[utoipa::path(
    security(("bearer" = []), ("apiKey" = [])),
    request_body = protocol::Heartbeat,
    responses((status = 200, body = Data<protocol::HeartbeatAck>))
)]
#[post("/{runner_id}/heartbeat")]
async fn runner_heartbeat(
    state: web::Data<AppState>,
    user: AuthUser,
    id: web::Path<String>,
    body: web::Json<protocol::Heartbeat>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    // Checked before anything else; named as the body names it.
    if !(0..=protocol::MAX_CURRENT_JOBS).contains(&body.current_jobs) {
        return Err(ApiError::invalid_fields(&[FieldError::new(
            "currentJobs",
            format!("must be from 0 to {}", protocol::MAX_CURRENT_JOBS),
        )]));
    }
    let key = api_key(&user)?;
    let status = domain::RunnerStatus::parse(&body.status).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "status must be online, busy or offline",
        )
    })?;
    let runner = state
        .runners
        .heartbeat(key, &id, status, body.current_jobs)
        .await?;
    Ok(envelope::ok(protocol::HeartbeatAck {
        acknowledged: true,
        runner: runner_dto(runner),
    }))
}

// The domain's runner types and the protocol's, field by field (neither crate knows
// the other, so these are functions rather than `From` impls).

fn runner_dto(r: domain::Runner) -> protocol::Runner {
    protocol::Runner {
        id: r.id,
        name: r.name,
        version: r.version,
        status: status_dto(r.status),
        current_jobs: r.current_jobs,
        max_concurrent_jobs: r.max_concurrent_jobs,
        total_jobs_completed: r.total_jobs_completed,
        total_jobs_failed: r.total_jobs_failed,
        tags: r.tags,
        last_heartbeat: r.last_heartbeat,
        registered_at: r.registered_at,
    }
}

fn status_dto(s: domain::RunnerStatus) -> protocol::RunnerStatus {
    match s {
        domain::RunnerStatus::Online => protocol::RunnerStatus::Online,
        domain::RunnerStatus::Busy => protocol::RunnerStatus::Busy,
        domain::RunnerStatus::Offline => protocol::RunnerStatus::Offline,
    }
}

fn phase_dto(p: domain::RunnerPhase) -> protocol::RunnerPhase {
    match p {
        domain::RunnerPhase::Preparing => protocol::RunnerPhase::Preparing,
        domain::RunnerPhase::Cloning => protocol::RunnerPhase::Cloning,
        domain::RunnerPhase::Reviewing => protocol::RunnerPhase::Reviewing,
        domain::RunnerPhase::Submitting => protocol::RunnerPhase::Submitting,
    }
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
        review_id: t.review_id,
        project_id: t.project_id,
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
                file_id: f.file_id,
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
        },
        attempt: t.attempt,
        timeout_ms: t.timeout_ms,
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
                    })
                    .collect(),
                summary: f.summary,
                error: f.error,
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
        },
        error: r.error,
        logs: r.logs,
    }
}
