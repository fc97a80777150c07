//! API request statistics since a moment.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, date_from};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, TimeDelta, Utc};
use reviewd_domain::model::monitoring::{ApiStats, RouteStats};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Requests of one route template and method over the period.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RouteStatsDto {
    /// The route template, e.g. `/api/reviews/{review_id}`.
    route: String,
    method: String,
    requests: u64,
    client_errors: u64,
    server_errors: u64,
    /// Percent of the route's requests, 0-100.
    success_rate: f64,
    /// Percent of the route's requests, 0-100.
    error_rate: f64,
    avg_latency_ms: f64,
    max_latency_ms: f64,
}

impl From<RouteStats> for RouteStatsDto {
    fn from(r: RouteStats) -> Self {
        RouteStatsDto {
            route: r.route,
            method: r.method,
            requests: r.requests,
            client_errors: r.client_errors,
            server_errors: r.server_errors,
            success_rate: r.success_rate,
            error_rate: r.error_rate,
            avg_latency_ms: r.avg_latency_ms,
            max_latency_ms: r.max_latency_ms,
        }
    }
}

/// API statistics of every replica since `since`: totals, rates and the routes,
/// busiest first. 4xx answers are client errors, 5xx server errors.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct ApiStatsDto {
    since: DateTime<Utc>,
    total_requests: u64,
    successful_requests: u64,
    client_errors: u64,
    server_errors: u64,
    /// Percent of all requests, 0-100, two decimals.
    success_rate: f64,
    /// Percent of all requests, 0-100, two decimals.
    error_rate: f64,
    avg_latency_ms: f64,
    routes: Vec<RouteStatsDto>,
}

impl From<ApiStats> for ApiStatsDto {
    fn from(a: ApiStats) -> Self {
        ApiStatsDto {
            since: a.since,
            total_requests: a.total_requests,
            successful_requests: a.successful_requests,
            client_errors: a.client_errors,
            server_errors: a.server_errors,
            success_rate: a.success_rate,
            error_rate: a.error_rate,
            avg_latency_ms: a.avg_latency_ms,
            routes: a.routes.into_iter().map(RouteStatsDto::from).collect(),
        }
    }
}

/// The start of the statistics.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct ApiStatsQuery {
    /// Requests from this moment on (a plain date means its start, UTC); by default
    /// the last 24 hours.
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    start_date: Option<String>,
}

/// API request statistics of every replica since `startDate`.
#[utoipa::path(params(ApiStatsQuery), responses((status = 200, body = Data<ApiStatsDto>)))]
#[get("/api")]
pub(super) async fn get_api_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<ApiStatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let since = date_from("startDate", q.start_date.as_deref())?
        .unwrap_or_else(|| Utc::now() - TimeDelta::hours(24));
    let stats = state.monitoring.api_stats(since).await?;
    Ok(envelope::ok(ApiStatsDto::from(stats)))
}
