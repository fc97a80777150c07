//! The runner protocol. Register, heartbeat, claim, phase, logs and result need an
//! API key (`Authorization: Bearer` or `x-api-key`); list and get accept a session
//! too; delete accepts the runner's key or a user. List, get and register answer the
//! record or array directly as `data`.

use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, ValidatedJson};
use crate::extract::{RESULT_LIMIT_BYTES, json_config_limited};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::AuthMethod;
use reviewd_domain::model::runner::{RunnerPhase, RunnerRegistration, RunnerResult, RunnerStatus};
use serde::Deserialize;
use serde_json::json;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.route("/runners", web::get().to(list))
        .route("/runners/register", web::post().to(register))
        .route("/runners/tasks/pending", web::get().to(pending))
        .route("/runners/tasks/{task_id}/status", web::post().to(phase))
        .route("/runners/tasks/{task_id}/logs", web::post().to(logs))
        .service(scope(
            web::scope("/runners/tasks/{task_id}/result")
                .app_data(json_config_limited(RESULT_LIMIT_BYTES))
                .route("", web::post().to(result)),
        ))
        .route("/runners/{runner_id}", web::get().to(get))
        .route("/runners/{runner_id}", web::delete().to(deregister))
        .route("/runners/{runner_id}/heartbeat", web::post().to(heartbeat));
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

async fn register(
    state: web::Data<AppState>,
    user: AuthUser,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let key_id = admin_api_key(&user)?;
    let id = header(&req, "x-runner-id")?.ok_or_else(|| {
        ApiError::bad_request(ErrorCode::MissingHeader, "x-runner-id is required")
    })?;
    if id.len() > 200 {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidHeader,
            "x-runner-id is longer than 200 characters",
        ));
    }
    let max = match header(&req, "x-runner-max-concurrency")? {
        None => 5,
        Some(v) => v
            .parse::<i32>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::InvalidHeader,
                    "x-runner-max-concurrency must be a whole number from 1 to 1000",
                )
            })?,
    };
    let mut tags: Vec<String> = header(&req, "x-runner-tags")?
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    tags.sort();
    tags.dedup();
    let registration = RunnerRegistration {
        id: id.to_owned(),
        name: header(&req, "x-runner-name")?.unwrap_or(id).to_owned(),
        version: header(&req, "x-runner-version")?
            .unwrap_or("unknown")
            .to_owned(),
        max_concurrent_jobs: max,
        tags,
        api_key_id: Some(key_id),
    };
    Ok(envelope::ok(state.runners.register(&registration).await?))
}

async fn list(state: web::Data<AppState>, _user: AuthUser) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(state.runners.list().await?))
}

async fn get(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(state.runners.get(&id).await?))
}

async fn deregister(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let runner = state.runners.deregister(&id).await?;
    Ok(envelope::ok(
        json!({ "runner": runner, "status": "offline" }),
    ))
}

#[derive(Deserialize, validator::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HeartbeatBody {
    status: String,
    #[validate(range(min = 0, max = 100_000))]
    current_jobs: i32,
}

async fn heartbeat(
    state: web::Data<AppState>,
    user: AuthUser,
    id: web::Path<String>,
    body: ValidatedJson<HeartbeatBody>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    let status = RunnerStatus::parse(&body.0.status).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "status must be online, busy or offline",
        )
    })?;
    let runner = state
        .runners
        .heartbeat(key, &id, status, body.0.current_jobs)
        .await?;
    Ok(envelope::ok(
        json!({ "acknowledged": true, "runner": runner }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PendingQuery {
    runner_id: Option<String>,
    limit: Option<String>,
}

async fn pending(
    state: web::Data<AppState>,
    user: AuthUser,
    q: web::Query<PendingQuery>,
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
    Ok(envelope::ok(
        state.runners.claim(key, runner_id, limit).await?,
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PhaseBody {
    status: String,
}

async fn phase(
    state: web::Data<AppState>,
    user: AuthUser,
    task_id: web::Path<Uuid>,
    body: web::Json<PhaseBody>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    let phase = RunnerPhase::parse(&body.status).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "status must be preparing, cloning, reviewing or submitting",
        )
    })?;
    state.runners.set_phase(key, *task_id, phase).await?;
    Ok(envelope::ok(
        json!({ "acknowledged": true, "status": phase.as_str() }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LogsBody {
    logs: Vec<String>,
}

async fn logs(
    state: web::Data<AppState>,
    user: AuthUser,
    task_id: web::Path<Uuid>,
    body: web::Json<LogsBody>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    let total = state.runners.append_logs(key, *task_id, &body.logs).await?;
    Ok(envelope::ok(
        json!({ "acknowledged": true, "appended": body.logs.len(), "total": total }),
    ))
}

async fn result(
    state: web::Data<AppState>,
    user: AuthUser,
    task_id: web::Path<Uuid>,
    body: web::Json<RunnerResult>,
) -> Result<HttpResponse, ApiError> {
    let key = api_key(&user)?;
    state.runners.submit_result(key, *task_id, &body).await?;
    let task = state.tasks.get(*task_id).await?;
    Ok(envelope::ok(json!({
        "acknowledged": true,
        "taskStatus": task.status,
        "reviewId": task.review_id,
    })))
}
