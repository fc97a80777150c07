//! Running the stored checks (all, or one kind) and reading the latest results.

use super::{HealthCheckDto, dtos, health_status_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::health::CheckResult;
use reviewd_domain::services::health::overall;
use serde::Serialize;
use utoipa::ToSchema;

/// Check results with the worst of their states (`healthy` when there are none).
#[derive(Serialize, ToSchema)]
struct HealthReportDto {
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
pub(super) async fn run_health_checks(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.check_all().await?))
}

/// The latest stored result of each check, without running any.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/status")]
pub(super) async fn get_health_status(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.latest().await?))
}

/// The database check's results, its first one also as `check` (`null` when none).
#[derive(Serialize, ToSchema)]
struct DatabaseHealthDto {
    check: Option<HealthCheckDto>,
    checks: Vec<HealthCheckDto>,
    #[schema(schema_with = health_status_schema)]
    overall: &'static str,
}

/// Runs and stores the database check.
#[utoipa::path(responses((status = 200, body = Data<DatabaseHealthDto>)))]
#[get("/database")]
pub(super) async fn check_database_health(
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
pub(super) async fn check_host_a_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.gitlab().await?))
}

/// Runs and stores the AI provider check.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/ai-providers")]
pub(super) async fn check_ai_providers_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.ai_providers().await?))
}

/// Runs and stores the disk space check of each watched directory.
#[utoipa::path(responses((status = 200, body = Data<HealthReportDto>)))]
#[get("/disk-space")]
pub(super) async fn check_disk_space_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    Ok(report(state.health.disk_space().await?))
}
