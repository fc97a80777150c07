//! Monitoring: `GET /api/monitoring/overview`, `/system` and `/database` (paginated
//! history, newest first, `page`, `pageSize` default 20 max 100, `startDate`),
//! `/api` (request statistics since `startDate`, default the last 24 hours) and
//! `POST /api/monitoring/collect`.

use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, date_from};
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, TimeDelta, Utc};
use reviewd_domain::model::monitoring::{ApiStats, DatabaseSample, RouteStats, SystemSample};
use reviewd_domain::services::monitoring::{Collected, Overview};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};

/// A date filter: a plain date or an RFC 3339 date-time (`crate::openapi::date_or_datetime`).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/monitoring")
            .service(get_monitoring_overview)
            .service(list_system_samples)
            .service(list_database_samples)
            .service(get_api_stats)
            .service(collect_monitoring_samples),
    );
}

/// The host and this process at one moment.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SystemSampleDto {
    /// The replica that took the sample (its hostname and process id).
    instance: String,
    /// Busy share of all CPUs since the previous sample, 0-100.
    cpu_usage_percent: f64,
    cpu_count: u32,
    memory_used_bytes: u64,
    memory_total_bytes: u64,
    process_memory_bytes: Option<u64>,
    /// Seconds since the host booted.
    uptime_seconds: u64,
    /// Seconds since this server process started.
    process_uptime_seconds: u64,
    /// The 1, 5 and 15 minute load averages, where the host reports them.
    load_average: Option<[f64; 3]>,
    collected_at: DateTime<Utc>,
}

impl From<SystemSample> for SystemSampleDto {
    fn from(s: SystemSample) -> Self {
        SystemSampleDto {
            instance: s.instance,
            cpu_usage_percent: s.cpu_usage_percent,
            cpu_count: s.cpu_count,
            memory_used_bytes: s.memory_used_bytes,
            memory_total_bytes: s.memory_total_bytes,
            process_memory_bytes: s.process_memory_bytes,
            uptime_seconds: s.uptime_seconds,
            process_uptime_seconds: s.process_uptime_seconds,
            load_average: s.load_average,
            collected_at: s.collected_at,
        }
    }
}

/// PostgreSQL at one moment: connections, size and a round trip.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseSampleDto {
    total_connections: u32,
    active_connections: u32,
    idle_connections: u32,
    max_connections: Option<u32>,
    database_size_bytes: u64,
    query_latency_ms: f64,
    /// This replica's pool: its bound.
    pool_size: Option<u32>,
    /// This replica's pool: the connections idle in it.
    pool_available: Option<u32>,
    collected_at: DateTime<Utc>,
}

impl From<DatabaseSample> for DatabaseSampleDto {
    fn from(d: DatabaseSample) -> Self {
        DatabaseSampleDto {
            total_connections: d.total_connections,
            active_connections: d.active_connections,
            idle_connections: d.idle_connections,
            max_connections: d.max_connections,
            database_size_bytes: d.database_size_bytes,
            query_latency_ms: d.query_latency_ms,
            pool_size: d.pool_size,
            pool_available: d.pool_available,
            collected_at: d.collected_at,
        }
    }
}

/// Requests of one route template and method over the period.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteStatsDto {
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
pub struct ApiStatsDto {
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

/// The host and the database now, and the API over the last 24 hours.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonitoringOverviewDto {
    system: SystemSampleDto,
    database: DatabaseSampleDto,
    /// Seconds since this server process started.
    uptime: u64,
    api: ApiStatsDto,
}

impl From<Overview> for MonitoringOverviewDto {
    fn from(o: Overview) -> Self {
        MonitoringOverviewDto {
            system: o.system.into(),
            database: o.database.into(),
            uptime: o.uptime,
            api: o.api.into(),
        }
    }
}

/// What one collection stored.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectedSamplesDto {
    system: SystemSampleDto,
    database: DatabaseSampleDto,
    /// Request buckets this replica flushed into the shared statistics.
    api_buckets_flushed: usize,
}

impl From<Collected> for CollectedSamplesDto {
    fn from(c: Collected) -> Self {
        CollectedSamplesDto {
            system: c.system.into(),
            database: c.database.into(),
            api_buckets_flushed: c.api_buckets_flushed,
        }
    }
}

/// `startDate` and the page.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct SampleHistoryQuery {
    /// Samples collected at or after this moment; a plain date means its start (UTC).
    #[param(schema_with = crate::openapi::date_or_datetime)]
    start_date: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The host and the database now, and the API statistics of the last 24 hours.
#[utoipa::path(responses((status = 200, body = Data<MonitoringOverviewDto>)))]
#[get("/overview")]
async fn get_monitoring_overview(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let overview = state.monitoring.overview().await?;
    Ok(envelope::ok(MonitoringOverviewDto::from(overview)))
}

/// Stored samples of the host, newest first.
#[utoipa::path(
    params(SampleHistoryQuery, PageParams),
    responses((status = 200, body = Paginated<SystemSampleDto>)),
)]
#[get("/system")]
async fn list_system_samples(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<SampleHistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let since = date_from("startDate", q.start_date.as_deref())?;
    let history = state.monitoring.system_history(page, since).await?;
    Ok(envelope::paginated(history, SystemSampleDto::from))
}

/// Stored samples of the database, newest first.
#[utoipa::path(
    params(SampleHistoryQuery, PageParams),
    responses((status = 200, body = Paginated<DatabaseSampleDto>)),
)]
#[get("/database")]
async fn list_database_samples(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<SampleHistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let since = date_from("startDate", q.start_date.as_deref())?;
    let history = state.monitoring.database_history(page, since).await?;
    Ok(envelope::paginated(history, DatabaseSampleDto::from))
}

/// The start of the statistics.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct ApiStatsQuery {
    /// Requests from this moment on (a plain date means its start, UTC); by default
    /// the last 24 hours.
    #[param(schema_with = crate::openapi::date_or_datetime)]
    start_date: Option<String>,
}

/// API request statistics of every replica since `startDate`.
#[utoipa::path(params(ApiStatsQuery), responses((status = 200, body = Data<ApiStatsDto>)))]
#[get("/api")]
async fn get_api_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<ApiStatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let since = date_from("startDate", q.start_date.as_deref())?
        .unwrap_or_else(|| Utc::now() - TimeDelta::hours(24));
    let stats = state.monitoring.api_stats(since).await?;
    Ok(envelope::ok(ApiStatsDto::from(stats)))
}

/// Samples the host and the database now and stores both samples.
///
/// Also adds this replica's request counts to the shared API statistics.
#[utoipa::path(responses((status = 200, body = Data<CollectedSamplesDto>)))]
#[post("/collect")]
async fn collect_monitoring_samples(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let collected = state.monitoring.collect().await?;
    Ok(envelope::ok(CollectedSamplesDto::from(collected)))
}
