//! The runners themselves: registering, listing, reading, heartbeats and
//! deregistering.

use super::{admin_api_key, api_key};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::runner as domain;
use reviewd_domain::services::FieldError;
use reviewd_runner_protocol::{self as protocol, headers};

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
pub(super) async fn list_runners(
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
pub(super) async fn register_runner(
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
    state.preparer_wake.runner_online();
    Ok(envelope::ok(runner_dto(runner)))
}

/// One runner.
#[utoipa::path(responses((status = 200, body = Data<protocol::Runner>)))]
#[get("/{runner_id}")]
pub(super) async fn get_runner(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(runner_dto(state.runners.get(&id).await?)))
}

/// Marks a runner offline; the tasks it held go back to the queue at once.
#[utoipa::path(responses((status = 200, body = Data<protocol::RunnerDeregistered>)))]
#[delete("/{runner_id}")]
pub(super) async fn deregister_runner(
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
pub(super) async fn runner_heartbeat(
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
