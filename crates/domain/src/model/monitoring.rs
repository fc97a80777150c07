//! Samples of the host, the database and the API, kept for the monitoring endpoints.

use chrono::{DateTime, Utc};

/// The host and this process at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemSample {
    /// The replica that took the sample (its hostname and process id).
    pub instance: String,
    /// Busy share of all CPUs since the previous sample, 0-100.
    pub cpu_usage_percent: f64,
    pub cpu_count: u32,
    pub memory_used_bytes: u64,
    pub memory_total_bytes: u64,
    pub process_memory_bytes: Option<u64>,
    /// Seconds since the host booted.
    pub uptime_seconds: u64,
    /// Seconds since this server process started.
    pub process_uptime_seconds: u64,
    pub load_average: Option<[f64; 3]>,
    pub collected_at: DateTime<Utc>,
}

/// PostgreSQL at one moment: connections, size and a round trip.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseSample {
    pub total_connections: u32,
    pub active_connections: u32,
    pub idle_connections: u32,
    pub max_connections: Option<u32>,
    pub database_size_bytes: u64,
    pub query_latency_ms: f64,
    /// This replica's pool: its bound and the connections idle in it.
    pub pool_size: Option<u32>,
    pub pool_available: Option<u32>,
    pub collected_at: DateTime<Utc>,
}

/// Requests of one route template, method and status within one minute.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiBucket {
    pub bucket_start: DateTime<Utc>,
    pub route: String,
    pub method: String,
    pub status_code: u16,
    pub request_count: u64,
    pub total_latency_ms: f64,
    pub max_latency_ms: f64,
}

impl ApiBucket {
    /// 4xx and 5xx answers count as errors.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.status_code >= 400
    }
}

/// Requests of one route template and method over a period.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteStats {
    pub route: String,
    pub method: String,
    pub requests: u64,
    pub client_errors: u64,
    pub server_errors: u64,
    pub success_rate: f64,
    pub error_rate: f64,
    pub avg_latency_ms: f64,
    pub max_latency_ms: f64,
}

/// API statistics over a period: totals, rates and the routes, busiest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiStats {
    pub since: DateTime<Utc>,
    pub total_requests: u64,
    pub successful_requests: u64,
    pub client_errors: u64,
    pub server_errors: u64,
    /// Shares of all requests, 0-100, two decimals.
    pub success_rate: f64,
    pub error_rate: f64,
    pub avg_latency_ms: f64,
    pub routes: Vec<RouteStats>,
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    #[expect(clippy::cast_precision_loss, reason = "counts far below 2^52")]
    let ratio = part as f64 / whole as f64;
    (ratio * 10_000.0).round() / 100.0
}

fn mean(total: f64, count: u64) -> f64 {
    if count == 0 {
        return 0.0;
    }
    #[expect(clippy::cast_precision_loss, reason = "counts far below 2^52")]
    let avg = total / count as f64;
    (avg * 100.0).round() / 100.0
}

impl ApiStats {
    /// Sums buckets (of any replicas and minutes) into per-route and overall figures.
    #[must_use]
    pub fn from_buckets(since: DateTime<Utc>, buckets: &[ApiBucket]) -> Self {
        use std::collections::BTreeMap;
        #[derive(Default)]
        struct Acc {
            requests: u64,
            client: u64,
            server: u64,
            latency: f64,
            max: f64,
        }
        let mut routes: BTreeMap<(String, String), Acc> = BTreeMap::new();
        for b in buckets {
            let acc = routes
                .entry((b.route.clone(), b.method.clone()))
                .or_default();
            acc.requests += b.request_count;
            if (400..500).contains(&b.status_code) {
                acc.client += b.request_count;
            } else if b.status_code >= 500 {
                acc.server += b.request_count;
            }
            acc.latency += b.total_latency_ms;
            acc.max = acc.max.max(b.max_latency_ms);
        }
        let (mut total, mut client, mut server, mut latency) = (0, 0, 0, 0.0);
        let mut stats: Vec<RouteStats> = routes
            .into_iter()
            .map(|((route, method), a)| {
                total += a.requests;
                client += a.client;
                server += a.server;
                latency += a.latency;
                let errors = a.client + a.server;
                RouteStats {
                    route,
                    method,
                    requests: a.requests,
                    client_errors: a.client,
                    server_errors: a.server,
                    success_rate: percent(a.requests - errors, a.requests),
                    error_rate: percent(errors, a.requests),
                    avg_latency_ms: mean(a.latency, a.requests),
                    max_latency_ms: (a.max * 100.0).round() / 100.0,
                }
            })
            .collect();
        stats.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.route.cmp(&b.route)));
        let errors = client + server;
        Self {
            since,
            total_requests: total,
            successful_requests: total - errors,
            client_errors: client,
            server_errors: server,
            success_rate: percent(total - errors, total),
            error_rate: percent(errors, total),
            avg_latency_ms: mean(latency, total),
            routes: stats,
        }
    }
}

/// Counts by state read for the metrics exposition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateCounts {
    /// `(status, count)` of reviews.
    pub reviews: Vec<(String, u64)>,
    /// `(status, count)` of runners, with `offline` for the silent ones.
    pub runners: Vec<(String, u64)>,
    /// `(channel, status, count)` of notification deliveries.
    pub notifications: Vec<(String, String, u64)>,
    /// `(provider, model, USD)`: the cost of every priced AI call ever logged.
    pub ai_costs: Vec<(String, String, f64)>,
    /// Every AI call ever logged, per provider, model and status (`success`,
    /// `failed`), with the tokens they used.
    pub ai_calls: Vec<AiCallTotal>,
    /// When the oldest task still waiting (`queued`) was created: how long the
    /// queue has kept someone waiting.
    pub oldest_queued_task_at: Option<DateTime<Utc>>,
}

/// AI calls of one provider, model and outcome, from the AI call log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AiCallTotal {
    pub provider: String,
    pub model: String,
    pub status: String,
    pub calls: u64,
    pub tokens: u64,
}

/// Rows removed by one retention run, per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PruneReport {
    pub system_metrics: u64,
    pub database_metrics: u64,
    pub api_metrics: u64,
    pub health_checks: u64,
    pub job_runs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(route: &str, status: u16, count: u64, latency: f64) -> ApiBucket {
        ApiBucket {
            bucket_start: Utc::now(),
            route: route.to_owned(),
            method: "GET".to_owned(),
            status_code: status,
            request_count: count,
            total_latency_ms: latency,
            max_latency_ms: latency / count.max(1) as f64 * 2.0,
        }
    }

    #[test]
    fn rates_count_client_and_server_errors_per_route_and_overall() {
        let stats = ApiStats::from_buckets(
            Utc::now(),
            &[
                bucket("/api/projects", 200, 6, 60.0),
                bucket("/api/projects", 404, 1, 5.0),
                bucket("/api/projects", 500, 1, 35.0),
                bucket("/api/health", 200, 2, 2.0),
            ],
        );
        assert_eq!(stats.total_requests, 10);
        assert_eq!(stats.successful_requests, 8);
        assert_eq!((stats.client_errors, stats.server_errors), (1, 1));
        assert!((stats.error_rate - 20.0).abs() < f64::EPSILON);
        assert!((stats.success_rate - 80.0).abs() < f64::EPSILON);
        assert!((stats.avg_latency_ms - 10.2).abs() < 1e-9);
        let projects = &stats.routes[0];
        assert_eq!(projects.route, "/api/projects");
        assert_eq!(projects.requests, 8);
        assert!((projects.error_rate - 25.0).abs() < f64::EPSILON);
        assert!((projects.avg_latency_ms - 12.5).abs() < 1e-9);
        assert_eq!(stats.routes[1].route, "/api/health");
    }

    #[test]
    fn no_requests_gives_zero_rates_not_nan() {
        let stats = ApiStats::from_buckets(Utc::now(), &[]);
        assert_eq!(stats.total_requests, 0);
        assert!(stats.error_rate.abs() < f64::EPSILON);
        assert!(stats.avg_latency_ms.abs() < f64::EPSILON);
    }
}
