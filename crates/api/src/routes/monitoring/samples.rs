//! Samples of the host and the database: their history, and collecting new ones.

use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams, date_from};
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::monitoring::{DatabaseSample, SystemSample};
use reviewd_domain::services::monitoring::Collected;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The host and this process at one moment.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct SystemSampleDto {
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
pub(super) struct DatabaseSampleDto {
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

/// What one collection stored.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CollectedSamplesDto {
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
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    start_date: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// Stored samples of the host, newest first.
#[utoipa::path(
    params(SampleHistoryQuery, PageParams),
    responses((status = 200, body = Paginated<SystemSampleDto>)),
)]
#[get("/system")]
pub(super) async fn list_system_samples(
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
pub(super) async fn list_database_samples(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<SampleHistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let since = date_from("startDate", q.start_date.as_deref())?;
    let history = state.monitoring.database_history(page, since).await?;
    Ok(envelope::paginated(history, DatabaseSampleDto::from))
}

/// Samples the host and the database now and stores both samples.
///
/// Also adds this replica's request counts to the shared API statistics.
#[utoipa::path(responses((status = 200, body = Data<CollectedSamplesDto>)))]
#[post("/collect")]
pub(super) async fn collect_monitoring_samples(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let collected = state.monitoring.collect().await?;
    Ok(envelope::ok(CollectedSamplesDto::from(collected)))
}
