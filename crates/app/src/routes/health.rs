//! `GET /api/health` (public liveness), `GET /api/health/detailed` (dependencies) and
//! the stored health checks: run them all or one kind, read the latest or the history.

use crate::config::NodeEnv;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, choice, date_from, date_until};
use crate::openapi::string_enum;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use futures_util::future::join_all;
use reviewd_domain::ErrorCode;
use reviewd_domain::model::health::{CheckResult, CheckType, HealthHistoryFilter, HealthStatus};
use reviewd_domain::services::health::overall;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};

/// A date filter: a plain date or an RFC 3339 date-time (`crate::openapi::date_or_datetime`).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/health")
            .service(get_health)
            .service(get_detailed_health)
            .service(run_health_checks)
            .service(get_health_status)
            .service(list_health_history)
            .service(check_database_health)
            .service(check_host_a_health)
            .service(check_ai_providers_health)
            .service(check_disk_space_health),
    );
}

fn health_status_schema() -> utoipa::openapi::Object {
    string_enum(HealthStatus::ALL.iter().map(|s| s.as_str()))
}

fn check_type_schema() -> utoipa::openapi::Object {
    let mut schema = string_enum(CheckType::ALL.iter().map(|t| t.as_str()));
    schema.description = Some(
        "`database`, `hostA` (one per enabled hostA config), `ai_provider` or `disk_space` \
         (one per watched directory)."
            .to_owned(),
    );
    schema
}

/// One check's outcome.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthCheckDto {
    #[schema(schema_with = check_type_schema)]
    check_type: &'static str,
    check_name: String,
    #[schema(schema_with = health_status_schema)]
    status: &'static str,
    /// What the check found (latency, user, free space, or the error).
    #[schema(value_type = Object)]
    details: serde_json::Value,
    /// Milliseconds the check took.
    response_time: u64,
    checked_at: DateTime<Utc>,
}

impl From<CheckResult> for HealthCheckDto {
    fn from(c: CheckResult) -> Self {
        HealthCheckDto {
            check_type: c.check_type.as_str(),
            check_name: c.check_name,
            status: c.status.as_str(),
            details: c.details,
            response_time: c.response_time,
            checked_at: c.checked_at,
        }
    }
}

fn dtos(checks: Vec<CheckResult>) -> Vec<HealthCheckDto> {
    checks.into_iter().map(HealthCheckDto::from).collect()
}

/// Check results with the worst of their states (`healthy` when there are none).
#[derive(Serialize, ToSchema)]
pub struct HealthReportDto {
    checks: Vec<HealthCheckDto>,
    #[schema(schema_with = health_status_schema)]
    overall: &'static str,
    timestamp: DateTime<Utc>,
}

/// `{checks, overall, timestamp}` for a set of results.
fn report(checks: Vec<CheckResult>) -> HttpResponse {
    let overall = overall(&checks).as_str();
    envelope::ok(HealthReportDto {
        checks: dtos(checks),
        overall,
        timestamp: Utc::now(),
    })
}

/// Runs and stores every check: database, hostA instances, AI provider, disk space.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/check")]
async fn run_health_checks(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.check_all().await?))
}

/// The latest stored result of each check, without running any.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/status")]
async fn get_health_status(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.latest().await?))
}

/// The database check's results, its first one also as `check` (`null` when none).
#[derive(Serialize, ToSchema)]
pub struct DatabaseHealthDto {
    check: Option<HealthCheckDto>,
    checks: Vec<HealthCheckDto>,
    #[schema(schema_with = health_status_schema)]
    overall: &'static str,
}

/// Runs and stores the database check.
#[utoipa::path(responses((status = 200, body = Data<DatabaseHealthDto>)))]
#[get("/database")]
async fn check_database_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let checks = state.health.database().await?;
    let overall = overall(&checks).as_str();
    let checks = dtos(checks);
    Ok(envelope::ok(DatabaseHealthDto {
        check: checks.first().cloned(),
        checks,
        overall,
    }))
}

/// Runs and stores the check of each enabled hostA config.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/hostA")]
async fn check_host_a_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.host_a().await?))
}

/// Runs and stores the AI provider check.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/ai-providers")]
async fn check_ai_providers_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.ai_providers().await?))
}

/// Runs and stores the disk space check of each watched directory.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/disk-space")]
async fn check_disk_space_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.disk_space().await?))
}

fn history_check_type_param() -> utoipa::openapi::Object {
    let mut schema = check_type_schema();
    schema.description = Some("Only results of this kind of check.".to_owned());
    schema
}

fn history_status_param() -> utoipa::openapi::Object {
    let mut schema = health_status_schema();
    schema.description = Some("Only results in this state.".to_owned());
    schema
}

/// Filters of the history; every one is optional.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct HealthHistoryQuery {
    /// Only results of this kind of check.
    #[param(schema_with = history_check_type_param)]
    check_type: Option<String>,
    /// Only results in this state.
    #[param(schema_with = history_status_param)]
    status: Option<String>,
    /// Results checked at or after this moment; a plain date means its start (UTC).
    #[param(schema_with = crate::openapi::date_or_datetime)]
    start_date: Option<String>,
    /// Results checked at or before this moment; a plain date means its end (UTC).
    #[param(schema_with = crate::openapi::date_or_datetime)]
    end_date: Option<String>,
    /// How many results at most, newest first: default 100; above 1000 it is 1000.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 4294967295_u64)]
    limit: Option<String>,
}

fn invalid(message: &str) -> ApiError {
    ApiError::bad_request(ErrorCode::InvalidQuery, message)
}

/// `{"checks": [...]}`: stored results, newest first.
#[derive(Serialize, ToSchema)]
pub struct HealthHistoryDto {
    checks: Vec<HealthCheckDto>,
}

/// Stored check results, newest first, filtered by kind, state and time.
#[utoipa::path(params(HealthHistoryQuery), responses((status = 200, body = Data<HealthHistoryDto>)))]
#[get("/history")]
async fn list_health_history(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HealthHistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let check_types: Vec<&str> = CheckType::ALL.iter().map(|t| t.as_str()).collect();
    let statuses: Vec<&str> = HealthStatus::ALL.iter().map(|s| s.as_str()).collect();
    let filter = HealthHistoryFilter {
        check_type: choice(
            "checkType",
            q.check_type.as_deref(),
            &check_types,
            CheckType::parse,
        )?,
        status: choice(
            "status",
            q.status.as_deref(),
            &statuses,
            HealthStatus::parse,
        )?,
        start_date: date_from("startDate", q.start_date.as_deref())?,
        end_date: date_until("endDate", q.end_date.as_deref())?,
        limit: match q.limit.as_deref() {
            None => 100,
            Some(v) => v
                .parse::<u32>()
                .ok()
                .filter(|n| *n >= 1)
                .map(|n| n.min(1000))
                .ok_or_else(|| invalid("limit must be a positive whole number"))?,
        },
    };
    Ok(envelope::ok(HealthHistoryDto {
        checks: dtos(state.health.history(&filter).await?),
    }))
}

/// `development`, `production` or `test`.
fn node_env_schema() -> utoipa::openapi::Object {
    string_enum([NodeEnv::Development, NodeEnv::Production, NodeEnv::Test].map(NodeEnv::as_str))
}

/// Which deployment answers.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthEnvironmentDto {
    /// `APP_ENV` (by default `NODE_ENV`'s value).
    app_env: String,
    #[schema(schema_with = node_env_schema)]
    node_env: &'static str,
}

fn ok_schema() -> utoipa::openapi::Object {
    string_enum(["ok"])
}

/// Liveness: always `ok`.
#[derive(Serialize, ToSchema)]
pub struct LivenessDto {
    environment: HealthEnvironmentDto,
    #[schema(schema_with = ok_schema)]
    status: &'static str,
    timestamp: DateTime<Utc>,
}

/// Liveness: answers `ok` whenever the process serves HTTP.
#[utoipa::path(responses((status = 200, body = Data<LivenessDto>)), security(()))]
#[get("")]
async fn get_health(state: web::Data<AppState>) -> HttpResponse {
    envelope::ok(LivenessDto {
        environment: HealthEnvironmentDto {
            app_env: state.config.app_env.clone(),
            node_env: state.config.node_env.as_str(),
        },
        status: "ok",
        timestamp: Utc::now(),
    })
}

fn dependency_status_schema() -> utoipa::openapi::Object {
    string_enum([
        HealthStatus::Healthy.as_str(),
        HealthStatus::Unhealthy.as_str(),
    ])
}

/// One dependency: `healthy` with its round trip, or `unhealthy` with why.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DependencyCheckDto {
    /// Set when `unhealthy`: `not reachable`.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'static str>,
    /// Milliseconds of the round trip, set when `healthy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    response_time: Option<f64>,
    #[schema(schema_with = dependency_status_schema)]
    status: &'static str,
}

fn detailed_status_schema() -> utoipa::openapi::Object {
    string_enum(["ok", "degraded"])
}

/// Each dependency's state; `degraded` when one does not answer.
#[derive(Serialize, ToSchema)]
pub struct DetailedHealthDto {
    /// By dependency name (`database`, `queue`...).
    checks: BTreeMap<&'static str, DependencyCheckDto>,
    #[schema(schema_with = detailed_status_schema)]
    status: &'static str,
    timestamp: DateTime<Utc>,
    /// Seconds since this process started.
    uptime: u64,
    version: &'static str,
}

/// `ok` when every dependency answers, `degraded` otherwise, with each one's result.
#[utoipa::path(responses((status = 200, body = Data<DetailedHealthDto>)))]
#[get("/detailed")]
async fn get_detailed_health(state: web::Data<AppState>, _user: AuthUser) -> HttpResponse {
    let results = join_all(
        state
            .probes
            .iter()
            .map(|p| async move { (p.name(), p.ping().await) }),
    )
    .await;
    let mut checks = BTreeMap::new();
    let mut all_ok = true;
    for (name, result) in results {
        let check = match result {
            Ok(took) => DependencyCheckDto {
                error: None,
                response_time: Some(took.as_secs_f64() * 1000.0),
                status: HealthStatus::Healthy.as_str(),
            },
            Err(err) => {
                all_ok = false;
                tracing::warn!(check = name, error = %err, "health.dependency_down");
                DependencyCheckDto {
                    error: Some("not reachable"),
                    response_time: None,
                    status: HealthStatus::Unhealthy.as_str(),
                }
            }
        };
        checks.insert(name, check);
    }
    envelope::ok(DetailedHealthDto {
        checks,
        status: if all_ok { "ok" } else { "degraded" },
        uptime: state.started_at.elapsed().as_secs(),
        timestamp: Utc::now(),
        version: env!("CARGO_PKG_VERSION"),
    })
}
