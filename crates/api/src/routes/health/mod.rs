//! `GET /api/health` (public liveness), `GET /api/health/detailed` (dependencies) and
//! the stored health checks: run them all or one kind, read the latest or the history.
//! The routing and a check result as every response shows it are here; each file
//! holds its handlers and the shapes they answer with.

mod checks;
mod history;
mod liveness;

use crate::field_schemas::string_enum;
use checks::{
    check_ai_providers_health, check_database_health, check_disk_space_health, check_host_a_health,
    get_health_status, run_health_checks,
};
use chrono::{DateTime, Utc};
use history::list_health_history;
use liveness::{get_detailed_health, get_health};
use reviewd_domain::model::health::{CheckResult, CheckType, HealthStatus};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};

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
struct HealthCheckDto {
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
