//! Rows of the system and database samples the monitor keeps.

use super::count;
use crate::schema::{database_metrics, system_metrics};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_domain::model::monitoring::{DatabaseSample, SystemSample};

/// A stored count (never negative) as the domain's `u32`.
pub(crate) fn to_u32(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = system_metrics, check_for_backend(diesel::pg::Pg))]
pub(crate) struct SystemRow {
    instance: Option<String>,
    cpu_usage_percent: f64,
    cpu_count: i32,
    memory_used_bytes: i64,
    memory_total_bytes: i64,
    process_memory_bytes: Option<i64>,
    uptime_seconds: i64,
    process_uptime_seconds: Option<i64>,
    load_avg_1: Option<f64>,
    load_avg_5: Option<f64>,
    load_avg_15: Option<f64>,
    collected_at: DateTime<Utc>,
}

impl From<SystemRow> for SystemSample {
    fn from(r: SystemRow) -> Self {
        SystemSample {
            instance: r.instance.unwrap_or_default(),
            cpu_usage_percent: r.cpu_usage_percent,
            cpu_count: to_u32(r.cpu_count),
            memory_used_bytes: count(r.memory_used_bytes),
            memory_total_bytes: count(r.memory_total_bytes),
            process_memory_bytes: r.process_memory_bytes.map(count),
            uptime_seconds: count(r.uptime_seconds),
            process_uptime_seconds: r.process_uptime_seconds.map_or(0, count),
            load_average: match (r.load_avg_1, r.load_avg_5, r.load_avg_15) {
                (Some(a), Some(b), Some(c)) => Some([a, b, c]),
                _ => None,
            },
            collected_at: r.collected_at,
        }
    }
}

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = database_metrics, check_for_backend(diesel::pg::Pg))]
pub(crate) struct DatabaseRow {
    total_connections: i32,
    active_connections: i32,
    idle_connections: i32,
    max_connections: Option<i32>,
    database_size_bytes: i64,
    query_latency_ms: f64,
    pool_size: Option<i32>,
    pool_available: Option<i32>,
    collected_at: DateTime<Utc>,
}

impl From<DatabaseRow> for DatabaseSample {
    fn from(r: DatabaseRow) -> Self {
        DatabaseSample {
            total_connections: to_u32(r.total_connections),
            active_connections: to_u32(r.active_connections),
            idle_connections: to_u32(r.idle_connections),
            max_connections: r.max_connections.map(to_u32),
            database_size_bytes: count(r.database_size_bytes),
            query_latency_ms: r.query_latency_ms,
            pool_size: r.pool_size.map(to_u32),
            pool_available: r.pool_available.map(to_u32),
            collected_at: r.collected_at,
        }
    }
}
