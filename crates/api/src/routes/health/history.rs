//! The stored check results, filtered.

use super::{HealthCheckDto, check_type_schema, dtos, health_status_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, choice, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::health::{CheckType, HealthHistoryFilter, HealthStatus};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    start_date: Option<String>,
    /// Results checked at or before this moment; a plain date means its end (UTC).
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
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
struct HealthHistoryDto {
    checks: Vec<HealthCheckDto>,
}

/// Stored check results, newest first, filtered by kind, state and time.
#[utoipa::path(params(HealthHistoryQuery), responses((status = 200, body = Data<HealthHistoryDto>)))]
#[get("/history")]
pub(super) async fn list_health_history(
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
